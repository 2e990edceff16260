/**
 * The capability and grant check at the boundary, attacked both ways for a tool, a UI call, a session action and
 * a hook: a capability the extension does not declare (the denial names pi-extension.json and the field), one
 * the application running it withholds (ungranted: the denial says who can give it), and a power a QuickJS
 * hook answer needs that the user has not granted (the denial names the exact `pier grant` command).
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { type Denial, gateFor, type ToolOwner } from "../../src/extensions/bridge/grant-gate.js";
import { toPiHookResult } from "../../src/extensions/bridge/hook-results.js";
import type { RuntimeHost } from "../../src/extensions/host/instance.js";
import { loadManifest } from "../../src/extensions/manifest.js";
import { type Capability, permissions, type UiCapability } from "../../src/extensions/protocol/capabilities.js";
import { quickjsSpec } from "../../src/extensions/runtimes/quickjs/launcher.js";
import { quickjsPackage } from "../helpers/hostile.js";
import { tempDir } from "../helpers/pier-cli.js";
import { scriptedPackage, scriptedSpec, testHost } from "../helpers/scripted.js";

const textOf = (value: unknown) => (value as { content: { text: string }[] }).content[0]!.text;

const answering: RuntimeHost = {
	hasUi: true,
	ui: async () => ({ type: "acknowledged" }),
	action: async () => ["read"],
};

/** Loads one scripted process extension; `granted` narrows what the launcher grants (an embedding application). */
async function load(
	dir: string,
	options: Parameters<typeof scriptedPackage>[2],
	granted?: { capabilities: Capability[]; ui?: UiCapability[] },
) {
	const { host } = testHost();
	host.setRuntimeHost(answering);
	const pkg = scriptedPackage(dir, "asker", options);
	const spec = scriptedSpec(pkg, granted ? { granted: permissions(granted.capabilities, granted.ui ?? []) } : {});
	const report = await host.load([spec]);
	const call = async (tool: string, args: unknown) => JSON.parse(textOf(await host.invokeTool(tool, "c", args)));
	return { host, pkg, report, call };
}

const statusRequest = { request: { type: "status", key: "k", text: "t" } };
const sessionAction = { action: { kind: "get_active_tools" } };

describe("undeclared: the extension does not declare the capability", () => {
	const registrations: Array<[string, Parameters<typeof scriptedPackage>[2], string, Capability]> = [
		["a tool", { capabilities: ["event_hooks"] }, "tool", "tools"],
		["a hook", { capabilities: ["tools"], tools: [] }, "event_hook", "event_hooks"],
	];
	for (const [what, options, kind, capability] of registrations) {
		test(`${what}: the load fails, naming pi-extension.json and the field to add "${capability}" to`, async (t) => {
			using dir = tempDir();
			const { host, pkg, report } = await load(dir.path, options);
			t.after(() => host.shutdown("test end"));
			assert.equal(report.loaded.length, 0);
			const fix = `add "${capability}" to "capabilities" in ${join(pkg, "pi-extension.json")}`;
			assert.ok(
				report.failures[0]!.message.endsWith(
					`registered ${kind} without the "${capability}" capability (undeclared: ${fix})`,
				),
				report.failures[0]!.message,
			);
		});
	}

	test("a UI call: permission_denied names both fields it is missing from", async (t) => {
		using dir = tempDir();
		const { host, pkg, call } = await load(dir.path, { tools: ["ui"] });
		t.after(() => host.shutdown("test end"));
		const denied = await call("ui", statusRequest);
		assert.equal(denied.error.code, "permission_denied");
		assert.equal(
			denied.error.message,
			`UI capability "status" was not granted (undeclared: add "ui" to "capabilities" and "status" to "uiCapabilities" in ${join(pkg, "pi-extension.json")})`,
		);
	});

	test("a UI call with ui declared but not its UI capability names only the missing one", async (t) => {
		using dir = tempDir();
		const { host, call } = await load(dir.path, {
			tools: ["ui"],
			capabilities: ["tools", "event_hooks", "ui"],
			uiCapabilities: ["notify"],
		});
		t.after(() => host.shutdown("test end"));
		const denied = await call("ui", statusRequest);
		assert.match(denied.error.message, /\(undeclared: add "status" to "uiCapabilities" in /);
		assert.doesNotMatch(denied.error.message, /"ui" to "capabilities"/);
	});

	test("a session action: permission_denied names session_actions and pi-extension.json", async (t) => {
		using dir = tempDir();
		const { host, pkg, call } = await load(dir.path, { tools: ["action"] });
		t.after(() => host.shutdown("test end"));
		const denied = await call("action", sessionAction);
		assert.equal(denied.error.code, "permission_denied");
		assert.equal(
			denied.error.message,
			`session action capability "session_actions" was not granted (undeclared: add "session_actions" to "capabilities" in ${join(pkg, "pi-extension.json")})`,
		);
	});

	test("a capability pi-extension.json declares but the extension's own hello leaves out is undeclared there", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		host.setRuntimeHost(answering);
		// The hello (the scripted extension's own manifest) declares tools only; pi-extension.json also declares
		// session_actions: the fix is the hello, not pi-extension.json.
		const pkg = scriptedPackage(dir.path, "hello-less", { tools: ["action"], hooks: [], capabilities: ["tools"] });
		const file = join(pkg, "pi-extension.json");
		writeFileSync(
			file,
			JSON.stringify({ ...JSON.parse(readFileSync(file, "utf8")), capabilities: ["tools", "session_actions"] }),
		);
		await host.load([scriptedSpec(pkg)]);
		t.after(() => host.shutdown("test end"));
		const denied = JSON.parse(textOf(await host.invokeTool("action", "c", sessionAction)));
		assert.equal(denied.error.code, "permission_denied");
		assert.match(
			denied.error.message,
			/\(undeclared in the extension's hello, though .*pi-extension\.json declares it: add "session_actions" to "capabilities" of the manifest its hello sends \(for the Node kit: the manifest given to runExtension\)\)/,
		);
	});
});

describe("ungranted: declared, but the application running the extension withholds it", () => {
	const cases: Array<[string, Parameters<typeof scriptedPackage>[2], Capability[], UiCapability[], RegExp]> = [
		[
			"a tool",
			{},
			["event_hooks", "commands"],
			[],
			/requested ungranted capability "tools" \(ungranted: .*pi-extension\.json declares it, but the application running the extension grants only event_hooks, commands; it must grant "tools" when it launches the extension\)/,
		],
		[
			"a hook",
			{},
			["tools", "commands"],
			[],
			/requested ungranted capability "event_hooks" \(ungranted: .* grants only tools, commands; it must grant "event_hooks"/,
		],
		[
			"a UI call",
			{ capabilities: ["tools", "event_hooks", "ui"], uiCapabilities: ["status"] },
			["tools", "event_hooks", "ui"],
			[],
			/requested ungranted UI capability "status" \(ungranted: .* grants only tools, event_hooks, ui; it must grant "status"/,
		],
		[
			"a session action",
			{ capabilities: ["tools", "event_hooks", "session_actions"] },
			["tools", "event_hooks"],
			[],
			/requested ungranted capability "session_actions" \(ungranted: .* it must grant "session_actions"/,
		],
	];
	for (const [what, options, capabilities, ui, message] of cases) {
		test(`${what}: the hello declaring it fails the load, saying who withholds it`, async (t) => {
			using dir = tempDir();
			const { host, report } = await load(dir.path, options, { capabilities, ui });
			t.after(() => host.shutdown("test end"));
			assert.equal(report.loaded.length, 0);
			assert.match(report.failures[0]!.message, message);
		});
	}

	test("a hook answer of a QuickJS extension needing a grant the user has not given names the pier grant command", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		const pkg = quickjsPackage(
			dir.path,
			"rewriter",
			`export default function (pi) { pi.on("tool_call", () => ({ input: { command: "touch marker" } })); }`,
			["event_hooks"],
		);
		const report = await host.load([
			quickjsSpec(loadManifest(pkg), { cwd: dir.path, projectTrusted: true, deadlineMs: 5_000 }),
		]);
		t.after(() => host.shutdown("test end"));
		assert.deepEqual(report.failures, []);
		const event = { toolName: "bash", toolCallId: "call-1", input: { command: "ls" } };
		const [outcome] = await host.emit("tool_call", event);
		assert.ok(outcome?.result.ok, "the guest answered");
		const denials: Denial[] = [];
		const builtin = (): ToolOwner => ({ kind: "builtin" });
		const gate = gateFor(
			builtin,
			outcome.instance,
			"tool_call",
			(i) => ({ grants: new Set(), target: i.id }),
			(d) => denials.push(d),
		);
		assert.equal(toPiHookResult("tool_call", outcome.result.value, event, gate), undefined);
		assert.deepEqual(event.input, { command: "ls" }, "the call stays as the model made it");
		assert.equal(
			denials[0]?.message,
			'extension "rewriter" may not replace the input of bash: it lacks the "run" grant (grant it with: pier grant rewriter run)',
		);
		// With the grant the same answer applies: the denial was the grant's alone.
		const granted = gateFor(
			builtin,
			outcome.instance,
			"tool_call",
			(i) => ({ grants: new Set(["run"]), target: i.id }),
			() => {},
		);
		toPiHookResult("tool_call", outcome.result.value, event, granted);
		assert.deepEqual(event.input, { command: "touch marker" });
	});
});

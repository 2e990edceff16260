import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { UI_CAPABILITIES } from "../src/extensions/protocol/capabilities.js";
import { createPierSession } from "../src/index.js";
import { REPO_ROOT, tempDir } from "./helpers/pier-cli.js";
import { scriptedPackage } from "./helpers/scripted.js";

/** A real pi session in `dir` (also its agent dir), kept in memory, with one extension package loaded. */
function sessionWith(dir: string, pkg: string, extra: Partial<Parameters<typeof createPierSession>[0]> = {}) {
	return createPierSession({ cwd: dir, agentDir: dir, session: { kind: "memory" }, extensionPaths: [pkg], ...extra });
}

/** The JSON the scripted tool returned, as the demo model quoted it in its last answer. */
function lastToolJson(session: { messages: unknown[] }): { status: string; value?: unknown; error?: { code: string } } {
	const text = (session.messages.at(-1) as { content: { text: string }[] }).content[0]!.text;
	const quoted = /says: "(.*)"\.$/s.exec(text)?.[1];
	assert.ok(quoted, text);
	return JSON.parse(quoted);
}

/** A UI that records what reaches it and answers dialogs like a user would. */
function recordingUi() {
	const calls: unknown[][] = [];
	const record =
		(name: string, answer?: unknown) =>
		(...args: unknown[]) => {
			calls.push([name, ...args.filter((a) => !(a && typeof a === "object" && "signal" in (a as object)))]);
			return answer;
		};
	const ui = {
		select: record("select", Promise.resolve("Blue")),
		confirm: record("confirm", Promise.resolve(true)),
		input: record("input", Promise.resolve(undefined)),
		editor: record("editor", Promise.resolve("edited text")),
		notify: record("notify"),
		setStatus: record("setStatus"),
		setWidget: record("setWidget"),
		setTitle: record("setTitle"),
		setEditorText: record("setEditorText"),
		getEditorText: record("getEditorText", "draft"),
		pasteToEditor: record("pasteToEditor"),
		setWorkingMessage: record("setWorkingMessage"),
		setWorkingVisible: record("setWorkingVisible"),
		setWorkingIndicator: record("setWorkingIndicator"),
		setHiddenThinkingLabel: record("setHiddenThinkingLabel"),
		getAllThemes: record("getAllThemes", [{ name: "dark", path: undefined }]),
		setTheme: record("setTheme", { success: true }),
		getToolsExpanded: record("getToolsExpanded", true),
		setToolsExpanded: record("setToolsExpanded"),
		onTerminalInput: () => () => {},
	};
	return { ui: ui as unknown as ExtensionUIContext, calls };
}

// Every UI capability except overlays, which need an overlay surface (test/extensions/overlays.test.ts).
const ALL_UI = UI_CAPABILITIES.filter((c) => c !== "overlay");

describe("the bridge in a real pi session", () => {
	test("UI requests reach the session's UI and every answer maps back", async () => {
		using dir = tempDir();
		const { ui, calls } = recordingUi();
		const pkg = scriptedPackage(dir.path, "ui-user", {
			tools: ["ui"],
			capabilities: ["tools", "event_hooks", "ui"],
			uiCapabilities: ALL_UI,
		});
		const pier = await sessionWith(dir.path, pkg, { uiContext: ui });
		try {
			const ask = async (request: unknown) => {
				await pier.session.prompt(`ui ${JSON.stringify({ request })}`);
				return lastToolJson(pier.session);
			};
			const options = [
				{ value: "r", label: "Red" },
				{ value: "b", label: "Blue" },
			];
			assert.deepEqual(await ask({ type: "select", title: "Colour?", options }), {
				status: "success",
				value: { type: "selected", value: "b" },
			});
			assert.deepEqual((await ask({ type: "confirm", title: "Sure?", message: "Really" })).value, {
				type: "confirmed",
				confirmed: true,
			});
			assert.deepEqual((await ask({ type: "input", title: "Name?" })).value, { type: "cancelled" });
			assert.deepEqual((await ask({ type: "editor", title: "Edit", prefill: "x" })).value, {
				type: "edited",
				value: "edited text",
			});
			assert.deepEqual((await ask({ type: "get_editor_text" })).value, { type: "editor_text", value: "draft" });
			assert.deepEqual((await ask({ type: "get_all_themes" })).value, { type: "themes", themes: [{ name: "dark" }] });
			assert.deepEqual((await ask({ type: "set_theme", name: "dark" })).value, { type: "theme_set", success: true });
			assert.deepEqual((await ask({ type: "get_tools_expanded" })).value, { type: "tools_expanded", expanded: true });
			for (const request of [
				{ type: "notify", message: "hello", level: "warning" },
				{ type: "status", key: "k", text: "busy" },
				{ type: "widget", key: "w", lines: ["a", "b"], placement: "below_editor" },
				{ type: "title", title: "T" },
				{ type: "set_editor_text", text: "new" },
				{ type: "paste_to_editor", text: "pasted" },
				{ type: "set_working_message", message: "thinking" },
				{ type: "set_working_visible", visible: false },
				{ type: "set_hidden_thinking_label", label: "hmm" },
				{ type: "set_tools_expanded", expanded: false },
			]) {
				assert.deepEqual((await ask(request)).value, { type: "acknowledged" }, JSON.stringify(request));
			}
			const names = calls.map((c) => c[0]);
			assert.deepEqual(
				calls.find((c) => c[0] === "select"),
				["select", "Colour?", ["Red", "Blue"]],
			);
			assert.deepEqual(
				calls.find((c) => c[0] === "setWidget"),
				["setWidget", "w", ["a", "b"], { placement: "belowEditor" }],
			);
			assert.deepEqual(
				calls.find((c) => c[0] === "notify"),
				["notify", "hello", "warning"],
			);
			for (const name of [
				"setStatus",
				"setTitle",
				"setEditorText",
				"pasteToEditor",
				"setWorkingMessage",
				"setWorkingVisible",
			]) {
				assert.ok(names.includes(name), name);
			}
		} finally {
			await pier.dispose();
		}
	});

	test("session actions act on the real session", async () => {
		using dir = tempDir();
		const pkg = scriptedPackage(dir.path, "actor", {
			tools: ["action"],
			capabilities: ["tools", "event_hooks", "session_actions"],
		});
		const pier = await sessionWith(dir.path, pkg);
		try {
			const act = async (action: unknown) => {
				await pier.session.prompt(`action ${JSON.stringify({ action })}`);
				return lastToolJson(pier.session);
			};
			assert.deepEqual(await act({ kind: "set_session_name", name: "Named by a process" }), {
				status: "success",
				value: null,
			});
			assert.equal(pier.session.sessionManager.getSessionName(), "Named by a process");
			const active = await act({ kind: "get_active_tools" });
			assert.ok((active.value as string[]).includes("action"));
			await act({ kind: "set_active_tools", toolNames: ["action", "read"] });
			const now = (await act({ kind: "get_active_tools" })).value as string[];
			assert.deepEqual([...now].sort(), ["action", "read"]);
			await act({ kind: "append_entry", customType: "note", data: { n: 1 } });
			const entry = pier.session.sessionManager.getEntries().find((e) => e.type === "custom");
			assert.deepEqual((entry as { customType: string; data: unknown }).data, { n: 1 });
			// pier/demo does not reason, so pi clamps any level to "off"; the action itself must succeed.
			assert.deepEqual(await act({ kind: "set_thinking_level", level: "low" }), { status: "success", value: null });
			assert.equal(pier.session.thinkingLevel, "off");
			const model = await act({ kind: "set_model", model: { provider: "pier", id: "nope" } });
			assert.equal(model.status, "failure");
		} finally {
			await pier.dispose();
		}
	});

	test("without a UI, dialogs are ui_unavailable and notifications are acknowledged", async () => {
		using dir = tempDir();
		const pkg = scriptedPackage(dir.path, "headless", {
			tools: ["ui"],
			capabilities: ["tools", "event_hooks", "ui"],
			uiCapabilities: ["confirm", "notify"],
		});
		const pier = await sessionWith(dir.path, pkg);
		try {
			await pier.session.prompt(`ui ${JSON.stringify({ request: { type: "confirm", title: "t", message: "m" } })}`);
			const text = (pier.session.messages.at(-1) as { content: { text: string }[] }).content[0]!.text;
			assert.match(text, /ui_unavailable/);
		} finally {
			await pier.dispose();
		}
	});
});

/** Every hook one prompt with a tool call fires, in pi's order (agent_settled is pier's). */
const PROMPT_FLOW_HOOKS = [
	"session_start",
	"input",
	"before_agent_start",
	"agent_start",
	"turn_start",
	"context",
	"message_start",
	"message_update",
	"message_end",
	"tool_call",
	"tool_execution_start",
	"tool_execution_end",
	"tool_result",
	"turn_end",
	"agent_end",
	"agent_settled",
];

describe("hooks from real producers", () => {
	test("a prompt with a tool call delivers every hook of its flow, with pi's payloads", async () => {
		using dir = tempDir();
		const hooks = PROMPT_FLOW_HOOKS;
		const pkg = scriptedPackage(dir.path, "observer", { tools: ["echo"], hooks, logEvents: true });
		const pier = await sessionWith(dir.path, pkg);
		try {
			await pier.session.prompt('echo {"text":"hooked"}');
			const log = () => pier.extensionHost.instances[0]!.channel.diagnostics();
			for (let i = 0; i < 100 && !log().includes("event=agent_settled"); i++)
				await new Promise((r) => setTimeout(r, 20));
			for (const hook of hooks) assert.match(log(), new RegExp(`event=${hook} `), `${hook} was not delivered`);
			assert.match(log(), /event=tool_call keys=input,toolCallId,toolName,type/);
			assert.match(log(), /event=input keys=.*text/);
			assert.match(log(), /event=agent_end keys=messages,type/);
		} finally {
			await pier.dispose();
		}
	});
});

test("renaming the session produces session_info_changed", async () => {
	using dir = tempDir();
	const pkg = scriptedPackage(dir.path, "namer", {
		tools: ["action"],
		hooks: ["session_info_changed"],
		capabilities: ["tools", "event_hooks", "session_actions"],
		logEvents: true,
	});
	const pier = await sessionWith(dir.path, pkg);
	try {
		await pier.session.prompt(`action ${JSON.stringify({ action: { kind: "set_session_name", name: "Renamed" } })}`);
		const log = () => pier.extensionHost.instances[0]!.channel.diagnostics();
		for (let i = 0; i < 100 && !log().includes("session_info_changed"); i++)
			await new Promise((r) => setTimeout(r, 20));
		assert.equal(log().match(/event=session_info_changed keys=name,type/g)?.length, 1, log());
	} finally {
		await pier.dispose();
	}
});

test("pi's reload restarts protocol extensions; a failed reload keeps the old generation", async () => {
	using dir = tempDir();
	const pkg = scriptedPackage(dir.path, "reloadable", { tools: ["echo"] });
	const manifestPath = join(pkg, "pi-extension.json");
	const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { arguments: string[] };
	const rewrite = (options: unknown) =>
		writeFileSync(manifestPath, JSON.stringify({ ...manifest, arguments: [JSON.stringify(options)] }));
	const pier = await sessionWith(dir.path, pkg);
	const tools = () => pier.session.getAllTools().map((t) => t.name);
	try {
		assert.equal(pier.extensionHost.generation, 1);
		rewrite({ tools: ["echo"], load: "fail" });
		await pier.session.reload();
		assert.equal(pier.extensionHost.generation, 1, "the failed candidate did not replace generation 1");
		await pier.session.prompt('echo {"text":"still here"}');
		assert.match((pier.session.messages.at(-1) as { content: { text: string }[] }).content[0]!.text, /echo:still here/);

		rewrite({ tools: ["updates"] });
		await pier.session.reload();
		assert.equal(pier.extensionHost.generation, 3);
		assert.ok(tools().includes("updates"));
		assert.ok(!tools().includes("echo"));
	} finally {
		await pier.dispose();
	}
});

test("a QuickJS extension receives every hook of a prompt's flow from pi's real producers", async () => {
	using dir = tempDir();
	const pkg = join(REPO_ROOT, "test", "fixtures", "quickjs", "hooks");
	const pier = await sessionWith(dir.path, pkg);
	try {
		await pier.session.prompt("seen {}");
		// agent_settled follows agent_end on a later turn of the loop; on a loaded machine that can take a while.
		for (let i = 0; i < 200; i++) {
			const seen = (await pier.extensionHost.invokeTool("seen", `poll${i}`, {})) as { content: { text: string }[] };
			if (/\bagent_settled\b/.test(seen.content[0]?.text ?? "")) break;
			await new Promise((r) => setTimeout(r, 25));
		}
		await pier.session.prompt("twice:seen {}");
		const text = (pier.session.messages.at(-1) as { content: { text: string }[] }).content[0]!.text;
		for (const hook of PROMPT_FLOW_HOOKS) {
			assert.match(text, new RegExp(`\\b${hook}\\b`), `${hook} was not delivered: ${text}`);
		}
		const user = pier.session.messages.filter((m) => m.role === "user").at(-1) as { content: { text: string }[] };
		assert.equal(user.content[0]!.text, "seen {}", "the input hook's transform was applied");
	} finally {
		await pier.dispose();
	}
});

test("session lifecycle hooks come from pi's own producers: model, thinking, compaction, tree, fork, switch, shutdown", async () => {
	using dir = tempDir();
	// A second, reasoning-capable model (never contacted) so model and thinking changes are real changes.
	writeFileSync(
		join(dir.path, "models.json"),
		JSON.stringify({
			providers: {
				local: {
					baseUrl: "http://127.0.0.1:9/v1",
					api: "openai-completions",
					apiKey: "k",
					models: [{ id: "r1", reasoning: true }],
				},
			},
		}),
	);
	// pi 1.6 keeps the recent turns whole: with a one-token budget, one earlier turn is enough to compact.
	writeFileSync(join(dir.path, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
	const hooks = [
		"resources_discover",
		"model_select",
		"thinking_level_select",
		"session_before_compact",
		"session_compact",
		"session_before_tree",
		"session_tree",
		"session_before_fork",
		"session_before_switch",
		"session_shutdown",
	];
	const pkg = scriptedPackage(dir.path, "lifecycle", { tools: ["echo"], hooks, logEvents: true });
	const pier = await sessionWith(dir.path, pkg, { model: "pier/demo" });
	const runtime = pier.runtime.services.modelRuntime;
	await pier.session.prompt('echo {"text":"x"}');
	await pier.session.prompt("and again");
	await pier.session.setModel(runtime.getModel("local", "r1")!);
	pier.session.setThinkingLevel("high");
	await pier.session.setModel(runtime.getModel("pier", "demo")!);
	await pier.session.compact();
	const first = pier.session.sessionManager.getEntries()[0]!.id;
	await pier.session.navigateTree(first, {});
	await pier.runtime.fork(first).catch(() => {}); // the hook fires before pi validates the entry
	await pier.runtime.newSession();
	const instance = pier.extensionHost.instances[0]!;
	await pier.dispose();
	const log = instance.channel.diagnostics();
	for (const hook of hooks) assert.match(log, new RegExp(`event=${hook} `), `${hook} was not delivered:\n${log}`);
	assert.match(log, /event=model_select keys=model,previousModel,source,type/);
});

import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ExtensionError } from "../../src/extensions/host/errors.js";
import type { RuntimeHost } from "../../src/extensions/host/instance.js";
import { loadManifest } from "../../src/extensions/manifest.js";
import { quickjsSpec } from "../../src/extensions/runtimes/quickjs/launcher.js";
import { REPO_ROOT } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";

const PROBE = join(REPO_ROOT, "test", "fixtures", "quickjs", "probe");
const json = (value: unknown) => JSON.parse((value as { content: { text: string }[] }).content[0]!.text);

async function probe(runtime: RuntimeHost) {
	const { host } = testHost();
	host.setRuntimeHost(runtime);
	const report = await host.load([
		quickjsSpec(loadManifest(PROBE), { cwd: PROBE, projectTrusted: true, deadlineMs: 5_000 }),
	]);
	assert.deepEqual(report.failures, []);
	return host;
}

const answering: RuntimeHost = {
	hasUi: true,
	async ui(request, { signal }) {
		if (request.type === "select") return { type: "selected", value: request.options[1]!.value };
		if (request.type === "confirm") return { type: "cancelled" };
		await new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted"))));
		return { type: "cancelled" };
	},
	async action() {
		return null;
	},
};

describe("QuickJS guest API against the host", () => {
	test("cancellation reaches the tool's signal and settles within a second", async (t) => {
		const host = await probe(answering);
		t.after(() => host.shutdown("test end"));
		const controller = new AbortController();
		const started = Date.now();
		const call = host.invokeTool("wait", "c", {}, { signal: controller.signal });
		setTimeout(() => controller.abort(), 50);
		await assert.rejects(call, (e: unknown) => e instanceof ExtensionError && e.code === "cancelled");
		assert.ok(Date.now() - started < 1_000);
	});

	test("dialogs round-trip; a cancelled confirm is false; a UI timeout rejects", async (t) => {
		const host = await probe(answering);
		t.after(() => host.shutdown("test end"));
		assert.equal(json(await host.invokeTool("pick", "c", {})), "blue");
		assert.equal(json(await host.invokeTool("sure", "c", {})), false);
		const late = json(await host.invokeTool("ask", "c", { timeout: 100 }));
		assert.equal(late.code, "ui_request_failed");
		assert.match(late.error, /timed out after 100 ms/);
	});

	test("session actions without session_actions are rejected, naming the capability", async (t) => {
		const host = await probe(answering);
		t.after(() => host.shutdown("test end"));
		const denied = json(await host.invokeTool("act", "c", {}));
		assert.equal(denied.code, "permission_denied");
		assert.match(denied.error, /session_actions/);
	});

	test("hook answers come back; synchronous getters read the invocation snapshot", async (t) => {
		const host = await probe(answering);
		t.after(() => host.shutdown("test end"));
		const [blocked] = await host.emit("tool_call", { toolName: "rm", toolCallId: "1", input: {} });
		assert.deepEqual(blocked!.result, { ok: true, value: { block: true, reason: "no rm" } });
		const [passed] = await host.emit("tool_call", { toolName: "ls", toolCallId: "2", input: {} });
		assert.deepEqual(passed!.result, { ok: true, value: null });
		const context = {
			sessionName: "named",
			isIdle: true,
			projectTrusted: true,
			hasPendingMessages: false,
			systemPrompt: "",
			thinkingLevel: "low",
			activeTools: ["read", "getters"],
		};
		assert.deepEqual(json(await host.invokeTool("getters", "c", {}, { context })), {
			name: "named",
			thinking: "low",
			active: ["read", "getters"],
		});
	});
});

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

	test("a UI call without its capability is rejected, naming the capability", async (t) => {
		const host = await probe(answering);
		t.after(() => host.shutdown("test end"));
		const denied = json(await host.invokeTool("status", "c", {}));
		assert.equal(denied.code, "permission_denied");
		assert.match(denied.error, /UI capability "status" was not granted/);
	});

	test("session actions without session_actions fail in the guest, naming the capability (rpi's text)", async (t) => {
		const host = await probe(answering);
		t.after(() => host.shutdown("test end"));
		// rpi's QuickJS runtime checks the manifest synchronously: the call throws where it is made.
		const denied = json(await host.invokeTool("act", "c", {}));
		assert.equal(denied.code, undefined, "a plain Error, not a host failure");
		assert.match(denied.error, /session action requires the session_actions capability/);
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

	test("every UI method and session action reaches the host as a valid request and maps its answer", async (t) => {
		const seen: unknown[] = [];
		const { host } = testHost();
		host.setRuntimeHost({
			hasUi: true,
			async ui(request) {
				seen.push(request);
				switch (request.type) {
					case "select":
						return { type: "selected", value: "b" };
					case "confirm":
						return { type: "confirmed", confirmed: true };
					case "input":
						return { type: "input", value: "typed" };
					case "editor":
						return { type: "edited", value: "edited" };
					case "get_editor_text":
						return { type: "editor_text", value: "draft" };
					case "get_all_themes":
						return { type: "themes", themes: [{ name: "dark" }] };
					case "get_theme":
						return { type: "theme", theme: { name: "dark" } };
					case "set_theme":
						return { type: "theme_set", success: true };
					case "get_tools_expanded":
						return { type: "tools_expanded", expanded: true };
					default:
						return { type: "acknowledged" };
				}
			},
			async action(action) {
				seen.push(action);
				return action.kind === "set_model" ? true : null;
			},
		});
		t.after(() => host.shutdown("test end"));
		const surface = join(REPO_ROOT, "test", "fixtures", "quickjs", "surface");
		await host.load([quickjsSpec(loadManifest(surface), { cwd: surface, projectTrusted: true, deadlineMs: 5_000 })]);
		const { results, widgetError } = json(await host.invokeTool("everything", "c", {}));
		assert.equal(host.instances[0]!.phase, "active", "no request was a protocol violation");
		assert.deepEqual(results.slice(0, 4), ["b", true, "typed", "edited"]);
		assert.equal(results[9], "draft");
		assert.deepEqual(results[10], [{ name: "dark" }]);
		assert.deepEqual(results[12], { success: true });
		assert.equal(results[13], true);
		assert.equal(results[20], true);
		assert.match(widgetError, /string\[\] widgets/);
		const types = seen.map((r) => (r as { type?: string; kind?: string }).type ?? (r as { kind: string }).kind);
		assert.deepEqual(types, [
			"select",
			"confirm",
			"input",
			"editor",
			"notify",
			"status",
			"widget",
			"title",
			"set_editor_text",
			"get_editor_text",
			"get_all_themes",
			"get_theme",
			"set_theme",
			"get_tools_expanded",
			"send_message",
			"send_user_message",
			"append_entry",
			"set_session_name",
			"set_label",
			"set_active_tools",
			"set_model",
			"set_thinking_level",
			"abort",
			"compact",
			"wait_for_idle",
			"get_system_prompt",
			"get_thinking_level",
			"get_session_branch",
			"new_session",
			"fork",
			"navigate_tree",
			"switch_session",
		]);
		assert.deepEqual(seen.slice(-4), [
			{ kind: "new_session", parentSession: "/p.jsonl" },
			{ kind: "fork", entryId: "e1", position: "at" },
			{ kind: "navigate_tree", targetId: "e2", summarize: true, label: "l" },
			{ kind: "switch_session", sessionPath: "/s.jsonl" },
		]);
		assert.deepEqual(seen[6], { type: "widget", key: "w", lines: ["l1"], placement: "below_editor" });
		assert.deepEqual(seen[14], {
			kind: "send_message",
			message: { customType: "c", content: "hi", display: true },
			delivery: "nextTurn",
			triggerTurn: false,
		});
	});
});

/**
 * Native runtime actions 0–22 (native-abi.md §3): every id's payload, result shape and code, each rule with a
 * case that breaks it, against a recording fake of the plugin host's bridge to pier.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RuntimeRequest } from "../../src/extensions/protocol/frames.js";
import {
	createNativeUiState,
	detachNativeUi,
	RUNTIME_ACTION,
	runtimeAction,
} from "../../src/extensions/runtimes/native/actions.js";
import { actionOf, type FakeHost, fakeHost, settle, uiOf } from "./bridge-fake-host.js";

const call = (host: FakeHost | undefined, id: number, args: unknown = {}, state = createNativeUiState()) => {
	const answer = runtimeAction(id, typeof args === "string" ? args : JSON.stringify(args), host, state);
	return { code: answer.code, value: JSON.parse(answer.out) as unknown };
};
const ok = (host: FakeHost, id: number, args: unknown = {}, state = createNativeUiState()) => {
	const { code, value } = call(host, id, args, state);
	assert.equal(code, 0, JSON.stringify(value));
	return value;
};
const refused = (host: FakeHost, id: number, args: unknown, message: string | RegExp) => {
	const { code, value } = call(host, id, args);
	assert.equal(code, 1, JSON.stringify(value));
	const error = (value as { error: string }).error;
	if (typeof message === "string") assert.equal(error, message);
	else assert.match(error, message);
};
const lastAction = (host: FakeHost) => actionOf(host.sync.at(-1)!);

describe("runtime action codes", () => {
	test("no bridge is -1 with nothing dispatched", () => {
		const answer = runtimeAction(RUNTIME_ACTION.GetActiveTools, "{}", undefined, createNativeUiState());
		assert.equal(answer.code, -1);
		assert.match(JSON.parse(answer.out).error, /no session bridge/);
	});

	test("23, 24, 25 and any other unknown id are code 2 with the documented text, nothing dispatched", () => {
		const host = fakeHost();
		for (const id of [23, 24, 25, 26, 1000, -1, 1.5]) {
			const { code, value } = call(host, id);
			assert.equal(code, 2);
			assert.deepEqual(value, { error: `unknown runtime action id ${id}` });
		}
		assert.equal(host.sync.length + host.async.length, 0);
	});

	test("0–22 are all known", () => {
		assert.deepEqual(
			Object.values(RUNTIME_ACTION).sort((a, b) => a - b),
			Array.from({ length: 23 }, (_, i) => i),
		);
	});

	test("empty or invalid JSON arguments count as {}", () => {
		const host = fakeHost();
		host.answer = () => ["read"];
		for (const args of ["", "   ", "{not json", "[1,2]", "42"]) {
			assert.deepEqual(ok(host, RUNTIME_ACTION.GetActiveTools, args), { tools: ["read"] });
		}
		refused(host, RUNTIME_ACTION.SetSessionName, "{not json", "set_session_name requires a string `name`");
	});

	test("a failure in pier is code 1 with its message", () => {
		const host = fakeHost();
		host.answer = () => {
			throw new Error("action_failed: the session has not started yet");
		};
		refused(host, RUNTIME_ACTION.GetSystemPrompt, {}, "action_failed: the session has not started yet");
	});
});

describe("SendMessage (0) and SendUserMessage (1)", () => {
	test("pi's shape, steer by default", () => {
		const host = fakeHost();
		assert.deepEqual(
			ok(host, RUNTIME_ACTION.SendMessage, { customType: "note", content: "hi", display: false, details: { n: 1 } }),
			{ ok: true },
		);
		assert.deepEqual(lastAction(host), {
			kind: "send_message",
			message: { customType: "note", content: "hi", display: false, details: { n: 1 } },
			delivery: "steer",
		});
	});

	test("an AgentMessage with rpi's data holder, deliverAs under options, triggerTurn", () => {
		const host = fakeHost();
		const message = {
			kind: "custom",
			role: "custom",
			content: [{ type: "text", text: "goal" }],
			data: { customType: "goal", display: true, details: { step: 2 } },
			timestamp: 1,
		};
		ok(host, RUNTIME_ACTION.SendMessage, { message, options: { deliverAs: "followUp", triggerTurn: true } });
		assert.deepEqual(lastAction(host), {
			kind: "send_message",
			message: { customType: "goal", content: [{ type: "text", text: "goal" }], display: true, details: { step: 2 } },
			delivery: "followUp",
			triggerTurn: true,
		});
	});

	test("text, flat snake_case delivery", () => {
		const host = fakeHost();
		ok(host, RUNTIME_ACTION.SendMessage, '"just text"');
		assert.deepEqual(lastAction(host), {
			kind: "send_message",
			message: { customType: "native", content: "just text", display: true },
			delivery: "steer",
		});
		ok(host, RUNTIME_ACTION.SendMessage, { text: "t", deliver_as: "next_turn" });
		assert.equal((lastAction(host) as { delivery: string }).delivery, "nextTurn");
	});

	test("a user AgentMessage becomes a user message; nextTurn is refused for it", () => {
		const host = fakeHost();
		ok(host, RUNTIME_ACTION.SendMessage, { role: "user", content: "do it" });
		assert.deepEqual(lastAction(host), { kind: "send_user_message", content: "do it", delivery: "steer" });
		refused(
			host,
			RUNTIME_ACTION.SendMessage,
			{ role: "user", content: "x", deliverAs: "nextTurn" },
			"send_message: a user message cannot be delivered as nextTurn",
		);
	});

	test("bad delivery, customType, content and triggerTurn are refused", () => {
		const host = fakeHost();
		refused(
			host,
			RUNTIME_ACTION.SendMessage,
			{ customType: "a", content: "b", deliverAs: "later" },
			/deliverAs` must be steer/,
		);
		refused(host, RUNTIME_ACTION.SendMessage, { content: "b" }, "send_message requires a string `customType`");
		refused(host, RUNTIME_ACTION.SendMessage, { customType: "a" }, "send_message requires `content` (or `text`)");
		refused(
			host,
			RUNTIME_ACTION.SendMessage,
			{ customType: "a", content: 5 },
			/`content` must be a string or an array/,
		);
		refused(
			host,
			RUNTIME_ACTION.SendMessage,
			{ customType: "a", content: "b", triggerTurn: "yes" },
			/triggerTurn` must be a boolean/,
		);
		refused(
			host,
			RUNTIME_ACTION.SendMessage,
			{ customType: "a", content: "b", display: "no" },
			/display` must be a boolean/,
		);
		assert.equal(host.sync.length, 0);
	});

	test("SendUserMessage: text or content; nextTurn and nothing are refused", () => {
		const host = fakeHost();
		assert.deepEqual(ok(host, RUNTIME_ACTION.SendUserMessage, { text: "plan it" }), { ok: true });
		assert.deepEqual(lastAction(host), { kind: "send_user_message", content: "plan it", delivery: "steer" });
		ok(host, RUNTIME_ACTION.SendUserMessage, { content: [{ type: "text", text: "x" }], deliverAs: "followUp" });
		assert.equal((lastAction(host) as { delivery: string }).delivery, "followUp");
		refused(
			host,
			RUNTIME_ACTION.SendUserMessage,
			{ text: "x", deliverAs: "nextTurn" },
			"send_user_message cannot be delivered as nextTurn",
		);
		refused(host, RUNTIME_ACTION.SendUserMessage, {}, "send_user_message requires `text` or `content`");
	});
});

describe("entries, names, tools, models, thinking, compaction, prompt", () => {
	test("AppendEntry {customType, data} answers the entry id", () => {
		const host = fakeHost();
		host.answer = () => "entry-7";
		assert.deepEqual(ok(host, RUNTIME_ACTION.AppendEntry, { customType: "todo", data: { items: [] } }), {
			ok: true,
			entryId: "entry-7",
		});
		assert.deepEqual(lastAction(host), { kind: "append_entry", customType: "todo", data: { items: [] } });
		refused(
			host,
			RUNTIME_ACTION.AppendEntry,
			{ data: 1 },
			"append_entry requires a string `customType` (or a `message`)",
		);
	});

	test("AppendEntry {message}: added now when idle, queued after the turn while it runs", () => {
		const host = fakeHost();
		const message = { customType: "ctx", content: "remember" };
		host.current = { isIdle: true } as never;
		assert.deepEqual(ok(host, RUNTIME_ACTION.AppendEntry, { message }), { ok: true, queued: false });
		assert.equal((lastAction(host) as { delivery: string }).delivery, "steer");
		host.current = { isIdle: false } as never;
		assert.deepEqual(ok(host, RUNTIME_ACTION.AppendEntry, { message }), { ok: true, queued: true });
		assert.equal((lastAction(host) as { delivery: string }).delivery, "followUp");
	});

	test("SetSessionName", () => {
		const host = fakeHost();
		assert.deepEqual(ok(host, RUNTIME_ACTION.SetSessionName, { name: "refactor" }), { ok: true });
		assert.deepEqual(lastAction(host), { kind: "set_session_name", name: "refactor" });
		refused(host, RUNTIME_ACTION.SetSessionName, { name: 3 }, "set_session_name requires a string `name`");
	});

	test("GetActiveTools / SetActiveTools use {tools}", () => {
		const host = fakeHost();
		host.answer = () => ["read", "bash"];
		assert.deepEqual(ok(host, RUNTIME_ACTION.GetActiveTools), { tools: ["read", "bash"] });
		assert.deepEqual(lastAction(host), { kind: "get_active_tools" });
		host.answer = () => null;
		assert.deepEqual(ok(host, RUNTIME_ACTION.SetActiveTools, { tools: ["read"] }), { ok: true });
		assert.deepEqual(lastAction(host), { kind: "set_active_tools", toolNames: ["read"] });
		refused(host, RUNTIME_ACTION.SetActiveTools, { tools: ["read", 1] }, /requires `tools`, an array of tool names/);
		refused(host, RUNTIME_ACTION.SetActiveTools, {}, /requires `tools`/);
	});

	test("SetModel takes {provider,id}, {model:'p/id'}, {model:{…}} or 'p/id'", () => {
		const host = fakeHost();
		host.answer = () => true;
		for (const args of [{ provider: "p", id: "m" }, { model: "p/m" }, { model: { provider: "p", id: "m" } }, '"p/m"']) {
			assert.deepEqual(ok(host, RUNTIME_ACTION.SetModel, args), { ok: true });
			assert.deepEqual(lastAction(host), { kind: "set_model", model: { provider: "p", id: "m" } });
		}
		host.answer = () => false;
		assert.deepEqual(ok(host, RUNTIME_ACTION.SetModel, { model: "p/m" }), { ok: false });
		refused(host, RUNTIME_ACTION.SetModel, { model: "no-slash" }, /set_model requires `provider` and `id`/);
		refused(host, RUNTIME_ACTION.SetModel, { provider: "p" }, /set_model requires/);
	});

	test("Get/SetThinkingLevel", () => {
		const host = fakeHost();
		host.answer = () => "high";
		assert.deepEqual(ok(host, RUNTIME_ACTION.GetThinkingLevel), { level: "high" });
		assert.deepEqual(lastAction(host), { kind: "get_thinking_level" });
		assert.deepEqual(ok(host, RUNTIME_ACTION.SetThinkingLevel, { level: "low" }), { ok: true });
		assert.deepEqual(lastAction(host), { kind: "set_thinking_level", level: "low" });
		refused(host, RUNTIME_ACTION.SetThinkingLevel, { level: "extreme" }, /`level` must be one of off, minimal/);
	});

	test("Compact, GetSystemPrompt, GetSessionBranch", () => {
		const host = fakeHost();
		assert.deepEqual(ok(host, RUNTIME_ACTION.Compact, { customInstructions: "keep todos" }), { ok: true });
		assert.deepEqual(lastAction(host), { kind: "compact", customInstructions: "keep todos" });
		ok(host, RUNTIME_ACTION.Compact);
		assert.deepEqual(lastAction(host), { kind: "compact" });
		refused(host, RUNTIME_ACTION.Compact, { customInstructions: 1 }, "compact `customInstructions` must be a string");
		host.answer = () => "You are pier.";
		assert.deepEqual(ok(host, RUNTIME_ACTION.GetSystemPrompt), { prompt: "You are pier." });
		assert.deepEqual(lastAction(host), { kind: "get_system_prompt" });
		const entries = [{ type: "custom", customType: "plan", data: { on: true }, id: "e1" }];
		host.answer = () => entries;
		assert.deepEqual(ok(host, RUNTIME_ACTION.GetSessionBranch), { entries });
		assert.deepEqual(lastAction(host), { kind: "get_session_branch" });
	});
});

describe("session replacement (11–14) and Reload (15)", () => {
	test("NewSession, Fork, NavigateTree, SwitchSession answer {cancelled}", () => {
		const host = fakeHost();
		host.answer = () => ({ cancelled: true });
		assert.deepEqual(ok(host, RUNTIME_ACTION.NewSession, { parentSession: "/s.jsonl" }), { cancelled: true });
		assert.deepEqual(lastAction(host), { kind: "new_session", parentSession: "/s.jsonl" });
		host.answer = () => ({ cancelled: false });
		assert.deepEqual(ok(host, RUNTIME_ACTION.Fork, { entryId: "e1", position: "at" }), { cancelled: false });
		assert.deepEqual(lastAction(host), { kind: "fork", entryId: "e1", position: "at" });
		ok(host, RUNTIME_ACTION.NavigateTree, { targetId: "e2", summarize: true, label: "here" });
		assert.deepEqual(lastAction(host), { kind: "navigate_tree", targetId: "e2", summarize: true, label: "here" });
		ok(host, RUNTIME_ACTION.SwitchSession, { sessionPath: "/other.jsonl" });
		assert.deepEqual(lastAction(host), { kind: "switch_session", sessionPath: "/other.jsonl" });
	});

	test("their arguments are checked, and pier's refusal outside a command is code 1", () => {
		const host = fakeHost();
		refused(host, RUNTIME_ACTION.Fork, {}, "fork requires a string `entryId`");
		refused(host, RUNTIME_ACTION.Fork, { entryId: "e", position: "after" }, 'fork `position` must be "before" or "at"');
		refused(host, RUNTIME_ACTION.NavigateTree, {}, "navigate_tree requires a string `targetId`");
		refused(
			host,
			RUNTIME_ACTION.NavigateTree,
			{ targetId: "e", summarize: "yes" },
			"navigate_tree `summarize` must be a boolean",
		);
		refused(host, RUNTIME_ACTION.SwitchSession, {}, "switch_session requires a string `sessionPath`");
		refused(host, RUNTIME_ACTION.NewSession, { parentSession: 1 }, "new_session `parentSession` must be a string");
		assert.equal(host.sync.length, 0);
		host.answer = () => {
			throw new Error("action_failed: new_session is available only while a command runs");
		};
		refused(host, RUNTIME_ACTION.NewSession, {}, /available only while a command runs/);
	});

	test("Reload answers null at once and reloads asynchronously; headless runs refuse it", () => {
		const host = fakeHost("tui");
		assert.equal(ok(host, RUNTIME_ACTION.Reload), null);
		assert.equal(host.sync.length, 0);
		assert.deepEqual(actionOf(host.async[0]!.request), { kind: "reload" });
		refused(fakeHost("print"), RUNTIME_ACTION.Reload, {}, /reload needs an interactive session .* print mode/);
	});
});

describe("GetCliFlag (16)", () => {
	test("{name} → {value}, null when unset; a name is required", () => {
		const host = fakeHost();
		host.flags = { plan: true, profile: "fast" };
		assert.deepEqual(ok(host, RUNTIME_ACTION.GetCliFlag, { name: "plan" }), { value: true });
		assert.deepEqual(ok(host, RUNTIME_ACTION.GetCliFlag, { name: "profile" }), { value: "fast" });
		assert.deepEqual(ok(host, RUNTIME_ACTION.GetCliFlag, { name: "absent" }), { value: null });
		refused(host, RUNTIME_ACTION.GetCliFlag, {}, "get_cli_flag requires a string `name`");
	});

	test("without a flag lookup: the documented host error", () => {
		const host = fakeHost();
		(host as { flag?: unknown }).flag = undefined;
		refused(host, RUNTIME_ACTION.GetCliFlag, { name: "x" }, "CLI flag lookup is not configured");
	});
});

describe("SetStatus (18)", () => {
	test("trimmed key, changed tracked, empty value clears", async () => {
		const host = fakeHost();
		const state = createNativeUiState();
		assert.deepEqual(ok(host, RUNTIME_ACTION.SetStatus, { key: " tps ", value: "252" }, state), {
			ok: true,
			changed: true,
		});
		assert.deepEqual(ok(host, RUNTIME_ACTION.SetStatus, { key: "tps", value: "252" }, state), {
			ok: true,
			changed: false,
		});
		assert.deepEqual(ok(host, RUNTIME_ACTION.SetStatus, { key: "tps", value: "" }, state), { ok: true, changed: true });
		assert.deepEqual(ok(host, RUNTIME_ACTION.SetStatus, { key: "tps" }, state), { ok: true, changed: false });
		assert.deepEqual(
			host.async.map((c) => uiOf(c.request)),
			[
				{ type: "status", key: "tps", text: "252" },
				{ type: "status", key: "tps" },
			],
		);
		assert.equal(host.sync.length, 0, "statuses never block the plugin");
	});

	test("key missing, blank or not a string; the removed panel payload; a non-string value", () => {
		const host = fakeHost();
		for (const args of [{}, { key: "   " }, { key: 3, value: "x" }]) {
			refused(host, RUNTIME_ACTION.SetStatus, args, "set_status requires a string `key`");
		}
		refused(host, RUNTIME_ACTION.SetStatus, { key: "k", panel: { lines: [] } }, /no longer accepts `panel`/);
		refused(host, RUNTIME_ACTION.SetStatus, { key: "k", value: 5 }, "set_status `value` must be a string");
		assert.equal(host.async.length, 0);
	});
});

describe("SetEditorText (19)", () => {
	test("replace and append through pier's editor; chars counts the result", () => {
		const host = fakeHost();
		assert.deepEqual(ok(host, RUNTIME_ACTION.SetEditorText, { text: "héllo" }), { ok: true, chars: 5 });
		assert.deepEqual(uiOf(host.sync.at(-1)!), { type: "set_editor_text", text: "héllo" });
		host.answer = (r) =>
			uiOf(r)?.type === "get_editor_text" ? { type: "editor_text", value: "ab" } : { type: "acknowledged" };
		assert.deepEqual(ok(host, RUNTIME_ACTION.SetEditorText, { text: "cd", mode: "append" }), { ok: true, chars: 4 });
		assert.deepEqual(host.sync.slice(-2).map(uiOf), [
			{ type: "get_editor_text" },
			{ type: "set_editor_text", text: "abcd" },
		]);
	});

	test("headless runs accept silently", () => {
		const host = fakeHost("json");
		assert.deepEqual(ok(host, RUNTIME_ACTION.SetEditorText, { text: "x", mode: "append" }), { ok: true, chars: 1 });
		assert.equal(host.sync.length + host.async.length, 0);
	});

	test("autoSendMs sends the editor's text as a user message after the delay", async () => {
		const host = fakeHost();
		host.autoAnswer = (r) => (uiOf(r)?.type === "get_editor_text" ? { type: "editor_text", value: "go" } : null);
		ok(host, RUNTIME_ACTION.SetEditorText, { text: "go", autoSendMs: 5 });
		await new Promise((resolve) => setTimeout(resolve, 30));
		await settle();
		const sent = host.async.map((c) => c.request);
		assert.deepEqual(actionOf(sent.at(-1)!), { kind: "send_user_message", content: "go", delivery: "followUp" });
		assert.deepEqual(uiOf(sent.at(-2)!), { type: "set_editor_text", text: "" });
	});

	test("text, mode and autoSendMs are checked", () => {
		const host = fakeHost();
		refused(host, RUNTIME_ACTION.SetEditorText, {}, "set_editor_text requires a string `text`");
		refused(
			host,
			RUNTIME_ACTION.SetEditorText,
			{ text: "x", mode: "prepend" },
			'set_editor_text `mode` must be "replace" or "append"',
		);
		refused(
			host,
			RUNTIME_ACTION.SetEditorText,
			{ text: "x", autoSendMs: -1 },
			/autoSendMs` must be a non-negative integer/,
		);
	});
});

describe("StdioLifecycle (21)", () => {
	test("status reports support; only the owner finishes; the first finish is retained", () => {
		const owner = fakeHost("print", true);
		const state = createNativeUiState();
		assert.deepEqual(ok(owner, RUNTIME_ACTION.StdioLifecycle, { op: "status" }, state), {
			supported: true,
			owner: true,
			finished: false,
		});
		assert.deepEqual(ok(owner, RUNTIME_ACTION.StdioLifecycle, { op: "finish", exitCode: 4 }, state), {
			ok: true,
			exitCode: 4,
		});
		assert.deepEqual(ok(owner, RUNTIME_ACTION.StdioLifecycle, { op: "finish", exitCode: 0 }, state), {
			ok: true,
			exitCode: 4,
		});
		assert.deepEqual(owner.finished, [4]);
		assert.deepEqual(ok(owner, RUNTIME_ACTION.StdioLifecycle, {}, state), {
			supported: true,
			owner: true,
			finished: true,
			exitCode: 4,
		});
	});

	test("a non-owner, a bad exit code and an unknown op are refused", () => {
		const other = fakeHost("print", false);
		refused(
			other,
			RUNTIME_ACTION.StdioLifecycle,
			{ op: "finish" },
			/only the plugin that declared "ownsStdio" may finish/,
		);
		assert.deepEqual(other.finished, []);
		const owner = fakeHost("print", true);
		refused(
			owner,
			RUNTIME_ACTION.StdioLifecycle,
			{ op: "finish", exitCode: 256 },
			/exitCode` must be an integer 0–255/,
		);
		refused(owner, RUNTIME_ACTION.StdioLifecycle, { op: "restart" }, /unknown stdio lifecycle operation "restart"/);
		assert.deepEqual(owner.finished, []);
	});
});

describe("detach", () => {
	test("clears the plugin's statuses and components and cancels its dialogs", async () => {
		const host = fakeHost();
		const state = createNativeUiState();
		ok(host, RUNTIME_ACTION.SetStatus, { key: "k", value: "v" }, state);
		ok(host, RUNTIME_ACTION.UiComponent, { op: "register", id: "c" }, state);
		ok(host, RUNTIME_ACTION.UiDialog, { requestId: "q", ui: { kind: "input", question: "?" } }, state);
		const before = host.async.length;
		detachNativeUi(state, host);
		const cleared = host.async.slice(before).map((c) => uiOf(c.request));
		assert.deepEqual(cleared, [
			{ type: "widget", key: "native:c", placement: "below_editor" },
			{ type: "status", key: "k" },
		]);
		const dialog = host.async.find((c: { request: RuntimeRequest }) => uiOf(c.request)?.type === "input")!;
		assert.equal(dialog.signal?.aborted, true);
		assert.deepEqual(ok(host, RUNTIME_ACTION.UiDialog, { op: "poll", requestId: "q" }, state), {
			status: "cancelled",
			requestId: "q",
		});
	});
});

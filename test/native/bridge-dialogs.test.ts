/**
 * UiDialog (17): the open/poll/cancel/response state machine of native-abi.md §3.3 and the seed's dialog
 * purpose rules, each with the case that breaks it, through runtimeAction and a recording fake host.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type NativeUiState, RUNTIME_ACTION } from "../../src/extensions/runtimes/native/actions.js";
import { MAX_OPEN_DIALOGS, permissionOptions, validateDialog } from "../../src/extensions/runtimes/native/dialogs.js";
import { actionRunner, type FakeHost, fakeHost, settle, uiOf } from "./bridge-fake-host.js";

const dialog = (host: FakeHost, state?: NativeUiState) => actionRunner(RUNTIME_ACTION.UiDialog, host, state);

const selector = {
	kind: "selector",
	question: "Which?",
	options: [{ title: "A" }, { title: "B", description: "bee" }],
};
const permission = {
	purpose: "permission",
	kind: "confirm",
	question: "Allow this tool?",
	options: [
		{ title: "Allow once", permission: "allow_once" },
		{ title: "Reject", permission: "reject_once" },
	],
};

describe("UiDialog protocol", () => {
	test("open shows the dialog through pier and answers pending; poll reports the answer once", async () => {
		const host = fakeHost();
		const d = dialog(host);
		assert.deepEqual(d.ok({ op: "open", requestId: "q1", toolCallId: "call-1", ui: { ...selector, timeout: 5000 } }), {
			status: "pending",
			requestId: "q1",
			toolCallId: "call-1",
		});
		assert.equal(host.async.length, 1);
		assert.deepEqual(host.async[0]!.request, {
			kind: "ui",
			ui: {
				request: {
					type: "select",
					title: "Which?",
					options: [
						{ value: "A", label: "A" },
						{ value: "B", label: "B", description: "bee" },
					],
				},
				timeoutMs: 5000,
			},
		});
		assert.equal(d.ok({ op: "poll", requestId: "q1" }).status, "pending");
		host.async[0]!.resolve({ type: "selected", value: "B" });
		await settle();
		assert.deepEqual(d.ok({ op: "poll", requestId: "q1" }), {
			status: "answered",
			requestId: "q1",
			toolCallId: "call-1",
			answer: { values: ["B"], value: "B" },
		});
		assert.equal(d.error({ op: "poll", requestId: "q1" }), "unknown UI request `q1`", "consumed by that poll");
	});

	test("op defaults to open, request_id is an alias, and ui defaults to the whole envelope", () => {
		const host = fakeHost();
		const d = dialog(host);
		assert.equal(d.ok({ request_id: "q2", kind: "input", question: "Name?" }).status, "pending");
		assert.deepEqual(uiOf(host.async[0]!.request), { type: "input", title: "Name?" });
	});

	test("re-opening a known id returns its current state without showing it again or consuming it", async () => {
		const host = fakeHost();
		const d = dialog(host);
		d.ok({ requestId: "q", ui: selector });
		host.async[0]!.resolve({ type: "selected", value: "A" });
		await settle();
		assert.equal(d.ok({ requestId: "q", ui: selector }).status, "answered");
		assert.equal(d.ok({ requestId: "q", ui: selector }).status, "answered");
		assert.equal(host.async.length, 1);
		assert.equal(d.ok({ op: "poll", requestId: "q" }).status, "answered");
	});

	test("cancel closes the shown dialog; the next poll reports cancelled once", () => {
		const host = fakeHost();
		const d = dialog(host);
		d.ok({ requestId: "q", ui: selector });
		assert.deepEqual(d.ok({ op: "cancel", requestId: "q" }), { status: "cancelled", requestId: "q" });
		assert.equal(host.async[0]!.signal?.aborted, true);
		assert.deepEqual(d.ok({ op: "poll", requestId: "q" }), { status: "cancelled", requestId: "q" });
		assert.equal(d.error({ op: "cancel", requestId: "q" }), "unknown UI request `q`");
	});

	test("response/respond answer from elsewhere; a cancelled request refuses them", async () => {
		const host = fakeHost();
		const d = dialog(host);
		d.ok({ requestId: "a", ui: selector });
		assert.deepEqual(d.ok({ op: "response", requestId: "a", answer: { values: ["A"] } }), {
			status: "answered",
			requestId: "a",
		});
		assert.equal(host.async[0]!.signal?.aborted, true, "the dialog on screen goes");
		host.async[0]!.resolve({ type: "selected", value: "B" }); // too late: the first answer stands
		await settle();
		assert.deepEqual(d.ok({ op: "poll", requestId: "a" }).answer, { values: ["A"] });
		d.ok({ requestId: "b", ui: selector });
		d.ok({ op: "respond", requestId: "b", value: "typed" });
		assert.equal(d.ok({ op: "poll", requestId: "b" }).answer, "typed");
		d.ok({ requestId: "c", ui: selector });
		d.ok({ op: "cancel", requestId: "c" });
		assert.equal(d.error({ op: "respond", requestId: "c", value: 1 }), "UI request `c` was cancelled");
		assert.equal(d.error({ op: "response", requestId: "nope", value: 1 }), "unknown UI request `nope`");
	});

	test("a dismissed dialog or a failed UI request ends cancelled (with pier's reason)", async () => {
		const host = fakeHost();
		const d = dialog(host);
		d.ok({ requestId: "x", ui: selector });
		d.ok({ requestId: "y", ui: selector });
		host.async[0]!.resolve({ type: "cancelled" });
		host.async[1]!.reject(new Error("ui_request_failed: UI request timed out after 5 ms"));
		await settle();
		assert.deepEqual(d.ok({ op: "poll", requestId: "x" }), { status: "cancelled", requestId: "x" });
		assert.deepEqual(d.ok({ op: "poll", requestId: "y" }), {
			status: "cancelled",
			requestId: "y",
			reason: "ui_request_failed: UI request timed out after 5 ms",
		});
	});

	test("the documented errors: no UI, missing requestId, unknown operation", () => {
		for (const mode of ["print", "json"] as const) {
			assert.equal(
				dialog(fakeHost(mode)).error({ requestId: "q", ui: selector }),
				"ask_user requires an interactive UI",
			);
		}
		const d = dialog(fakeHost("rpc"));
		for (const args of [{ ui: selector }, { requestId: "", ui: selector }, { requestId: "  " }, { requestId: 7 }]) {
			assert.equal(d.error(args), "missing non-empty `requestId`");
		}
		assert.equal(d.error({ op: "bogus", requestId: "q" }), "unknown UI dialog operation `bogus`");
		assert.equal(d.error({ op: "poll", requestId: "q" }), "unknown UI request `q`");
	});

	test("a requestId of 128 bytes is accepted, 129 refused", () => {
		const d = dialog(fakeHost());
		assert.equal(d.ok({ requestId: "é".repeat(64), ui: selector }).status, "pending");
		assert.match(d.error({ requestId: `${"é".repeat(64)}x`, ui: selector }), /exceeds 128 bytes/);
	});

	test(`at most ${MAX_OPEN_DIALOGS} dialogs are open at once`, () => {
		const d = dialog(fakeHost());
		for (let i = 0; i < MAX_OPEN_DIALOGS; i++) d.ok({ requestId: `q${i}`, ui: selector });
		assert.match(d.error({ requestId: "one-more", ui: selector }), /too many open UI dialogs \(at most 64\)/);
		d.ok({ op: "cancel", requestId: "q0" });
		d.ok({ op: "poll", requestId: "q0" });
		assert.equal(d.ok({ requestId: "one-more", ui: selector }).status, "pending");
	});
});

describe("UiDialog presentations and answers", () => {
	test("a permission is a select of its decisions; the answer keeps the title and carries the decision", async () => {
		const host = fakeHost();
		const d = dialog(host);
		d.ok({ requestId: "p", toolCallId: "call-1", ui: permission });
		assert.deepEqual(uiOf(host.async[0]!.request), {
			type: "select",
			title: "Allow this tool?",
			options: [
				{ value: "Allow once", label: "Allow once" },
				{ value: "Reject", label: "Reject" },
			],
		});
		host.async[0]!.resolve({ type: "selected", value: "Reject" });
		await settle();
		assert.deepEqual(d.ok({ op: "poll", requestId: "p" }).answer, {
			values: ["Reject"],
			value: "Reject",
			permission: "reject_once",
		});
	});

	test("a confirm without options is pier's confirm", async () => {
		const host = fakeHost();
		const d = dialog(host);
		d.ok({ requestId: "c", ui: { kind: "confirm", header: "Deploy", question: "Ship it?" } });
		assert.deepEqual(uiOf(host.async[0]!.request), { type: "confirm", title: "Deploy", message: "Ship it?" });
		host.async[0]!.resolve({ type: "confirmed", confirmed: true });
		await settle();
		assert.deepEqual(d.ok({ op: "poll", requestId: "c" }).answer, { confirmed: true, values: ["Yes"] });
	});

	test("input answers text; header and context join the title", async () => {
		const host = fakeHost();
		const d = dialog(host);
		d.ok({
			requestId: "i",
			ui: { kind: "input", header: "Goal", question: "What?", context: "be brief", placeholder: "…" },
		});
		assert.deepEqual(uiOf(host.async[0]!.request), { type: "input", title: "Goal: What?\nbe brief", placeholder: "…" });
		host.async[0]!.resolve({ type: "input", value: "ship" });
		await settle();
		assert.deepEqual(d.ok({ op: "poll", requestId: "i" }).answer, { text: "ship", value: "ship" });
	});

	test("allowMultiple is a form of checkboxes; the answer lists the checked titles", async () => {
		const host = fakeHost();
		const d = dialog(host);
		d.ok({ requestId: "m", ui: { ...selector, allowMultiple: true } });
		const request = uiOf(host.async[0]!.request) as { type: string; fields: unknown[] };
		assert.equal(request.type, "form");
		assert.deepEqual(request.fields, [
			{ id: "option0", label: "A", type: "checkbox" },
			{ id: "option1", label: "B", type: "checkbox" },
		]);
		host.async[0]!.resolve({ type: "form", values: { option0: "false", option1: "true" } });
		await settle();
		assert.deepEqual(d.ok({ op: "poll", requestId: "m" }).answer, { values: ["B"] });
	});

	test("allowFreeform adds a typed answer after the options", async () => {
		const host = fakeHost();
		const d = dialog(host);
		d.ok({ requestId: "f", ui: { ...selector, allowFreeform: true } });
		const options = (uiOf(host.async[0]!.request) as { options: Array<{ value: string; label: string }> }).options;
		assert.equal(options.length, 3);
		host.async[0]!.resolve({ type: "selected", value: options[2]!.value });
		await settle();
		assert.deepEqual(uiOf(host.async[1]!.request), { type: "input", title: "Which?" });
		host.async[1]!.resolve({ type: "input", value: "C" });
		await settle();
		assert.deepEqual(d.ok({ op: "poll", requestId: "f" }).answer, { values: [], text: "C" });
	});
});

describe("UiDialog validation", () => {
	test("purpose omitted is a question; unknown purposes and kinds are refused", () => {
		assert.equal(validateDialog(selector).purpose, "question");
		assert.throws(
			() => validateDialog({ ...selector, purpose: "approval" }),
			/`ui.purpose` must be "question" or "permission"/,
		);
		assert.throws(
			() => validateDialog({ ...selector, kind: "slider" }),
			/`ui.kind` must be one of input, selector, confirm/,
		);
		assert.throws(() => validateDialog("ask"), /`ui` must be an object/);
		assert.throws(() => validateDialog({ kind: "selector", question: "?" }), /selector needs at least one option/);
	});

	test("a valid permission passes and lists its decisions", () => {
		const spec = validateDialog(permission, "call-1");
		assert.deepEqual(
			[...permissionOptions(spec)],
			[
				["Allow once", "allow_once"],
				["Reject", "reject_once"],
			],
		);
		assert.equal(validateDialog({ ...permission, kind: "selector" }, "call-1").kind, "selector");
		for (const decision of ["allow_once", "allow_always", "reject_once", "reject_always"]) {
			validateDialog({ ...permission, options: [{ title: "X", permission: decision }] }, "call-1");
		}
	});

	test("a permission needs a non-empty toolCallId (the envelope's, through the action)", () => {
		for (const id of [undefined, "", "   "]) {
			assert.throws(() => validateDialog(permission, id), /permission requires a non-empty `toolCallId`/);
		}
		const d = dialog(fakeHost());
		assert.match(d.error({ requestId: "p", ui: permission }), /requires a non-empty `toolCallId`/);
		assert.equal(d.ok({ requestId: "p", toolCallId: "call-9", ui: permission }).status, "pending");
	});

	test("a permission is a flat single-choice confirm or selector", () => {
		assert.throws(
			() => validateDialog({ ...permission, kind: "input" }, "c"),
			/must be a "confirm" or "selector", not "input"/,
		);
		assert.throws(() => validateDialog({ ...permission, allowMultiple: true }, "c"), /does not accept `allowMultiple`/);
		assert.throws(() => validateDialog({ ...permission, allowFreeform: true }, "c"), /does not accept `allowFreeform`/);
		assert.throws(
			() => validateDialog({ ...permission, questions: [selector] }, "c"),
			/does not accept nested `questions`/,
		);
		assert.throws(() => validateDialog({ ...permission, options: [] }, "c"), /needs its decisions in `ui.options`/);
	});

	test("every permission option carries a known decision", () => {
		const options = [{ title: "Allow once", permission: "allow_once" }, { title: "Maybe" }];
		assert.throws(() => validateDialog({ ...permission, options }, "c"), /`ui.options\[1\]` needs `permission`/);
		assert.throws(
			() => validateDialog({ ...permission, options: [{ title: "Y", permission: "allow_forever" }] }, "c"),
			/`ui.options\[0\].permission` must be one of allow_once, allow_always, reject_once, reject_always/,
		);
		assert.throws(
			() => validateDialog({ ...selector, options: [{ title: "Y", permission: "allow_once" }] }),
			/`permission` needs `ui.purpose: "permission"`/,
		);
	});

	test("titles are non-empty, unique and without surrounding whitespace (questions too)", () => {
		for (const ui of [permission, selector]) {
			const base = ui.options[0]!;
			assert.throws(
				() => validateDialog({ ...ui, options: [{ ...base, title: "" }] }, "c"),
				/`ui.options\[0\].title` must be a non-empty string/,
			);
			assert.throws(
				() => validateDialog({ ...ui, options: [{ ...base, title: " Allow" }] }, "c"),
				/`ui.options\[0\].title` has surrounding whitespace/,
			);
			assert.throws(
				() => validateDialog({ ...ui, options: [{ ...base, title: "Allow\n" }] }, "c"),
				/has surrounding whitespace/,
			);
			assert.throws(
				() => validateDialog({ ...ui, options: [base, { ...base }] }, "c"),
				/`ui.options\[1\].title` .* is not unique/,
			);
		}
		assert.throws(
			() => validateDialog({ ...selector, options: ["A"] }),
			/`ui.options\[0\]` must be an object with a `title`/,
		);
	});

	test("an invalid dialog is refused by open and shows nothing", () => {
		const host = fakeHost();
		const d = dialog(host);
		assert.match(d.error({ requestId: "p", toolCallId: "c", ui: { ...permission, kind: "input" } }), /not "input"/);
		assert.equal(host.async.length, 0);
		assert.equal(d.state.dialogs.size, 0);
	});

	test("field types are checked", () => {
		assert.throws(() => validateDialog({ ...selector, question: 3 }), /`ui.question` must be a string/);
		assert.throws(() => validateDialog({ ...selector, allowMultiple: "yes" }), /`ui.allowMultiple` must be a boolean/);
		assert.throws(() => validateDialog({ ...selector, timeout: 0 }), /`ui.timeout` must be a positive integer/);
		assert.throws(() => validateDialog({ ...selector, options: {} }), /`ui.options` must be an array/);
	});
});

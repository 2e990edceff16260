/**
 * pier addition: PiChamber's `ctx.ui.form` for protocol extensions. A QuickJS guest and a Node kit process
 * extension send `{type:"form"}` UI requests; a recording UI, the chamber's SessionUi (through the bridge) and a
 * plain pi UI without forms answer them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, type TestContext, test } from "node:test";
import type { ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { FORM_FIELD_TYPES as CHAMBER_FIELD_TYPES, LIMITS } from "../../src/chamber/ui/descriptors.js";
import { SessionUi } from "../../src/chamber/ui/session-ui.js";
import type { DialogRequest } from "../../src/chamber/wire.js";
import { answerUi } from "../../src/extensions/bridge/ui.js";
import type { ExtensionHost, HostOptions } from "../../src/extensions/host/host.js";
import type { ExtensionSpec, RuntimeHost } from "../../src/extensions/host/instance.js";
import { loadManifest } from "../../src/extensions/manifest.js";
import {
	FORM_FIELD_TYPES,
	MAX_FORM_FIELDS,
	ProtocolViolation,
	parseExtensionFrame,
	type UiRequest,
	type UiResponse,
} from "../../src/extensions/protocol/frames.js";
import { quickjsSpec } from "../../src/extensions/runtimes/quickjs/launcher.js";
import { REPO_ROOT } from "../helpers/pier-cli.js";
import { scriptedSpec, testHost } from "../helpers/scripted.js";

const QJS_FORM = join(REPO_ROOT, "test", "fixtures", "quickjs", "form");
const KIT_FORM = join(REPO_ROOT, "test", "fixtures", "process", "kit-form");

const qjsSpec = (uiCapabilities?: ("input" | "notify")[]) => {
	const manifest = loadManifest(QJS_FORM);
	return quickjsSpec(uiCapabilities ? { ...manifest, uiCapabilities } : manifest, {
		cwd: QJS_FORM,
		projectTrusted: true,
		deadlineMs: 5_000,
	});
};

const RUNTIMES: Array<{ name: string; spec: () => ExtensionSpec }> = [
	{ name: "QuickJS", spec: () => qjsSpec() },
	{ name: "process (Node kit)", spec: () => scriptedSpec(KIT_FORM) },
];

type FormRequest = Extract<UiRequest, { type: "form" }>;
type Report = { values?: Record<string, string>; cancelled?: true; error?: string; code?: string };

/** A session stand-in: forms go to `answer`; notifications (the fixture's report) are recorded. */
function recordingUi(answer: (request: FormRequest, signal: AbortSignal) => Promise<UiResponse>) {
	const forms: FormRequest[] = [];
	const notes: Report[] = [];
	const runtime: RuntimeHost = {
		hasUi: true,
		async ui(request, { signal }) {
			if (request.type === "notify") {
				notes.push(JSON.parse(request.message));
				return { type: "acknowledged" };
			}
			if (request.type !== "form") throw new Error(`unexpected UI request ${request.type}`);
			forms.push(request);
			return answer(request, signal);
		},
		async action() {
			throw new Error("no actions here");
		},
	};
	return { runtime, forms, notes };
}

async function start(t: TestContext, spec: ExtensionSpec, runtime: RuntimeHost, options: Partial<HostOptions> = {}) {
	// A QuickJS guest does not end itself on `shutdown`: a short grace keeps each test from waiting the default 2 s.
	const { host } = testHost({ timeouts: { shutdownMs: 250 }, ...options });
	host.setRuntimeHost(runtime);
	const report = await host.load([spec]);
	assert.deepEqual(report.failures, []);
	t.after(() => host.shutdown("test end"));
	return host;
}

const showForm = (host: ExtensionHost, title: string, fields: unknown, opts?: { timeout?: number }) =>
	host.invokeCommand("form", JSON.stringify({ title, fields, ...(opts ? { opts } : {}) })) as Promise<Report>;

async function until<T>(read: () => T | undefined, timeoutMs = 2_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = read();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`nothing arrived within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

const ORDER = [
	{ id: "name", label: "Name", required: true, placeholder: "you" },
	{ id: "size", label: "Size", type: "number", min: 1, max: 10, initial: 3 },
	{ id: "color", label: "Color", type: "select", options: ["red", "blue"] },
	{ id: "ok", label: "OK?", type: "checkbox", hint: "not a form key: left behind" },
];
/** ORDER as it travels: default type, known keys only, initial as text. */
const ORDER_ON_THE_WIRE = [
	{ id: "name", label: "Name", type: "text", required: true, placeholder: "you" },
	{ id: "size", label: "Size", type: "number", min: 1, max: 10, initial: "3" },
	{ id: "color", label: "Color", type: "select", options: ["red", "blue"] },
	{ id: "ok", label: "OK?", type: "checkbox" },
];
const ANSWER = { name: "Ada", size: "4", color: "blue", ok: "true" };

for (const runtime of RUNTIMES) {
	describe(`ctx.ui.form from a ${runtime.name} extension`, () => {
		test("the form reaches the UI in the wire's shape and its values reach the extension", async (t) => {
			const ui = recordingUi(async () => ({ type: "form", values: ANSWER }));
			const host = await start(t, runtime.spec(), ui.runtime);
			assert.deepEqual(await showForm(host, "Order", ORDER), { values: ANSWER });
			assert.deepEqual(ui.forms, [{ type: "form", title: "Order", fields: ORDER_ON_THE_WIRE }]);
			assert.deepEqual(ui.notes, [{ values: ANSWER }], "the values reached the extension");
			assert.equal(host.instances[0]!.phase, "active", "no frame was a protocol violation");
		});

		test("a cancelled form gives undefined", async (t) => {
			const ui = recordingUi(async () => ({ type: "cancelled" }));
			const host = await start(t, runtime.spec(), ui.runtime);
			assert.deepEqual(await showForm(host, "Order", ORDER), { cancelled: true });
			assert.deepEqual(ui.notes, [{ cancelled: true }]);
		});

		test("opts.timeout bounds the dialog: the UI sees the abort, the extension a ui_request_failed", async (t) => {
			let aborted = false;
			const ui = recordingUi(
				(_request, signal) =>
					new Promise((resolve) =>
						signal.addEventListener("abort", () => {
							aborted = true;
							resolve({ type: "cancelled" });
						}),
					),
			);
			const host = await start(t, runtime.spec(), ui.runtime);
			const report = await showForm(host, "Slow", ORDER, { timeout: 100 });
			assert.equal(report.code, "ui_request_failed");
			assert.match(report.error!, /timed out after 100 ms/);
			assert.ok(aborted);
		});

		test("fields of the wrong JS type fail the call, not the extension", async (t) => {
			const ui = recordingUi(async () => ({ type: "cancelled" }));
			const host = await start(t, runtime.spec(), ui.runtime);
			assert.match((await showForm(host, "T", "nope")).error!, /ctx\.ui\.form: fields must be an array/);
			assert.match((await showForm(host, "T", [{ id: 1, label: "x" }])).error!, /field 1 needs a string id/);
			assert.match((await showForm(host, "T", [{ id: "a", label: "A", type: "date" }])).error!, /unknown type "date"/);
			const many = Array.from({ length: 13 }, (_, i) => ({ id: `f${i}`, label: `F${i}` }));
			assert.match((await showForm(host, "T", many)).error!, /at most 12 fields \(got 13\)/);
			assert.deepEqual(ui.forms, [], "nothing malformed went on the wire");
			assert.equal(host.instances[0]!.phase, "active");
		});

		test("through the bridge into the chamber: a dialog with normalized fields, answered in the browser", async (t) => {
			const dialogs: DialogRequest[] = [];
			const notes: string[] = [];
			const session = new SessionUi((event, payload) => {
				if (event === "extension.dialog") dialogs.push(payload as DialogRequest);
				if (event === "extension.notify") notes.push((payload as { message: string }).message);
			});
			const host = await start(t, runtime.spec(), {
				hasUi: true,
				ui: (request, { signal }) => answerUi(session.context(), request, signal),
				action: async () => null,
			});

			const pending = showForm(host, "Order", ORDER);
			const dialog = await until(() => dialogs[0]);
			assert.equal(dialog.method, "form");
			assert.equal(dialog.title, "Order");
			assert.deepEqual(dialog.fields, ORDER_ON_THE_WIRE);
			// The chamber checks the answer against the fields before the extension sees it.
			assert.deepEqual(session.answer(dialog.requestId, { values: { ...ANSWER, size: "11" } }), {
				ok: false,
				status: 422,
				code: "invalid_answer",
				message: 'field "size" must be at most 10',
			});
			assert.deepEqual(session.answer(dialog.requestId, { values: ANSWER }), { ok: true });
			assert.deepEqual(await pending, { values: ANSWER });
			assert.deepEqual(
				notes.map((n) => JSON.parse(n)),
				[{ values: ANSWER }],
			);

			const cancelled = showForm(host, "Again", ORDER);
			const second = await until(() => dialogs[1]);
			assert.deepEqual(session.answer(second.requestId, { cancelled: true }), { ok: true });
			assert.deepEqual(await cancelled, { cancelled: true });

			// The chamber's normalization is authoritative: a well-typed but invalid form is refused with its reason.
			const refused = await showForm(host, "Bad", [{ id: "color", label: "Color", type: "select" }]);
			assert.equal(refused.code, "ui_request_failed");
			assert.match(refused.error!, /ctx\.ui\.form: field "color" is a select and needs options/);
			const duplicate = await showForm(host, "Bad", [
				{ id: "a", label: "A" },
				{ id: "a", label: "B" },
			]);
			assert.match(duplicate.error!, /duplicate field id "a"/);
			assert.equal(dialogs.length, 2, "no refused form became a dialog");
			assert.deepEqual(session.view().dialogs, []);
		});

		test("without the chamber (a plain pi UI) the form fails with a clear reason", async (t) => {
			const plain = { notify: () => {} } as unknown as ExtensionUIContext;
			const host = await start(t, runtime.spec(), {
				hasUi: true,
				ui: (request, { signal }) => answerUi(plain, request, signal),
				action: async () => null,
			});
			const report = await showForm(host, "Order", ORDER);
			assert.equal(report.code, "ui_request_failed");
			assert.match(report.error!, /needs the chamber/);
		});
	});
}

describe("form: capability, mode and wire checks", () => {
	test("a form without the input UI capability is refused, naming the capability", async (t) => {
		const ui = recordingUi(async () => ({ type: "form", values: {} }));
		const host = await start(t, qjsSpec(["notify"]), ui.runtime);
		const report = await showForm(host, "Order", ORDER);
		assert.equal(report.code, "permission_denied");
		assert.match(report.error!, /UI capability "input" was not granted/);
		assert.deepEqual(ui.forms, []);
	});

	test("a form is interactive: unavailable in print mode", async (t) => {
		const ui = recordingUi(async () => ({ type: "form", values: {} }));
		const host = await start(t, qjsSpec(), { ...ui.runtime, hasUi: false }, { mode: "print" });
		const report = await showForm(host, "Order", ORDER);
		assert.equal(report.code, "ui_unavailable");
		assert.match(report.error!, /interactive UI \("form"\) is unavailable in print mode/);
	});

	test("the bridge against a UI context without form rejects, saying forms need the chamber", async () => {
		const plain = { notify: () => {} } as unknown as ExtensionUIContext;
		const request: UiRequest = { type: "form", title: "T", fields: [{ id: "a", label: "A", type: "text" }] };
		await assert.rejects(answerUi(plain, request, new AbortController().signal), {
			message: /^form: ctx\.ui\.form needs the chamber/,
		});
	});

	test("the frame schema: closed fields, at most the chamber's field limit", () => {
		assert.equal(MAX_FORM_FIELDS, LIMITS.formFields);
		assert.deepEqual([...FORM_FIELD_TYPES], [...CHAMBER_FIELD_TYPES]);
		const frame = (fields: unknown[]) => ({
			type: "request",
			id: "f-1",
			request: { kind: "ui", ui: { request: { type: "form", title: "T", fields }, timeoutMs: 1000 } },
		});
		const field = (i: number) => ({ id: `f${i}`, label: `F${i}`, type: "text" });
		const full = Array.from({ length: MAX_FORM_FIELDS }, (_, i) => field(i));
		assert.doesNotThrow(() => parseExtensionFrame(frame(full)));
		assert.doesNotThrow(() =>
			parseExtensionFrame(
				frame([
					{
						id: "n",
						label: "N",
						type: "number",
						required: true,
						placeholder: "p",
						initial: "1",
						min: 0,
						max: 2,
					},
					{ id: "s", label: "S", type: "select", options: ["a", "b"] },
				]),
			),
		);
		assert.throws(() => parseExtensionFrame(frame([...full, field(99)])), ProtocolViolation);
		assert.throws(
			() => parseExtensionFrame(frame([{ ...field(0), hint: "x" }])),
			(e: unknown) => e instanceof ProtocolViolation && /unknown field/.test(e.message),
		);
		assert.throws(() => parseExtensionFrame(frame([{ ...field(0), type: "date" }])), ProtocolViolation);
		assert.throws(() => parseExtensionFrame(frame([{ ...field(0), initial: 3 }])), ProtocolViolation);
	});
});

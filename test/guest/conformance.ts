/**
 * The guest conformance suite: the same cases against every runtime's guest (test/guest/<runtime>.test.ts), over
 * the real channel with a scripted host (peers.ts). The extension is test/fixtures/guest/conformance.mjs, run
 * unchanged by each JS runtime, and for native plugins test/fixtures/native/c/conformance.c, the same cases
 * where the C ABI has the feature; what it must do is rpi's behaviour (docs/protocol-v1.md).
 *
 * Each case names the feature it needs; a runtime without it does not run the case (native.test.ts says
 * why). Where the ABI has the feature but rpi's native host shapes it differently (a partial is an AgentToolResult, a veto has no
 * reason text and never stops the fan-out, an action answers rpi's result object), the case asserts the
 * native shape beside the JS one, each exactly.
 */
import assert from "node:assert/strict";
import { after, before, describe, test as nodeTest } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type Frame, type GuestPeer, type GuestRuntime, launchGuest, manifest, startGuest } from "./peers.js";

const FULL = manifest(
	"conformance",
	["tools", "commands", "event_hooks", "session_actions", "ui", "provider", "overlays"],
	["confirm", "editor_text", "working", "hidden_thinking", "tools_expanded", "overlay"],
);

const ok = (value: unknown) => ({ status: "success", value });
/** The native fixture's confirm dialog while it waits. */
const PENDING = { status: "pending", requestId: "r1" };
const failed = (result: Frame) => {
	assert.equal(result.status, "failure", JSON.stringify(result));
	return result.error as { code: string; message: string };
};

/** What a case needs of the guest's runtime. */
export type Feature =
	| "tools"
	| "commands"
	/** A shortcut with a handler of its own that answers. */
	| "shortcut_handlers"
	/** Event handlers that veto a tool_call. */
	| "tool_call_veto"
	/** Event handlers that answer with values: edited input, patched results, the event object itself. */
	| "handler_answers"
	/** A confirm dialog from a command: its request, and the answer mapped. */
	| "ui_dialog"
	/** The six UI methods beyond dialogs (paste, working message/visible/indicator, hidden thinking, tools expanded). */
	| "ui_methods"
	| "session_actions"
	/** Cancelling a pending tool call. */
	| "cancel"
	/** A tool's own pending host request, cancelled with its call. */
	| "tool_requests"
	/** Registering after load is refused. */
	| "late_registration"
	/** Streaming providers (stream events as updates). */
	| "provider_streams"
	| "overlays"
	/** The JS registration refusals and limits (tool fields, capability, provider/overlay limits, form limits). */
	| "js_refusals";

const ALL: readonly Feature[] = [
	"tools",
	"commands",
	"shortcut_handlers",
	"tool_call_veto",
	"handler_answers",
	"ui_dialog",
	"ui_methods",
	"session_actions",
	"cancel",
	"tool_requests",
	"late_registration",
	"provider_streams",
	"overlays",
	"js_refusals",
];

/** The features of each runtime; native.test.ts says why each missing one is missing. */
export const FEATURES: Record<GuestRuntime, ReadonlySet<Feature>> = {
	node: new Set(ALL),
	quickjs: new Set(ALL),
	native: new Set<Feature>([
		"tools",
		"commands",
		"tool_call_veto",
		"ui_dialog",
		"session_actions",
		"cancel",
		"late_registration",
	]),
};

/**
 * A native plugin's registrations: a tool is name, description and parameters (label = name, description =
 * name when empty, rpi's defaults otherwise); two handlers of one tag are one event_hook frame.
 */
function nativeRegistrations(registrations: Frame[]): void {
	const kinds = registrations.map((f) => (f.type === "register" ? f.registration.kind : f.type));
	assert.deepEqual(kinds, [...Array(4).fill("tool"), ...Array(5).fill("command"), "shortcut", "event_hook"]);
	const tools = registrations.filter((f) => f.registration?.kind === "tool").map((f) => f.registration.tool);
	assert.deepEqual(tools[0], {
		name: "reader",
		label: "reader",
		description: "A read-only tool that streams two updates",
		parameters: { type: "object", properties: { n: { type: "number" } } },
		capability: "exec",
		executionMode: "default",
	});
	assert.equal(tools[1].description, "plain", "an empty description is the name");
	assert.deepEqual(registrations[4]!.registration.command, { name: "echo", description: "Echoes" });
	assert.deepEqual(registrations[9]!.registration.shortcut, { key: "ctrl+k", description: "" });
	assert.deepEqual(registrations[10]!.registration.hook, { event: "tool_call" });
}

interface CaseOptions {
	applies: boolean;
}
type CaseBody = () => Promise<void> | void;

export function conformance(runtime: GuestRuntime): void {
	const native = runtime === "native";
	/**
	 * The options of a case needing `features`. A runtime without one does not get the case at all (a skip would
	 * read as a check not made); native.test.ts lists what it leaves out and why.
	 */
	const needs = (...features: Feature[]): CaseOptions => ({
		applies: features.every((f) => FEATURES[runtime].has(f)),
	});
	function test(name: string, ...rest: [CaseBody] | [CaseOptions, CaseBody]): void {
		const [options, body] = rest.length === 1 ? [{ applies: true }, rest[0]] : rest;
		if (options.applies) nodeTest(name, body);
	}
	/** The runtime's name as the guest writes it in "… is unavailable in the X runtime". */
	describe(`guest conformance: ${runtime}`, () => {
		let peer: GuestPeer;
		let hello: Frame;
		let registrations: Frame[];
		before(async () => {
			peer = await launchGuest(runtime, "conformance.mjs", FULL);
			({ hello, registrations } = await peer.start());
		});
		after(() => peer.stop());

		const command = (name: string, args = "") => peer.invoke({ kind: "command", name, arguments: args });
		/** Until the native fixture's `waits` tool has answered its first poll with Pending. */
		const nativePending = async () => {
			for (let i = 0; i < 100; i++) {
				if ((await calls()).includes("waits pending")) return undefined;
				await sleep(20);
			}
			throw new Error("the native waits tool never reported its first pending poll");
		};
		/** The fixture's log of what its handlers saw, taken (a native command answers JSON text). */
		const calls = async () => {
			const { value } = await command("calls");
			return native ? JSON.parse(value) : value;
		};

		test("hello carries the manifest; registrations arrive in order with rpi's descriptors", () => {
			assert.deepEqual(hello, { type: "hello", protocolVersion: 1, manifest: FULL });
			if (native) return nativeRegistrations(registrations);
			const kinds = registrations.map((f) => (f.type === "register" ? f.registration.kind : f.type));
			assert.deepEqual(kinds, [
				"tool",
				"tool",
				"tool",
				"tool",
				...Array(7).fill("command"),
				"shortcut",
				"flag",
				"event_hook",
				"event_hook",
				"event_hook",
				"event_hook",
				...Array(5).fill("provider"),
				"unregister_provider",
				"provider",
				"overlay",
				"overlay",
			]);
			const tools = registrations.filter((f) => f.registration?.kind === "tool").map((f) => f.registration.tool);
			assert.deepEqual(tools[0], {
				name: "reader",
				label: "Reader",
				description: "A read-only tool that streams two updates",
				parameters: { type: "object", properties: { n: { type: "number" } } },
				capability: "read",
				executionMode: "sequential",
			});
			assert.equal(tools[1].capability, "exec", "rpi's default capability");
			assert.equal(tools[1].executionMode, "default");
			const hooks = registrations
				.filter((f) => f.registration?.kind === "event_hook")
				.map((f) => f.registration.hook.event);
			assert.deepEqual(
				hooks,
				["tool_call", "tool_result", "session_before_compact", "turn_end"],
				"one frame per event name",
			);
			const providers = registrations
				.filter((f) => f.registration?.kind === "provider")
				.map((f) => f.registration.provider);
			assert.deepEqual(providers[0], { id: "streamer", label: "Streamer", api: "streamer", capabilities: [] });
			assert.deepEqual(providers.at(-1), { id: "whole", api: "whole" });
			assert.deepEqual(
				registrations.find((f) => f.type === "unregister_provider"),
				{ type: "unregister_provider", id: "dropped" },
			);
			const overlays = registrations
				.filter((f) => f.registration?.kind === "overlay")
				.map((f) => f.registration.overlay);
			assert.deepEqual(overlays, [
				{ id: "board", title: "Board", input: { placeholder: "type", multiline: false } },
				{ id: "static", title: "Static" },
			]);
		});

		test(
			"a tool streams its updates in order before its result; a missing result is empty content",
			needs("tools"),
			async () => {
				const id = peer.invokeLater({ kind: "tool", name: "reader", callId: "c1", arguments: { n: 7 } });
				const response = await peer.next((f) => f.type === "response" && f.id === id);
				const updates = peer.frames.splice(0).filter((f) => f.type === "update" && f.id === id);
				// rpi's native host reads a pending step's progress as a partial AgentToolResult.
				const partials = native
					? [
							{ content: [], details: { step: 1 } },
							{ content: [], details: { step: 2 } },
						]
					: [{ step: 1 }, { step: 2 }];
				assert.deepEqual(
					updates.map((f) => f.value),
					partials,
				);
				assert.deepEqual(response.result, ok({ content: [{ type: "text", text: "n=7" }], details: { n: 7 } }));
				assert.deepEqual(
					await peer.invoke({ kind: "tool", name: "plain", callId: "c2", arguments: {} }),
					ok({ content: [] }),
				);
			},
		);

		test(
			"commands answer; an unknown tool and a throwing tool are extension errors",
			needs("commands", "tools"),
			async () => {
				assert.deepEqual(await command("echo", "a b"), ok("echo:a b"));
				assert.deepEqual(failed(await peer.invoke({ kind: "tool", name: "nope", callId: "c", arguments: {} })), {
					code: "extension_error",
					message: runtime === "quickjs" ? "unknown tool nope (QuickJS extension conformance)" : "unknown tool nope",
				});
				const thrown = failed(await peer.invoke({ kind: "tool", name: "throws", callId: "c", arguments: {} }));
				assert.equal(thrown.code, "extension_error");
				assert.match(thrown.message, /^boom from the tool/);
			},
		);

		test("shortcuts answer from their handler", needs("shortcut_handlers"), async () => {
			assert.deepEqual(await peer.invoke({ kind: "shortcut", key: "ctrl+k" }), ok("shortcut in rpc"));
		});

		test(
			native
				? "two tool_call handlers, the first vetoing: the veto wins (rpi's native fan-out still runs the second)"
				: "two tool_call handlers, the first blocking: the block wins and the second never runs",
			needs("tool_call_veto"),
			async () => {
				await calls();
				const result = await peer.invoke({
					kind: "event",
					event: { name: "tool_call", data: { toolName: "bash", toolCallId: "t", input: { command: "ls" } } },
				});
				if (native) {
					// The ABI's veto is a return code (no reason text), and rpi's dispatch never stops the fan-out.
					assert.deepEqual(result, ok({ block: true, reason: "blocked by native plugin conformance" }));
					assert.deepEqual(await calls(), ["first tool_call bash", "second bash"]);
					return;
				}
				assert.deepEqual(result, ok({ block: true, reason: "no bash" }));
				assert.deepEqual(await calls(), ["first tool_call bash"]);
			},
		);

		test(
			"tool_call: an in-place edit feeds the next handler, whose answer wins",
			needs("handler_answers"),
			async () => {
				const result = await peer.invoke({
					kind: "event",
					event: { name: "tool_call", data: { toolName: "read", toolCallId: "t", input: { path: "a" } } },
				});
				assert.deepEqual(result, ok({ input: { path: "a", seen: true, second: true } }));
				assert.deepEqual(await calls(), ["first tool_call read", "second read"]);
			},
		);

		test(
			"tool_result: several handlers merge, the later sees the earlier's content, usage is kept",
			needs("handler_answers"),
			async () => {
				const result = await peer.invoke({
					kind: "event",
					event: {
						name: "tool_result",
						data: {
							toolName: "read",
							toolCallId: "t",
							input: {},
							content: [{ type: "text", text: "orig" }],
							isError: false,
						},
					},
				});
				assert.deepEqual(
					result,
					ok({
						content: [{ type: "text", text: "patched" }],
						details: { sawContent: "patched" },
						usage: { input: 3 },
					}),
				);
			},
		);

		test(
			"events are frozen {type, ...data}; session_before_compact carries a live signal; non-object data is {data}",
			needs("handler_answers"),
			async () => {
				assert.deepEqual(
					await peer.invoke({ kind: "event", event: { name: "session_before_compact", data: { preparation: {} } } }),
					ok({ type: "session_before_compact", frozen: true, signal: true }),
				);
				assert.deepEqual(
					await peer.invoke({ kind: "event", event: { name: "turn_end", data: 5 } }),
					ok({ type: "turn_end", data: 5 }),
				);
			},
		);

		test("a UI round trip: the request as rpi shapes it, the answer mapped", needs("ui_dialog"), async () => {
			const id = peer.invokeLater({ kind: "command", name: "confirm", arguments: "" });
			const request = await peer.nextRequest();
			assert.deepEqual(request.request, {
				kind: "ui",
				ui: { request: { type: "confirm", title: "Sure?", message: "Really" } },
			});
			if (native) {
				// UiDialog (17) opens and returns at once; the plugin polls for the answer, which is rpi's shape.
				assert.deepEqual((await peer.next((f) => f.id === id && f.type === "response")).result, ok(PENDING));
				assert.deepEqual(await command("confirm", "poll"), ok(PENDING), "still pending before the answer");
				peer.answer(request, { type: "confirmed", confirmed: true });
				let polled = await command("confirm", "poll");
				for (let i = 0; i < 20 && polled.value.status === "pending"; i++) {
					await sleep(25);
					polled = await command("confirm", "poll");
				}
				assert.deepEqual(
					polled,
					ok({ status: "answered", requestId: "r1", answer: { confirmed: true, values: ["Yes"] } }),
				);
				return;
			}
			peer.answer(request, { type: "confirmed", confirmed: true });
			assert.deepEqual((await peer.next((f) => f.id === id && f.type === "response")).result, ok(true));
		});

		test(
			"the six UI methods rpi has: paste, working message/visible/indicator, hidden thinking label, tools expanded",
			needs("ui_methods"),
			async () => {
				const id = peer.invokeLater({ kind: "command", name: "ui6", arguments: "" });
				const seen = [];
				for (let i = 0; i < 6; i++) {
					const request = await peer.nextRequest();
					seen.push(request.request.ui.request);
					peer.answer(request, { type: "acknowledged" });
				}
				assert.deepEqual(seen, [
					{ type: "paste_to_editor", text: "pasted" },
					{ type: "set_working_message", message: "working" },
					{ type: "set_working_visible", visible: false },
					{ type: "set_working_indicator", options: { frames: ["a", "b"], intervalMs: 80 } },
					{ type: "set_hidden_thinking_label", label: "thinking" },
					{ type: "set_tools_expanded", expanded: true },
				]);
				assert.deepEqual((await peer.next((f) => f.id === id && f.type === "response")).result, ok("done"));
			},
		);

		test(
			"every session action resolves with the host's answer; compact takes a string and waits",
			needs("session_actions"),
			async () => {
				const id = peer.invokeLater({ kind: "command", name: "actions", arguments: "" });
				const answers: Array<[Frame, unknown]> = [
					[{ kind: "append_entry", customType: "note", data: { n: 1 } }, "entry-7"],
					[{ kind: "set_session_name", name: "named" }, null],
					[
						{ kind: "set_thinking_level", level: "high" },
						{ requested: "high", effective: "high", clamped: false },
					],
					[
						{ kind: "compact", customInstructions: "be brief" },
						{ summary: "short", tokensBefore: 10 },
					],
				];
				for (const [action, value] of answers) {
					const request = await peer.nextRequest();
					assert.deepEqual(request.request, { kind: "action", action });
					peer.answer(request, value);
				}
				// A native runtime_action answers rpi's result object for the id (native-abi.md §3), built from the host's value.
				const expected = native
					? {
							entry: { ok: true, entryId: "entry-7" },
							named: { ok: true },
							level: { ok: true },
							compacted: { ok: true },
						}
					: {
							entry: "entry-7",
							named: null,
							level: { requested: "high", effective: "high", clamped: false },
							compacted: { summary: "short", tokensBefore: 10 },
						};
				assert.deepEqual((await peer.next((f) => f.id === id && f.type === "response")).result, ok(expected));
			},
		);

		test(
			"cancel: the signal aborts, the guest's own pending request is cancelled, the answer is cancelled",
			needs("cancel"),
			async () => {
				const id = peer.invokeLater({ kind: "tool", name: "waits", callId: "c9", arguments: {} });
				// A native tool makes no request of its own while pending: it is cancelled once its first poll is pending.
				const dialog = FEATURES[runtime].has("tool_requests") ? await peer.nextRequest() : await nativePending();
				peer.send({ type: "cancel", id });
				assert.deepEqual(failed((await peer.next((f) => f.id === id && f.type === "response")).result), {
					code: "cancelled",
					message: "the invocation was cancelled",
				});
				if (dialog) await peer.next((f) => f.type === "cancel" && f.id === dialog.id);
				// The plugin's cancel_fn reaches it after the answer (the driver sees the abort on its next turn).
				let seen = await calls();
				for (let i = 0; native && seen.length === 0 && i < 20; i++) {
					await sleep(50);
					seen = await calls();
				}
				assert.deepEqual(seen, ["waits aborted"]);
			},
		);

		test("phases: registering after load throws with rpi's text", needs("late_registration"), async () => {
			// The ABI's refusal is the registrar's code: -1, no registration in progress.
			const refusal = native
				? /^late register_command returned -1$/
				: /command registration is only allowed during the load phase/;
			assert.match(String((await command("late")).value), refusal);
		});

		test(
			"providers: stream events become ordered updates, then null; a sync iterable works too",
			needs("provider_streams"),
			async () => {
				const id = peer.invokeLater({
					kind: "provider",
					providerId: "streamer",
					sessionId: "s1",
					messages: [{ role: "user", content: "hi" }],
					options: { temperature: 0.5 },
				});
				const response = await peer.next((f) => f.type === "response" && f.id === id);
				const updates = peer.frames.splice(0).filter((f) => f.type === "update" && f.id === id);
				assert.deepEqual(
					updates.map((f) => f.value),
					[{ type: "start" }, { type: "text_delta", delta: "hi s1 1 0.5" }, { type: "done", stopReason: "stop" }],
				);
				assert.deepEqual(response.result, ok(null));
				const sync = peer.invokeLater({ kind: "provider", providerId: "sync-iter" });
				assert.deepEqual((await peer.next((f) => f.type === "response" && f.id === sync)).result, ok(null));
				assert.equal(peer.frames.splice(0).filter((f) => f.type === "update" && f.id === sync).length, 2);
			},
		);

		test(
			"providers: a non-iterable, a throw and an unregistered id fail; pier's complete form still answers",
			needs("provider_streams"),
			async () => {
				const notIter = failed(await peer.invoke({ kind: "provider", providerId: "not-iter" }));
				assert.equal(notIter.code, "extension_error");
				assert.match(notIter.message, /must return an async iterator/);
				const broke = failed(await peer.invoke({ kind: "provider", providerId: "failing" }));
				assert.equal(broke.code, "extension_error");
				assert.match(broke.message, /provider broke/);
				assert.match(
					failed(await peer.invoke({ kind: "provider", providerId: "dropped" })).message,
					/unknown provider dropped/,
				);
				assert.deepEqual(
					await peer.invoke({ kind: "provider", providerId: "whole", messages: [{}, {}] }),
					ok({ role: "assistant", content: [{ type: "text", text: "2" }] }),
				);
			},
		);

		test(
			"overlays: render gives rows, submit reaches onSubmit, missing callbacks and ids fail with rpi's texts",
			needs("overlays"),
			async () => {
				assert.deepEqual(
					await peer.invoke({ kind: "overlay_render", id: "board" }),
					ok({ rows: ["row 1", { text: "row 2", style: "dim" }] }),
				);
				assert.deepEqual(await peer.invoke({ kind: "overlay_render", id: "static" }), ok({ rows: ["x"] }));
				assert.deepEqual(
					await peer.invoke({ kind: "overlay_event", id: "board", event: { kind: "submit", text: "hello" } }),
					ok({ submitted: "hello" }),
				);
				assert.match(
					failed(await peer.invoke({ kind: "overlay_event", id: "board", event: { kind: "key", action: "up" } }))
						.message,
					/overlay board has no onKey callback for a key action/,
				);
				assert.match(
					failed(await peer.invoke({ kind: "overlay_event", id: "static", event: { kind: "submit", text: "x" } }))
						.message,
					/overlay static has no onSubmit callback for a submit event/,
				);
				assert.match(
					failed(await peer.invoke({ kind: "overlay_render", id: "ghost" })).message,
					/unknown overlay ghost/,
				);
			},
		);

		test(
			"overlays: ctx.ui.setRows and ctx.ui.open send overlay_set_rows and overlay_open",
			needs("overlays"),
			async () => {
				const id = peer.invokeLater({ kind: "command", name: "overlay-ui", arguments: "" });
				const rows = await peer.nextRequest();
				assert.deepEqual(rows.request.ui.request, {
					type: "overlay_set_rows",
					id: "board",
					rows: [{ text: "one" }, { text: "two", style: "bold" }],
				});
				peer.answer(rows, { type: "acknowledged" });
				const open = await peer.nextRequest();
				assert.deepEqual(open.request.ui.request, { type: "overlay_open", id: "board", nonCapturing: true });
				peer.answer(open, { type: "overlay_opened" });
				assert.deepEqual((await peer.next((f) => f.id === id && f.type === "response")).result, ok("shown"));
			},
		);
	});

	describe(`guest conformance: ${runtime}: refusals`, () => {
		const loadOf = async (entry: string, capabilities: string[]) => {
			const peer = await launchGuest(runtime, entry, manifest(`refusal-${entry.replace(/\W/g, "")}`, capabilities));
			try {
				return (await peer.handshake()).load;
			} finally {
				await peer.stop();
			}
		};

		test("rpi-rejected tool fields and a bad capability fail the load, naming them", needs("js_refusals"), async () => {
			assert.match(
				failed(await loadOf("bad-tool-field.mjs", ["tools"])).message,
				new RegExp(`registerTool.renderCall is unavailable in the ${runtime} runtime`),
			);
			assert.match(
				failed(await loadOf("bad-capability.mjs", ["tools"])).message,
				/registerTool capability must be read, write, or exec, got admin/,
			);
		});

		test("registration limits, each just past its bound, with rpi's texts", needs("js_refusals"), async () => {
			const peer = startGuest(
				runtime,
				"limits.mjs",
				manifest("limits", ["commands", "tools", "provider", "overlays", "event_hooks", "ui"], ["input"]),
			);
			try {
				await peer.start();
				const refusals = Object.fromEntries(
					(await peer.invoke({ kind: "command", name: "refusals", arguments: "" })).value,
				);
				assert.deepEqual(refusals, {
					"id 128": "ok",
					"id 129": "provider id exceeds 128 bytes",
					"id grammar": 'provider id "bad id" contains unsupported characters',
					"api grammar": 'provider api "x/y" contains unsupported characters',
					"label 256": "ok",
					"label 257": "provider label must be 1-256 printable characters",
					"no stream": "registerProvider requires a stream function",
					duplicate: "duplicate provider p1",
					"unregister unknown": "cannot unregister unknown provider ghost",
					"title 257": "overlay title must be 1-256 printable characters",
					onKey: "registerOverlay onKey must be a function",
					"no render": "registerOverlay requires a render function",
					placeholder: "overlay input placeholder must be 1-256 printable characters",
					"unknown event": "unsupported extension event no_such_event",
					"execution mode": 'registerTool executionMode must be "default", "sequential" or "parallel", got "eager"',
				});
				const late = (await peer.invoke({ kind: "command", name: "late", arguments: "" })).value;
				assert.match(late[0], /^provider registration is only allowed during the load phase/);
				assert.match(late[1], /^provider unregistration is only allowed during the load phase/);
				// A form: 12 fields and 20 options go out; 13 and 21 fail the call before anything is sent.
				const form = async (args: string) => {
					const id = peer.invokeLater({ kind: "command", name: "form", arguments: args });
					const done = (f: Frame) => (f.type === "response" && f.id === id) || f.type === "request";
					const first = await peer.next(done);
					if (first.type === "response") return first.result.value;
					peer.answer(first, { type: "form", values: { f0: "a" } });
					return (await peer.next((f) => f.type === "response" && f.id === id)).result.value;
				};
				assert.deepEqual(await form("12"), { values: { f0: "a" } });
				assert.equal(await form("13"), "ctx.ui.form: a form has at most 12 fields (got 13)");
				assert.deepEqual(await form("-20"), { values: { f0: "a" } });
				assert.equal(await form("-21"), "ctx.ui.form: field 1 has 21 options; the limit is 20");
			} finally {
				await peer.stop();
			}
		});

		test("undeclared capabilities: rpi's synchronous texts", async () => {
			if (native) {
				// The ABI registers without capabilities: the plugin host refuses the load for the handlers, and a
				// runtime_action before anything is sent, with the kit's text (code 1, `{"error"}`).
				assert.match(
					failed(await loadOf("conformance.mjs", ["tools", "commands"])).message,
					/^the plugin registers handlers for tool_call, but pi-extension\.json of refusal-conformancemjs does not declare the "event_hooks" capability; add it to "capabilities"$/,
				);
				const peer = await launchGuest(
					runtime,
					"conformance.mjs",
					manifest("no-caps", ["tools", "commands", "event_hooks"]),
				);
				try {
					await peer.start();
					const refused = {
						code: 1,
						out: {
							error: "session action requires the session_actions capability (add it to the manifest's capabilities)",
						},
					};
					assert.deepEqual(
						await peer.invoke({ kind: "command", name: "actions", arguments: "" }),
						ok({ entry: refused, named: refused, level: refused, compacted: refused }),
					);
					assert.deepEqual(
						peer.frames.filter((f) => f.type === "request"),
						[],
						"nothing was sent",
					);
				} finally {
					await peer.stop();
				}
				return;
			}
			assert.match(
				failed(await loadOf("no-hook-cap.mjs", ["commands"])).message,
				/event registration requires the event_hooks capability/,
			);
			assert.match(
				failed(await loadOf("no-provider-cap.mjs", ["commands"])).message,
				/provider registration requires the provider capability/,
			);
			const peer = startGuest(runtime, "no-caps.mjs", manifest("no-caps", ["commands"]));
			try {
				await peer.start();
				const ui = failed(await peer.invoke({ kind: "command", name: "ui", arguments: "" }));
				assert.match(ui.message, /UI action requires the ui capability/);
				const act = failed(await peer.invoke({ kind: "command", name: "act", arguments: "" }));
				assert.match(act.message, /session action requires the session_actions capability/);
			} finally {
				await peer.stop();
			}
		});
	});
}

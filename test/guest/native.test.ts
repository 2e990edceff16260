/**
 * The guest conformance suite (conformance.ts) against a native plugin: test/fixtures/native/c/conformance.c,
 * built with gcc against kit/c/rpi_plugin.h and run by pier's plugin host behind the NativeChannel, exactly as
 * a `runtime: native` manifest launches it.
 *
 * Cases left out (not registered for this runtime), because the C ABI has no such feature:
 * - shortcut handlers: register_shortcut takes a key and a description, no handler; a press answers null.
 * - handler answers (tool_call input edits, tool_result patches, the frozen event object): an event handler
 *   gets a borrowed StablePluginEvent and answers only a code (continue, error, abort, claimed).
 * - the six UI methods beyond dialogs: the ABI has no paste, working message/visible/indicator, hidden
 *   thinking label or tools-expanded action (its UI actions are UiDialog, SetStatus, SetEditorText, UiComponent).
 * - a tool's own pending host request cancelled with its call: runtime_action is synchronous, so a pending
 *   native tool has no request in flight; the cancel case runs without that part.
 * - streaming providers: a native provider is one request_fn call answering a whole assistant message.
 * - overlays: no overlay registration in the ABI.
 * - the JS refusals and limits (renderCall, capability strings, provider/overlay/form limits): they are the JS
 *   API's; the native registrars' refusals are tested in test/native/host-declare.test.ts and host-load.test.ts.
 * Cases that run with the native host's own shapes (rpi's, asserted exactly): a tool registers name,
 * description and parameters only (no label, capability or execution mode); a partial is an AgentToolResult;
 * a veto has pier's reason text and the fan-out goes on to the second handler (rpi never aborts it); a runtime
 * action answers rpi's result object; a confirm dialog (UiDialog 17) is opened, then polled for rpi's answer;
 * a late registration is refused with the registrar's code -1; undeclared capabilities refuse the load (event
 * handlers without event_hooks) and a runtime_action (session_actions) with the plugin host's and the kit's
 * texts, the action before anything is sent.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { conformance } from "./conformance.js";
import { launchGuest, manifest } from "./peers.js";

const FIRST_CAPS = ["tools", "commands", "event_hooks", "ui"];

conformance("native");

describe("native guest: the mode before the plugin runs", () => {
	test("a dialog opened by the first invocation, a command, is shown: its context is seen before the handler", async () => {
		const peer = await launchGuest("native", "conformance.mjs", manifest("first-dialog", FIRST_CAPS, ["confirm"]));
		try {
			await peer.start();
			const opened = await peer.invoke({ kind: "command", name: "confirm", arguments: "" });
			assert.deepEqual(opened, { status: "success", value: { status: "pending", requestId: "r1" } });
			assert.equal((await peer.nextRequest()).request.ui.request.type, "confirm");
		} finally {
			await peer.stop();
		}
	});
});

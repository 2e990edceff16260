/**
 * Puts the permission gate on a pi session: every tool call it runs, after every hook, and the calls its tools
 * make. The UI is the session's at the time of the call (pi's terminal, the chamber's dialogs, an RPC client's,
 * or none in a headless run), the same one an extension's `ctx.ui.select` reaches.
 */
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import { gateToolCalls } from "../pi-seams/tool-call-gate.js";
import { type GateOptions, gateToolCall } from "./gate.js";

export function gateSession(session: AgentSession, options: Omit<GateOptions, "sessionId" | "ui">): void {
	const gate: GateOptions = {
		...options,
		sessionId: () => session.sessionId,
		ui: () => {
			const runner = session.extensionRunner;
			return {
				hasUI: () => runner.hasUI(),
				select: (title, choices) => runner.getUIContext().select(title, choices),
				notify: (message, type) => runner.getUIContext().notify(message, type),
			};
		},
	};
	gateToolCalls(session, (call) => gateToolCall(gate, call));
}

/**
 * The last word on a tool call before pi runs it. pi's agent loop calls `beforeToolCall` with the validated
 * arguments, AgentSession runs the extensions' `tool_call` handlers there (in-process ones, and through pier's
 * bridge the process and QuickJS hooks, which rewrite `input` in place), and then executes the tool with that
 * same arguments object. Calls a tool makes itself (`ctx.executeTool`) take the same path with a parent id. So
 * pier wraps the session's private `_beforeToolCall`: after every handler, with the arguments the tool will
 * really get.
 */
import type { AgentSession } from "@earendil-works/pi-coding-agent";
import { Findings, loadForCheck, type Seam } from "./seam.js";

export interface GatedCall {
	toolName: string;
	toolCallId: string;
	/** The arguments the tool will run with, after every hook. */
	input: unknown;
	parentToolCallId?: string;
}

export type ToolCallCheck = (call: GatedCall) => Promise<{ block: true; reason: string } | undefined>;

interface BeforeToolCallResult {
	block?: boolean;
	reason?: string;
}

interface BeforeContext {
	toolCall: { id: string; name: string };
	args: unknown;
}

type BeforeToolCall = (context: BeforeContext, parentToolCallId?: string) => Promise<BeforeToolCallResult | undefined>;

/** From now on every tool call of `session` (and of the tools it calls) passes `check` after its hooks. */
export function gateToolCalls(session: AgentSession, check: ToolCallCheck): void {
	const target = session as unknown as { _beforeToolCall: BeforeToolCall };
	const original = target._beforeToolCall.bind(session);
	target._beforeToolCall = async (context, parentToolCallId) => {
		const hooks = await original(context, parentToolCallId);
		if (hooks?.block) return hooks;
		const verdict = await check({
			toolName: context.toolCall.name,
			toolCallId: context.toolCall.id,
			input: context.args,
			...(parentToolCallId ? { parentToolCallId } : {}),
		});
		return verdict ?? hooks;
	};
}

const id = { name: "tool-call-gate", file: "src/pi-seams/tool-call-gate.ts" };

type PiIndex = typeof import("@earendil-works/pi-coding-agent");

export const seam: Seam = {
	...id,
	members: [
		"AgentSession.prototype._beforeToolCall(context, parentToolCallId): replaced on an instance",
		"core/agent-session.js calls this._beforeToolCall(context) and this._beforeToolCall(context, parentId)",
		"core/agent-session.js passes the tool_call handlers input: args (the object the tool runs with)",
		"pi-agent-core agent-loop.js runs prepared.tool.execute(…, prepared.args) with args: validatedArgs",
	],
	async check(roots) {
		const findings = new Findings(id);
		const pi = await loadForCheck<PiIndex>(findings, roots.codingAgent, "dist/index.js");
		findings.fn(pi?.AgentSession?.prototype, "_beforeToolCall", "AgentSession.prototype._beforeToolCall", 2);
		const session = "dist/core/agent-session.js";
		findings.calls(
			roots.codingAgent,
			session,
			"this.agent.beforeToolCall = (context) => this._beforeToolCall(context)",
		);
		findings.calls(roots.codingAgent, session, "beforeToolCall: (context) => this._beforeToolCall(context, parentId)");
		findings.calls(roots.codingAgent, session, "input: args,");
		findings.calls(roots.agentCore, "dist/agent-loop.js", "args: validatedArgs,");
		findings.calls(
			roots.agentCore,
			"dist/agent-loop.js",
			"prepared.tool.execute(prepared.toolCall.id, prepared.args, signal",
		);
		findings.done();
	},
};

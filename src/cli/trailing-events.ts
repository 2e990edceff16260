/**
 * `pier run` prints every event of the prompt, whatever hooks extensions registered. pi 0.74.2's
 * `AgentSession.prompt` resolves when the agent loop ends, but the session hands agent events to its
 * subscribers (print mode's JSON writer among them) through a queue that first awaits extension hooks
 * (`_agentEventQueue`). With a protocol extension hooking `message_end` or `turn_end`, each of those events
 * waits for a frame round trip, the prompt resolves first, print mode returns, and the process exits with
 * the trailing `message_end`, `turn_end` and `agent_end` still queued: they were never printed.
 *
 * So in this one-shot process each prompt also waits for the queue to drain (a queued event may queue more).
 * The field is pi's private state, pinned with pi's exact version; without it this waits for nothing.
 */
import { AgentSession } from "@earendil-works/pi-coding-agent";

type WithQueue = { _agentEventQueue?: Promise<unknown> };

async function drained(session: WithQueue): Promise<void> {
	for (let queue = session._agentEventQueue; queue; ) {
		await queue.catch(() => {});
		if (session._agentEventQueue === queue) return;
		queue = session._agentEventQueue;
	}
}

let installed = false;

export function promptsWaitForTheirEvents(): void {
	if (installed) return;
	installed = true;
	const prompt = AgentSession.prototype.prompt;
	AgentSession.prototype.prompt = async function (this: AgentSession, ...args: Parameters<typeof prompt>) {
		try {
			return await prompt.apply(this, args);
		} finally {
			await drained(this as unknown as WithQueue);
		}
	};
}

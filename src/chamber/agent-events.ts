/**
 * pi's agent events as the chamber's stream: a run's start and end, the assistant's draft as it streams (the
 * persisted row replaces it by its draft id), the queue, tool progress. Persisted entries are not here: they
 * become rows as they are written (live-session.ts).
 */
import type { AgentSessionEvent } from "@earendil-works/pi-coding-agent";
import type { EventName, EventPayloads, QueueView } from "./wire.js";

export interface AgentEventSink {
	publish<E extends EventName>(event: E, payload: EventPayloads[E]): void;
	publishUsage(): void;
	publishModel(): void;
	/** A run started: the session list (and notifications, push/) hear of it, as they hear of its end. */
	runStarted?(): void;
	/** A run ended (pi still counts itself as streaming while agent_end handlers run). */
	runEnded(): void;
	/** The session's name or other info changed. */
	infoChanged(): void;
}

export class AgentEventProjection {
	private draftId: string | undefined;
	private drafts = 0;
	queue: QueueView = { steering: [], followUp: [] };

	constructor(private readonly out: AgentEventSink) {}

	/** The draft an arriving assistant row replaces; it is taken once. */
	takeDraft(): string | undefined {
		const id = this.draftId;
		this.draftId = undefined;
		return id;
	}

	/** The session was replaced: whatever was streaming belongs to the old one. */
	dropDraft(): void {
		this.draftId = undefined;
	}

	project(event: AgentSessionEvent): void {
		switch (event.type) {
			case "agent_start":
				this.out.publish("agent.start", {});
				this.out.publish("session.state", { streaming: true });
				this.out.runStarted?.();
				break;
			case "agent_end":
				this.out.publishUsage();
				this.out.publish("agent.end", {});
				this.out.publish("session.state", { streaming: false });
				this.out.runEnded();
				break;
			case "message_start":
				if (event.message.role === "assistant") {
					this.draftId = `draft_${++this.drafts}`;
					this.out.publish("message.start", { draftId: this.draftId, role: "assistant" });
				}
				break;
			case "message_update": {
				const delta = event.assistantMessageEvent;
				if (!this.draftId) break;
				if (delta.type === "text_delta") {
					this.out.publish("message.delta", { draftId: this.draftId, kind: "text", delta: delta.delta });
				} else if (delta.type === "thinking_delta") {
					this.out.publish("message.delta", { draftId: this.draftId, kind: "thinking", delta: delta.delta });
				}
				break;
			}
			case "message_end":
				if (event.message.role === "assistant" && this.draftId) {
					this.out.publish("message.end", { draftId: this.draftId });
				}
				// Each answer reports its usage: the footer moves per turn, not per run.
				if (event.message.role === "assistant") this.out.publishUsage();
				break;
			case "queue_update":
				this.queue = { steering: [...event.steering], followUp: [...event.followUp] };
				this.out.publish("session.queue", this.queue);
				break;
			case "tool_execution_start":
				this.out.publish("tool.start", { toolCallId: event.toolCallId, toolName: event.toolName, args: event.args });
				break;
			case "tool_execution_update":
				this.out.publish("tool.update", { toolCallId: event.toolCallId, text: resultText(event.partialResult) });
				break;
			case "tool_execution_end":
				this.out.publish("tool.end", {
					toolCallId: event.toolCallId,
					toolName: event.toolName,
					text: resultText(event.result),
					isError: event.isError,
				});
				break;
			case "session_info_changed":
				this.out.infoChanged();
				break;
			case "thinking_level_changed":
				this.out.publishModel();
				break;
		}
	}
}

function resultText(result: unknown): string {
	const content = (result as { content?: unknown })?.content;
	if (!Array.isArray(content)) return typeof result === "string" ? result : "";
	return content
		.filter((p: { type?: string; text?: unknown }) => p?.type === "text" && typeof p.text === "string")
		.map((p: { text: string }) => p.text)
		.join("")
		.slice(0, 50_000);
}

/**
 * One provider turn's `update` values → pi-ai AssistantMessageEvents. Two forms arrive here, and one turn may
 * only be one of them in effect:
 *
 * - rpi's (what rpi extensions' `stream` functions yield, forwarded by the guest in order, then `success(null)`):
 *   `start`, `text {text}`, `text_delta {delta}`, `thinking {thinking}`, `tool_call {id?, name, arguments?}`,
 *   `done {stopReason?, message?}`, `error {error?}`.
 * - pier's (the answer is the whole AssistantMessage; `text_delta`/`thinking_delta {delta}` may stream first).
 *
 * Blocks stay open while deltas may still extend them and are closed (`*_end`) when another block starts or the
 * turn ends, so pi sees start/delta…/end per block whichever form the extension used.
 */
import type {
	Api,
	AssistantMessage,
	AssistantMessageEventStream,
	JsonObject,
	Model,
	StopReason,
} from "@earendil-works/pi-ai";
import { isRecord } from "../protocol/json-object.js";
import { STOP_REASONS, toAssistantMessage, ZERO_USAGE } from "./provider-message.js";
import { redactSecrets } from "../host/redact.js";

/** rpi's default id for a `tool_call` without one; later id-less calls of the same turn get `_2`, `_3`… */
export const DEFAULT_TOOL_CALL_ID = "call_extension";
/** rpi's text for an `error` event without one. */
export const DEFAULT_STREAM_ERROR = "extension provider stream failed";

/** A stream value pier cannot use: the invocation is cancelled and the turn ends with this as its error. */
export class StreamEventError extends Error {
	override name = "StreamEventError";
}

type Open = { type: "text" | "thinking"; index: number };

export class ProviderStreamTranslator {
	readonly partial: AssistantMessage;
	private open: Open | undefined;
	private streamed = false;
	private toolCalls = 0;
	private done: { stopReason?: StopReason; message?: AssistantMessage } | undefined;
	private errorText: string | undefined;
	private ended = false;

	constructor(
		private readonly stream: AssistantMessageEventStream,
		private readonly model: Model<Api>,
	) {
		this.partial = {
			role: "assistant",
			content: [],
			api: model.api,
			provider: model.provider,
			model: model.id,
			usage: structuredClone(ZERO_USAGE),
			stopReason: "stop",
			timestamp: Date.now(),
		};
		// pi's consumers expect `start` first; rpi's own `start` event is then a no-op.
		stream.push({ type: "start", partial: structuredClone(this.partial) });
	}

	/** One `update` value; throws StreamEventError for anything outside both vocabularies. */
	apply(value: unknown): void {
		if (!isRecord(value)) throw new StreamEventError("provider stream event must be an object");
		const type = value.type;
		if (typeof type !== "string") throw new StreamEventError('provider stream event is missing a string "type"');
		switch (type) {
			case "start":
				return;
			case "text":
				this.block("text", requiredString(value, "text"), true);
				return;
			case "text_delta":
				this.block("text", requiredString(value, "delta"), false);
				return;
			case "thinking":
				this.block("thinking", requiredString(value, "thinking"), true);
				return;
			case "thinking_delta":
				this.block("thinking", requiredString(value, "delta"), false);
				return;
			case "tool_call":
				this.toolCall(value);
				return;
			case "done":
				this.finishWith(value);
				return;
			case "error":
				this.errorText = typeof value.error === "string" ? value.error : DEFAULT_STREAM_ERROR;
				return;
			default:
				throw new StreamEventError(`unknown provider stream event type ${JSON.stringify(type)}`);
		}
	}

	/**
	 * The invocation answered. `null` (rpi's form) ends the turn with what was streamed (or `done`'s message);
	 * an object is pier's form, the whole message. Throws (with the field named) for an invalid message.
	 */
	succeed(answer: unknown): void {
		const given = answer === null || answer === undefined ? this.done?.message : toAssistantMessage(answer, this.model);
		this.close();
		if (this.errorText !== undefined) {
			this.fail(this.errorText, "error");
			return;
		}
		if (given) {
			if (!this.streamed) this.replay(given);
			this.end(given);
			return;
		}
		const message = structuredClone(this.partial);
		message.stopReason = this.done?.stopReason ?? (this.toolCalls > 0 ? "toolUse" : "stop");
		this.end(message);
	}

	/** The turn failed (or was aborted): pi's `error` event with what was streamed so far, the text redacted. */
	fail(text: string, reason: "error" | "aborted" = "error"): void {
		if (this.ended) return;
		this.close();
		this.ended = true;
		const error = { ...structuredClone(this.partial), stopReason: reason, errorMessage: redactSecrets(text) };
		this.stream.push({ type: "error", reason, error });
	}

	private end(message: AssistantMessage): void {
		if (this.ended) return;
		this.ended = true;
		if (message.stopReason === "error" || message.stopReason === "aborted") {
			if (message.errorMessage !== undefined) message.errorMessage = redactSecrets(message.errorMessage);
			this.stream.push({ type: "error", reason: message.stopReason, error: message });
		} else if (message.stopReason !== "pending") {
			// STOP_REASONS never yields "pending" (a deferred provider's not-yet answer), so this is every other case.
			this.stream.push({ type: "done", reason: message.stopReason, message });
		}
	}

	/** `whole`: a complete block (rpi's `text`/`thinking`) starts a new one; a delta extends the open one. */
	private block(type: "text" | "thinking", text: string, whole: boolean): void {
		this.streamed = true;
		if (whole || this.open?.type !== type) {
			this.close();
			const index = this.partial.content.length;
			this.partial.content.push(type === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "" });
			this.open = { type, index };
			this.push(`${type}_start`, { contentIndex: index });
		}
		const { index } = this.open!;
		const block = this.partial.content[index]!;
		if (block.type === "text") block.text += text;
		else if (block.type === "thinking") block.thinking += text;
		this.push(`${type}_delta`, { contentIndex: index, delta: text });
	}

	private toolCall(value: Record<string, unknown>): void {
		const name = requiredString(value, "name");
		if (value.id !== undefined && (typeof value.id !== "string" || value.id === "")) {
			throw new StreamEventError("provider stream tool_call id must be a non-empty string");
		}
		const args = value.arguments ?? {};
		if (!isRecord(args)) throw new StreamEventError(`provider stream tool_call "${name}" arguments must be an object`);
		this.toolCalls++;
		const id =
			typeof value.id === "string"
				? value.id
				: this.toolCalls === 1
					? DEFAULT_TOOL_CALL_ID
					: `${DEFAULT_TOOL_CALL_ID}_${this.toolCalls}`;
		this.close();
		this.streamed = true;
		const index = this.partial.content.length;
		const call = { type: "toolCall" as const, id, name, arguments: args as JsonObject };
		this.partial.content.push(call);
		this.push("toolcall_start", { contentIndex: index });
		this.push("toolcall_delta", { contentIndex: index, delta: JSON.stringify(args) });
		this.push("toolcall_end", { contentIndex: index, toolCall: structuredClone(call) });
	}

	private finishWith(value: Record<string, unknown>): void {
		const done: { stopReason?: StopReason; message?: AssistantMessage } = {};
		if (value.stopReason !== undefined) {
			const known = typeof value.stopReason === "string" ? STOP_REASONS[value.stopReason] : undefined;
			if (!known) throw new StreamEventError(`unknown provider stream stopReason ${JSON.stringify(value.stopReason)}`);
			done.stopReason = known;
		}
		if (value.message !== undefined) {
			try {
				done.message = toAssistantMessage(value.message, this.model);
			} catch (error) {
				throw new StreamEventError(`provider done message is not an AssistantMessage: ${(error as Error).message}`);
			}
			if (done.stopReason) done.message.stopReason = done.stopReason;
		}
		this.done = done;
	}

	/** A message answered whole (nothing streamed) is shown block by block, as if it had streamed. */
	private replay(message: AssistantMessage): void {
		for (const block of message.content) {
			if (block.type === "text") this.block("text", block.text, true);
			else if (block.type === "thinking") this.block("thinking", block.thinking, true);
			else if (block.type === "toolCall") {
				this.close();
				const index = this.partial.content.length;
				this.partial.content.push(block);
				this.push("toolcall_start", { contentIndex: index });
				this.push("toolcall_end", { contentIndex: index, toolCall: block });
			}
		}
		this.close();
	}

	private close(): void {
		if (!this.open) return;
		const { type, index } = this.open;
		const block = this.partial.content[index]!;
		const content = block.type === "text" ? block.text : block.type === "thinking" ? block.thinking : "";
		this.push(`${type}_end`, { contentIndex: index, content });
		this.open = undefined;
	}

	private push(type: string, fields: Record<string, unknown>): void {
		this.stream.push({ type, ...fields, partial: structuredClone(this.partial) } as never);
	}
}

function requiredString(event: Record<string, unknown>, field: string): string {
	const value = event[field];
	if (typeof value !== "string") throw new StreamEventError(`provider stream event is missing a string "${field}"`);
	return value;
}

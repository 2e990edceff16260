/**
 * What the QuickJS channel accepts from its worker. A frame string is the guest's own text (it can replace
 * JSON.stringify, so it may be anything at all); control objects come from pier's worker code. Anything
 * else is the extension's protocol violation, never an exception in the host.
 */
import { FrameError, parseFrameText } from "../../protocol/codec.js";

export type WorkerMessage =
	| { kind: "frame"; frame: Record<string, unknown> }
	| { kind: "fatal"; message: string }
	| { kind: "ready" }
	| { kind: "exit" }
	| { kind: "violation"; message: string };

const kindOf = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`);

export function readWorkerMessage(message: unknown, maxFrameBytes: number): WorkerMessage {
	if (typeof message === "string") return readFrame(message, maxFrameBytes);
	if (typeof message === "object" && message !== null && !Array.isArray(message)) {
		const control = message as Record<string, unknown>;
		const keys = Object.keys(control);
		if (keys.length === 1 && typeof control.fatal === "string") return { kind: "fatal", message: control.fatal };
		if (keys.length === 1 && control.ready === true) return { kind: "ready" };
		if (keys.length === 1 && control.exit === true) return { kind: "exit" };
	}
	return {
		kind: "violation",
		message: `the worker sent ${kindOf(message)} that is neither a frame nor a control message`,
	};
}

function readFrame(text: string, maxFrameBytes: number): WorkerMessage {
	// A UTF-16 unit is 1 to 3 UTF-8 bytes: most frames need no byte count.
	if (text.length > maxFrameBytes || (text.length * 3 > maxFrameBytes && Buffer.byteLength(text) > maxFrameBytes)) {
		return { kind: "violation", message: `extension protocol frame exceeds ${maxFrameBytes} bytes (max_frame_bytes)` };
	}
	let value: unknown;
	try {
		value = parseFrameText(text);
	} catch (error) {
		return { kind: "violation", message: error instanceof FrameError ? error.message : String(error) };
	}
	if (typeof value !== "object" || value === null || Array.isArray(value)) {
		return { kind: "violation", message: `frame must be a JSON object, got ${kindOf(value)}` };
	}
	return { kind: "frame", frame: value as Record<string, unknown> };
}

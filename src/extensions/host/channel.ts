/**
 * What a runtime gives the host: a duplex of protocol frames. A runtime only
 * moves frames (stdio for processes, a MessagePort for QuickJS); everything the
 * frames mean is the host's business.
 */
import type { HostFrame } from "../protocol/frames.js";

export interface ChannelEvents {
	/** One decoded JSON value (not yet validated as a frame). */
	frame(value: unknown): void;
	/** The channel is unusable: framing broke, the peer exited, or it was terminated. Called once. */
	closed(reason: string): void;
}

export interface Channel {
	/** Starts delivering events; frames sent before `start` are not lost. */
	start(events: ChannelEvents): void;
	/** Encodes and sends; throws `FrameError` (frame_too_large) or when the channel is closed. */
	send(frame: HostFrame): void;
	/** Ends the peer for good (for a process: SIGKILL to its process group). Idempotent. */
	terminate(): Promise<void>;
	/** Resolves when the peer is gone. */
	readonly exited: Promise<void>;
	/** Recent diagnostic output of the peer (a process's stderr tail), for error messages. */
	diagnostics(): string;
	/**
	 * A runtime whose extensions declare a load order (native plugins' `declare.priority`: smaller first):
	 * the host orders such extensions among themselves; the others keep their places.
	 */
	readonly loadPriority?: number;
}

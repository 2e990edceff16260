/**
 * What is left of the host's answer wait: only the native plugin host (native/protocol-io.ts) still imports
 * these, and this file goes when it no longer does. No other runtime reads a pipe under its stream.
 */
import { readSync } from "node:fs";
import { availableParallelism } from "node:os";

/** Whether the plugin host's linger may spin: not on one CPU, not with `PIER_ANSWER_WAIT=off`. */
export const spinningPays = availableParallelism() > 1 && process.env.PIER_ANSWER_WAIT !== "off";

const scratch = Buffer.allocUnsafe(64 * 1024);

/** One look at a non-blocking pipe fd: a copy of what it holds now, `empty`, or `end` (end of file or an error). */
export function readNow(fd: number): Buffer | "empty" | "end" {
	let read: number;
	const limit = Error.stackTraceLimit;
	try {
		Error.stackTraceLimit = 0;
	} catch {
		// Error is frozen: the look just costs more.
	}
	try {
		read = readSync(fd, scratch, 0, scratch.length, null);
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === "EAGAIN" ? "empty" : "end";
	} finally {
		if (Error.stackTraceLimit !== limit) Error.stackTraceLimit = limit;
	}
	return read === 0 ? "end" : Buffer.from(scratch.subarray(0, read));
}

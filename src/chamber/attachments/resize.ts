/**
 * Image resizing for attachments, in a worker per image: decoding is CPU-bound WASM that would hold the daemon's
 * event loop (every session's stream with it), and its memory only shrinks when the worker ends. One image decodes
 * at a time, so simultaneous attachments cannot multiply the memory a large image takes.
 */
import { Worker } from "node:worker_threads";
import type { ImageContent } from "@earendil-works/pi-ai";

export interface ResizeRequest {
	data: string;
	mimeType: string;
}

export interface ResizeResult {
	/** Null when pi's resizer cannot bring the image under its inline size limit. */
	image: ImageContent | null;
	/** pi's note on the original size, for a resized image. */
	note?: string;
}

/** How long one image may take before its worker is ended and the attachment refused. */
export const RESIZE_TIMEOUT_MS = 30_000;

let queue: Promise<unknown> = Promise.resolve();

export function resizeImageOffThread(request: ResizeRequest, timeoutMs = RESIZE_TIMEOUT_MS): Promise<ResizeResult> {
	const turn = queue.then(() => runWorker(request, timeoutMs));
	queue = turn.catch(() => undefined);
	return turn;
}

function runWorker(request: ResizeRequest, timeoutMs: number): Promise<ResizeResult> {
	return new Promise((resolve, reject) => {
		const worker = new Worker(new URL("./image-worker.js", import.meta.url), { workerData: request });
		let settled = false;
		const settle = (outcome: () => void) => {
			if (settled) return;
			settled = true;
			clearTimeout(timer);
			// Answered once the worker is gone, so its memory is back when the caller goes on.
			void worker.terminate().finally(outcome);
		};
		const timer = setTimeout(
			() => settle(() => reject(new Error(`resizing took longer than ${timeoutMs / 1000} s`))),
			timeoutMs,
		);
		worker.once("message", (result: ResizeResult) => settle(() => resolve(result)));
		worker.once("error", (error) => settle(() => reject(error)));
		worker.once("exit", (code) =>
			settle(() => reject(new Error(`the image worker exited with code ${code} before answering`))),
		);
	});
}

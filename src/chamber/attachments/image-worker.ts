/**
 * One image resized off the daemon's main thread, as pi's `@file` reader resizes it. The worker exits after its one
 * image, so the WASM memory the decoder grew goes with it.
 */
import { parentPort, workerData } from "node:worker_threads";
import { dimensionNote, resizeImage } from "../../pi-seams/image-resize.js";
import type { ResizeRequest, ResizeResult } from "./resize.js";

const request = workerData as ResizeRequest;
const resized = await resizeImage(request.data, request.mimeType);
const note = resized ? await dimensionNote(resized) : undefined;
const result: ResizeResult = resized
	? {
			image: { type: "image", data: resized.data, mimeType: resized.mimeType },
			...(note ? { note } : {}),
		}
	: { image: null };
parentPort?.postMessage(result);

/**
 * One image resized off the daemon's main thread, as pi's `@file` reader resizes it. The worker exits after its one
 * image, so the WASM memory the decoder grew goes with it.
 */
import { parentPort, workerData } from "node:worker_threads";
import { piModule } from "../../agent/pi-internals.js";
import type { ResizeRequest, ResizeResult } from "./resize.js";

interface PiImageResize {
	resizeImage(
		img: { type: "image"; data: string; mimeType: string },
		options?: object,
	): Promise<{
		data: string;
		mimeType: string;
		originalWidth: number;
		originalHeight: number;
		width: number;
		height: number;
		wasResized: boolean;
	} | null>;
	formatDimensionNote(result: { wasResized: boolean; originalWidth: number; width: number }): string | undefined;
}

const request = workerData as ResizeRequest;
const pi = await piModule<PiImageResize>("./utils/image-resize.js");
const resized = await pi.resizeImage({ type: "image", data: request.data, mimeType: request.mimeType });
const result: ResizeResult = resized
	? {
			image: { type: "image", data: resized.data, mimeType: resized.mimeType },
			...(pi.formatDimensionNote(resized) ? { note: pi.formatDimensionNote(resized) } : {}),
		}
	: { image: null };
parentPort?.postMessage(result);

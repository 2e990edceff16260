/**
 * pi's image resizing, as its `@file` reader and read tool resize (`utils/image-resize-core.js` and
 * `utils/image-resize.js`, not exported). pier calls it inside its own worker (one per image, so the decoder's
 * memory goes with the worker), so it takes pi's in-process resizer: pi's `resizeImage` would start a second
 * worker from inside that one.
 */
import { moduleExports, piModule, type Seam } from "./seam.js";

const CORE = "dist/utils/image-resize-core.js";
const NOTES = "dist/utils/image-resize.js";

export interface ResizedImage {
	/** Base64, as the input. */
	data: string;
	mimeType: string;
	originalWidth: number;
	originalHeight: number;
	width: number;
	height: number;
	wasResized: boolean;
}

interface ResizeCore {
	resizeImageInProcess(bytes: Uint8Array, mimeType: string, options?: object): Promise<ResizedImage | null>;
}

interface ResizeNotes {
	formatDimensionNote(result: ResizedImage): string | undefined;
}

/** The image within pi's inline limits, or null when pi cannot bring it under them. */
export async function resizeImage(base64: string, mimeType: string): Promise<ResizedImage | null> {
	const core = await piModule<ResizeCore>(CORE);
	return core.resizeImageInProcess(Buffer.from(base64, "base64"), mimeType);
}

/** pi's note to the model on the original size of a resized image. */
export async function dimensionNote(result: ResizedImage): Promise<string | undefined> {
	return (await piModule<ResizeNotes>(NOTES)).formatDimensionNote(result);
}

const id = { name: "image-resize", file: "src/pi-seams/image-resize.ts" };

export const seam: Seam = {
	...id,
	members: [
		"utils/image-resize-core.js (unexported): resizeImageInProcess(bytes, mimeType, options)",
		"utils/image-resize.js (unexported): formatDimensionNote(result)",
	],
	check: moduleExports(id, (roots) => roots.codingAgent, {
		[CORE]: { resizeImageInProcess: 3 },
		[NOTES]: { formatDimensionNote: 1 },
	}),
};

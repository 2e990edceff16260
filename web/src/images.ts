/**
 * Images for a prompt (pasted, dropped or picked) as pi's image content: base64 with its MIME type. A large
 * picture is scaled down in a canvas first (pi resizes to 2000 px too), so a phone photo fits the daemon's
 * 1 MiB request bound.
 */
import type { ImageAttachment } from "./api.js";

const TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
/** Base64 characters all images of one prompt may take (the request body is at most 1 MiB). */
export const IMAGE_BUDGET = 900_000;
const MAX_SIDE = 1568;

function readBase64(blob: Blob): Promise<string> {
	return new Promise((resolve, reject) => {
		const reader = new FileReader();
		reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ""));
		reader.onerror = () => reject(reader.error ?? new Error("could not read the image"));
		reader.readAsDataURL(blob);
	});
}

async function shrink(file: Blob): Promise<Blob> {
	const bitmap = await createImageBitmap(file);
	const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
	const canvas = document.createElement("canvas");
	canvas.width = Math.round(bitmap.width * scale);
	canvas.height = Math.round(bitmap.height * scale);
	canvas.getContext("2d")?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
	return new Promise((resolve, reject) =>
		canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("could not scale the image"))), "image/jpeg", 0.85),
	);
}

export function isImage(file: { type: string }): boolean {
	return TYPES.has(file.type);
}

/** The attachment for a file, or an error naming it and what to do. */
export async function toAttachment(file: File): Promise<ImageAttachment> {
	if (!isImage(file)) throw new Error(`${file.name || "the file"}: only PNG, JPEG, GIF and WebP images attach`);
	let blob: Blob = file;
	let mimeType = file.type as ImageAttachment["mimeType"];
	if (file.size * 1.37 > IMAGE_BUDGET / 2 && file.type !== "image/gif") {
		blob = await shrink(file);
		mimeType = "image/jpeg";
	}
	const data = await readBase64(blob);
	if (data.length > IMAGE_BUDGET)
		throw new Error(`${file.name || "the image"} is too large even scaled down; crop it and try again`);
	return { type: "image", data, mimeType };
}

/** The images of a user message, one at a time, for the thumbnails of its row (the row itself carries a count). */
import type { SessionManager } from "@earendil-works/pi-coding-agent";
import { SessionError } from "./session-error.js";

/** What a page may draw as an image: pi's raster types only (an SVG would carry script). */
const RASTER = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

export interface UserImage {
	mimeType: string;
	/** base64, as pi stores it. */
	data: string;
}

export function userImage(manager: Pick<SessionManager, "getEntry">, entryId: string, n: number): UserImage {
	const entry = manager.getEntry(entryId);
	const message = entry?.type === "message" ? (entry.message as { role?: string; content?: unknown }) : undefined;
	if (message?.role !== "user") {
		throw new SessionError("not_found", `entryId: ${entryId} is not a user message of this session`);
	}
	const images = (Array.isArray(message.content) ? message.content : []).filter(
		(p: { type?: string }) => p?.type === "image",
	) as { mimeType?: unknown; data?: unknown }[];
	const image = images[n];
	if (!image) throw new SessionError("not_found", `image ${n}: the message has ${images.length} image(s)`);
	if (typeof image.mimeType !== "string" || !RASTER.has(image.mimeType) || typeof image.data !== "string") {
		throw new SessionError("bad_file", `image ${n}: not a PNG, JPEG, GIF or WebP image`);
	}
	return { mimeType: image.mimeType, data: image.data };
}

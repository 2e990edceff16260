/**
 * A read-only preview of one project file: text (the page colours it), an image (sent as base64 for a `data:`
 * URL, the only image source the page's CSP allows; the raster types readImageHeader knows, so an SVG is shown
 * as its source), or what
 * it is when it cannot be shown (binary, too large). The file is opened once, through `openProjectFile`, the
 * `outside_project` rule of `@file` attachments, and what is checked is what is read.
 */
import { openProjectFile } from "../attachments/attach.js";
import { readImageHeader } from "../attachments/image-header.js";
import { SessionError } from "../session-error.js";
import { type FilePreview, PREVIEW_IMAGE_MAX_BYTES, PREVIEW_MAX_BYTES } from "./files-wire.js";
import { projectSegments } from "./project-path.js";

/** git's test for a binary file: a NUL byte in the first 8000 bytes. */
const SNIFF_BYTES = 8000;

export async function previewProjectFile(root: string, file: string): Promise<FilePreview> {
	const path = projectSegments("path", file).join("/");
	if (!path) throw new SessionError("bad_request", "path: name a file of the project");
	const { handle } = await openProjectFile(root, path, `path: ${path}`);
	try {
		const info = await handle.stat();
		if (!info.isFile()) throw new SessionError("bad_file", `path: ${path} is not a file`);
		const size = info.size;
		const head = Buffer.alloc(Math.min(size, 64 * 1024));
		if (head.length > 0) await handle.read(head, 0, head.length, 0);
		const image = readImageHeader(head);
		if (image) {
			if (size > PREVIEW_IMAGE_MAX_BYTES) return { kind: "too_large", path, size, limit: PREVIEW_IMAGE_MAX_BYTES };
			const bytes = await handle.readFile();
			return {
				kind: "image",
				path,
				size,
				mimeType: image.mimeType,
				data: bytes.toString("base64"),
			};
		}
		if (head.subarray(0, SNIFF_BYTES).includes(0)) return { kind: "binary", path, size };
		if (size > PREVIEW_MAX_BYTES) return { kind: "too_large", path, size, limit: PREVIEW_MAX_BYTES };
		const text = (await handle.readFile()).toString("utf8");
		return { kind: "text", path, size, text };
	} finally {
		await handle.close();
	}
}

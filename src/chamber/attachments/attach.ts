/**
 * A prompt's `@file` attachments, made as pi's `@file` arguments make them (`<file name="…">…</file>` text, images
 * resized as pi resizes them), with one difference that is the point: each file is opened once, and what is checked
 * (where the open file really is, what it is, how large) is the file that is read. pi's own reader resolves the name
 * again (turning Unicode spaces into ASCII ones, so `shot\u00a0.png` opens `shot .png`) and exits the process on a
 * file it cannot read, so the daemon never hands it a path.
 */
import { constants, readlinkSync, realpathSync } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { ImageContent } from "@earendil-works/pi-ai";
import { SessionError } from "../session-error.js";
import { type ImageHeader, readImageHeader } from "./image-header.js";
import { resizeImageOffThread } from "./resize.js";

/** pi reads a whole file into the prompt; past this a text file is refused with a message instead. */
export const ATTACH_MAX_BYTES = 512 * 1024;
/** An image is resized before it is sent, so it may be larger than a text file, up to this. */
export const IMAGE_MAX_BYTES = 20 * 1024 * 1024;
/** Decoding allocates four bytes a pixel whatever the file's size: a header declaring more is refused unread. */
export const IMAGE_MAX_PIXELS = 50_000_000;

export interface Attachments {
	text: string;
	images: ImageContent[];
}

/** Whether `path` (already resolved, symlinks included) is `root` or under it: the `outside_project` rule. */
export function insideProject(root: string, path: string): boolean {
	const rel = relative(root, path);
	return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/**
 * Where the open file really is. Linux names it from the descriptor itself; elsewhere the name is resolved again and
 * must still be the same file (device and inode) as the one open.
 */
export async function openedPath(handle: FileHandle, name: string): Promise<string> {
	try {
		return readlinkSync(`/proc/self/fd/${handle.fd}`);
	} catch {
		const real = realpathSync(name);
		const [now, open] = await Promise.all([stat(real), handle.stat()]);
		if (now.dev !== open.dev || now.ino !== open.ino) throw new Error("it changed while it was opened");
		return real;
	}
}

export async function attachFiles(cwd: string, files: readonly string[]): Promise<Attachments> {
	const root = realpathSync(cwd);
	const out: Attachments = { text: "", images: [] };
	for (const file of files) await attachOne(root, file, out);
	return out;
}

function refusedOpen(label: string, root: string, error: unknown): SessionError {
	const code = (error as NodeJS.ErrnoException).code;
	const why = code === "ENOENT" ? "no such file" : `cannot be opened (${code ?? (error as Error).message})`;
	return new SessionError("bad_file", `${label}: ${why} in ${root}`);
}

/**
 * Opens a project file for reading, refusing one outside the project (`..`, an absolute path, a symlink leading
 * out): checked by name first so that nothing outside is even opened, then again on what was opened. `label` names
 * the file in errors (`@notes.md`, `path: notes.md`). The caller closes the handle.
 */
export async function openProjectFile(
	root: string,
	file: string,
	label: string,
): Promise<{ handle: FileHandle; real: string }> {
	const name = resolve(root, file);
	let named: string;
	try {
		named = realpathSync(name);
	} catch (error) {
		throw refusedOpen(label, root, error);
	}
	if (!insideProject(root, named)) throw new SessionError("outside_project", `${label}: outside the project (${root})`);
	let handle: FileHandle;
	try {
		// Non-blocking, so a FIFO answers at once instead of holding the request; no controlling terminal either.
		handle = await open(name, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
	} catch (error) {
		throw refusedOpen(label, root, error);
	}
	let real: string;
	try {
		real = await openedPath(handle, name);
	} catch (error) {
		await handle.close();
		throw new SessionError("bad_file", `${label}: cannot be opened: ${(error as Error).message}`);
	}
	if (!insideProject(root, real)) {
		await handle.close();
		throw new SessionError("outside_project", `${label}: outside the project (${root})`);
	}
	return { handle, real };
}

async function attachOne(root: string, file: string, out: Attachments): Promise<void> {
	const { handle, real } = await openProjectFile(root, file, `@${file}`);
	try {
		const info = await handle.stat();
		if (!info.isFile()) throw new SessionError("bad_file", `@${file}: not a file`);
		if (info.size === 0) return; // pi skips empty files
		const head = Buffer.alloc(Math.min(info.size, 64 * 1024));
		await handle.read(head, 0, head.length, 0);
		const image = readImageHeader(head);
		const limit = image ? IMAGE_MAX_BYTES : ATTACH_MAX_BYTES;
		if (info.size > limit) {
			throw new SessionError(
				"bad_file",
				`@${file}: ${info.size} bytes, over the ${limit} bytes a prompt attaches${image ? " for an image" : ""}; mention the path instead and let the agent read it`,
			);
		}
		const bytes = await handle.readFile();
		// The size is read from the whole file: a GIF's frames, a JPEG's frame header, may lie past what was sniffed.
		if (image) await attachImage(file, real, readImageHeader(bytes) ?? image, bytes, out);
		else out.text += `<file name="${real}">\n${bytes.toString("utf8")}\n</file>\n`;
	} finally {
		await handle.close();
	}
}

async function attachImage(file: string, real: string, header: ImageHeader, bytes: Buffer, out: Attachments) {
	const { width, height } = header;
	if (width === undefined || height === undefined) {
		throw new SessionError(
			"bad_file",
			`@${file}: its ${header.mimeType} header does not give its size, so it is not decoded; convert it to PNG and attach that`,
		);
	}
	if (width * height > IMAGE_MAX_PIXELS) {
		throw new SessionError(
			"bad_file",
			`@${file}: ${width}×${height} pixels, over the ${IMAGE_MAX_PIXELS} an attached image may have; scale it down first`,
		);
	}
	let resized: Awaited<ReturnType<typeof resizeImageOffThread>>;
	try {
		resized = await resizeImageOffThread({ data: bytes.toString("base64"), mimeType: header.mimeType });
	} catch (error) {
		throw new SessionError("bad_file", `@${file}: the image could not be read: ${(error as Error).message}`);
	}
	if (!resized.image) {
		out.text += `<file name="${real}">[Image omitted: could not be resized below the inline image size limit.]</file>\n`;
		return;
	}
	out.images.push(resized.image);
	out.text += `<file name="${real}">${resized.note ?? ""}</file>\n`;
}

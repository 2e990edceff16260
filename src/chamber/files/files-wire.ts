/**
 * The file browser's wire (`/api/pi/sessions/:id/files/…`): what a listing, a preview and an upload answer.
 * Imported by the daemon and the web app, so free of Node imports and of typebox (the upload's body, a schema, is in
 * upload-body.ts): the page does not carry a validator.
 */

/** A preview reads at most this much of a text file; past it the page says so instead. */
export const PREVIEW_MAX_BYTES = 512 * 1024;
/** An image preview is sent whole, as base64 in JSON: at most this large. */
export const PREVIEW_IMAGE_MAX_BYTES = 8 * 1024 * 1024;
/** An upload's bytes; base64 in a JSON body, which the daemon bounds at 1 MiB. */
export const UPLOAD_MAX_BYTES = 512 * 1024;
/** How many entries one directory listing returns at most. */
export const LIST_MAX_ENTRIES = 2000;

export interface FileEntry {
	name: string;
	/** Project-relative, with `/`. */
	path: string;
	kind: "dir" | "file";
	/** Bytes, for a file. */
	size?: number;
	/** A symbolic link (inside the project: it is listed as what it points to). */
	link?: true;
	/** A symbolic link leading out of the project: listed so the user sees it, never opened. */
	outside?: true;
}

export interface FileListing {
	/** The directory listed, project-relative ("" for the root). */
	dir: string;
	entries: FileEntry[];
	/** More entries than LIST_MAX_ENTRIES: the rest are left out. */
	truncated?: true;
	/** Whether `.gitignore` was applied through git (a repository) or read from the root `.gitignore`. */
	ignore: "git" | "gitignore" | "none";
}

export type FilePreview =
	| { kind: "text"; path: string; size: number; text: string }
	| {
			kind: "image";
			path: string;
			size: number;
			mimeType: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
			data: string;
	  }
	| { kind: "binary"; path: string; size: number }
	| { kind: "too_large"; path: string; size: number; limit: number };

export interface UploadResult {
	path: string;
	size: number;
	/** An existing file was replaced (only with `overwrite`). */
	replaced: boolean;
}

/**
 * What an image file is, read from its first bytes: the type pi would send it as (the signatures pi's own sniffer
 * accepts) and the pixel size its header declares, so a decompression bomb is refused before anything decodes it.
 */

export type ImageMime = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export interface ImageHeader {
	mimeType: ImageMime;
	/** Undefined when the header does not say (a truncated or unusual file): such a file is not decoded. */
	width?: number;
	height?: number;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, at: number, expected: readonly number[] | string): boolean {
	if (bytes.length < at + expected.length) return false;
	for (let i = 0; i < expected.length; i++) {
		const want = typeof expected === "string" ? expected.charCodeAt(i) : expected[i];
		if (bytes[at + i] !== want) return false;
	}
	return true;
}

const u16be = (b: Uint8Array, at: number) => ((b[at] ?? 0) << 8) | (b[at + 1] ?? 0);
const u16le = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
const u24le = (b: Uint8Array, at: number) => (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8) | ((b[at + 2] ?? 0) << 16);
const u32be = (b: Uint8Array, at: number) => (((b[at] ?? 0) << 24) | ((b[at + 1] ?? 0) << 16) | u16be(b, at + 2)) >>> 0;

/** The image type and declared size of `bytes`, or undefined when pi would read the file as text. */
export function readImageHeader(bytes: Uint8Array): ImageHeader | undefined {
	if (startsWith(bytes, 0, [0xff, 0xd8, 0xff])) {
		// pi reads JPEG-LS (0xF7) as text; so does pier.
		return bytes[3] === 0xf7 ? undefined : { mimeType: "image/jpeg", ...jpegSize(bytes) };
	}
	if (startsWith(bytes, 0, PNG_SIGNATURE)) {
		if (bytes.length < 24 || u32be(bytes, 8) !== 13 || !startsWith(bytes, 12, "IHDR")) return undefined;
		if (isAnimatedPng(bytes)) return undefined; // pi sends APNG as text too
		return { mimeType: "image/png", width: u32be(bytes, 16), height: u32be(bytes, 20) };
	}
	if (startsWith(bytes, 0, "GIF")) {
		return { mimeType: "image/gif", ...(bytes.length >= 13 ? gifSize(bytes) : {}) };
	}
	if (startsWith(bytes, 0, "RIFF") && startsWith(bytes, 8, "WEBP"))
		return { mimeType: "image/webp", ...webpSize(bytes) };
	return undefined;
}

function isAnimatedPng(bytes: Uint8Array): boolean {
	let at = PNG_SIGNATURE.length;
	while (at + 8 <= bytes.length) {
		if (startsWith(bytes, at + 4, "acTL")) return true;
		if (startsWith(bytes, at + 4, "IDAT")) return false;
		const next = at + 12 + u32be(bytes, at);
		if (next <= at) return false;
		at = next;
	}
	return false;
}

/** The logical screen, and every frame's own extent (a frame may declare more than the screen). */
function gifSize(bytes: Uint8Array): { width?: number; height?: number } {
	let width = u16le(bytes, 6);
	let height = u16le(bytes, 8);
	const flags = bytes[10] ?? 0;
	let at = 13 + (flags & 0x80 ? 3 * 2 ** ((flags & 7) + 1) : 0);
	const skipSubBlocks = () => {
		while (at < bytes.length && bytes[at] !== 0) at += 1 + (bytes[at] ?? 0);
		at++;
	};
	for (;;) {
		// Cut before its trailer: a frame may follow that was not seen, so the size is not vouched for.
		if (at >= bytes.length) return {};
		const block = bytes[at];
		if (block === 0x3b) break;
		if (block === 0x21) {
			at += 2;
			skipSubBlocks();
		} else if (block === 0x2c) {
			if (at + 10 > bytes.length) return {};
			width = Math.max(width, u16le(bytes, at + 1) + u16le(bytes, at + 5));
			height = Math.max(height, u16le(bytes, at + 3) + u16le(bytes, at + 7));
			const local = bytes[at + 9] ?? 0;
			at += 10 + (local & 0x80 ? 3 * 2 ** ((local & 7) + 1) : 0) + 1;
			skipSubBlocks();
		} else return {}; // not a block GIF knows: its size cannot be vouched for
	}
	return { width, height };
}

/** The first start-of-frame segment's size; markers C4 (Huffman), C8 (reserved) and CC (arithmetic) are not frames. */
function jpegSize(bytes: Uint8Array): { width?: number; height?: number } {
	let at = 2;
	while (at + 9 < bytes.length) {
		if (bytes[at] !== 0xff) return {};
		const marker = bytes[at + 1] ?? 0;
		if (marker === 0xff) {
			at++;
			continue;
		}
		if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
			at += 2;
			continue;
		}
		if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
			return { height: u16be(bytes, at + 5), width: u16be(bytes, at + 7) };
		}
		if (marker === 0xda || marker === 0xd9) return {};
		at += 2 + u16be(bytes, at + 2);
	}
	return {};
}

function webpSize(bytes: Uint8Array): { width?: number; height?: number } {
	if (startsWith(bytes, 12, "VP8X") && bytes.length >= 30) {
		return { width: 1 + u24le(bytes, 24), height: 1 + u24le(bytes, 27) };
	}
	if (startsWith(bytes, 12, "VP8L") && bytes.length >= 25) {
		const b1 = bytes[22] ?? 0;
		const b2 = bytes[23] ?? 0;
		const b3 = bytes[24] ?? 0;
		return {
			width: 1 + (((b1 & 0x3f) << 8) | (bytes[21] ?? 0)),
			height: 1 + (((b3 & 0x0f) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)),
		};
	}
	if (startsWith(bytes, 12, "VP8 ") && bytes.length >= 30) {
		return { width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff };
	}
	return {};
}

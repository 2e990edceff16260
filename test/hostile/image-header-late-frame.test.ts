/**
 * Review of issue 27, finding 5: an attached image's size is read from "every GIF frame", but only from the first
 * 64 KiB that attach.ts reads. A GIF whose first frame comes after a 70 KB comment extension is vouched for at its
 * 10×10 screen; photon then decodes that frame at its own 11,000×11,000 (121 MP, 2.4× the bound; ~640 MB in the
 * worker, measured). A walk that runs off the bytes it was given should vouch for nothing.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { readImageHeader } from "../../src/chamber/attachments/image-header.js";
import { IMAGE_MAX_PIXELS } from "../../src/chamber/attachments/attach.js";

function gifWithLateFrame(): Buffer {
	const screen = Buffer.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 10, 0, 10, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]);
	const comment: number[] = [0x21, 0xfe];
	for (let left = 70_000; left > 0; left -= 255) {
		const n = Math.min(255, left);
		comment.push(n, ...new Array<number>(n).fill(0x41));
	}
	comment.push(0);
	// Image descriptor at 0,0 of 11000×11000, no local table, then LZW min code size 2 and clear+end.
	const frame = Buffer.from([0x2c, 0, 0, 0, 0, 0xf8, 0x2a, 0xf8, 0x2a, 0, 2, 2, 0x4c, 0x01, 0, 0x3b]);
	return Buffer.concat([screen, Buffer.from(comment), frame]);
}

test("a GIF frame past the bytes the header check reads is not vouched for at the screen's size", () => {
	const file = gifWithLateFrame();
	const header = readImageHeader(file.subarray(0, 64 * 1024)); // what attach.ts gives it
	assert.ok(header, "sniffed as an image");
	const { width, height } = header;
	assert.ok(
		width === undefined || height === undefined || width * height > IMAGE_MAX_PIXELS,
		`vouched for at ${width}×${height}, but its first frame is 11000×11000`,
	);
});

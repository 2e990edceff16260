/**
 * Image headers as the daemon reads them before anything decodes: the type pi would send and the size the file
 * declares, from images a real encoder (photon, the one pi resizes with) wrote, and from GIFs written by hand where
 * a frame declares more than the screen.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";
import { readImageHeader } from "../../src/chamber/attachments/image-header.js";

const photon = createRequire(import.meta.resolve("@earendil-works/pi-coding-agent"))("@silvia-odwyer/photon-node") as {
	PhotonImage: new (
		raw: Uint8Array,
		width: number,
		height: number,
	) => {
		get_bytes(): Uint8Array;
		get_bytes_jpeg(quality: number): Uint8Array;
		get_bytes_webp(): Uint8Array;
		free(): void;
	};
};

test("PNG, JPEG and WebP written by photon give their type and size", () => {
	const image = new photon.PhotonImage(new Uint8Array(37 * 23 * 4).fill(128), 37, 23);
	try {
		assert.deepEqual(readImageHeader(image.get_bytes()), { mimeType: "image/png", width: 37, height: 23 });
		assert.deepEqual(readImageHeader(image.get_bytes_jpeg(80)), { mimeType: "image/jpeg", width: 37, height: 23 });
		assert.deepEqual(readImageHeader(image.get_bytes_webp()), { mimeType: "image/webp", width: 37, height: 23 });
	} finally {
		image.free();
	}
});

test("a JPEG's size is found past a large segment before its frame", () => {
	const image = new photon.PhotonImage(new Uint8Array(5 * 7 * 4), 5, 7);
	const jpeg = Buffer.from(image.get_bytes_jpeg(80));
	image.free();
	const exif = Buffer.alloc(4 + 40_000);
	exif.writeUInt16BE(0xffe1, 0);
	exif.writeUInt16BE(40_002, 2);
	const withExif = Buffer.concat([jpeg.subarray(0, 2), exif, jpeg.subarray(2)]);
	assert.deepEqual(readImageHeader(withExif), { mimeType: "image/jpeg", width: 5, height: 7 });
	// Cut before the frame: the type is known, the size is not vouched for.
	assert.deepEqual(readImageHeader(withExif.subarray(0, 1000)), { mimeType: "image/jpeg" });
});

function gif(screen: [number, number], frame: [number, number, number, number]): Buffer {
	const head = Buffer.from("GIF89a\0\0\0\0\0\0\0", "latin1");
	head.writeUInt16LE(screen[0], 6);
	head.writeUInt16LE(screen[1], 8);
	const extension = Buffer.from([0x21, 0xf9, 4, 0, 0, 0, 0, 0]);
	const descriptor = Buffer.alloc(10);
	descriptor[0] = 0x2c;
	frame.forEach((v, i) => {
		descriptor.writeUInt16LE(v, 1 + 2 * i);
	});
	return Buffer.concat([head, extension, descriptor, Buffer.from([2, 2, 0x4c, 0x01, 0, 0x3b])]);
}

test("a GIF's size is the largest of its screen and its frames", () => {
	assert.deepEqual(readImageHeader(gif([10, 10], [0, 0, 10, 10])), { mimeType: "image/gif", width: 10, height: 10 });
	assert.deepEqual(readImageHeader(gif([1, 1], [5, 0, 16_000, 16_000])), {
		mimeType: "image/gif",
		width: 16_005,
		height: 16_000,
	});
	// A block GIF does not know: no size, so it is not decoded.
	const odd = gif([1, 1], [0, 0, 1, 1]);
	odd[13] = 0x99;
	assert.deepEqual(readImageHeader(odd), { mimeType: "image/gif" });
});

test("what pi reads as text is not an image here either", () => {
	assert.equal(readImageHeader(Buffer.from("just text")), undefined);
	assert.equal(readImageHeader(Buffer.from([0xff, 0xd8, 0xff, 0xf7, 0, 0])), undefined); // JPEG-LS
	assert.equal(readImageHeader(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0])), undefined);
});

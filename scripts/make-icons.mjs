// The installable app's icons (web/public/icons/), drawn here so they can be made again without an image editor:
//
//   node scripts/make-icons.mjs
//
// A pier over water, white on the chamber's accent blue. `icon-*.png` are rounded squares on a transparent ground
// (purpose "any"); `maskable-512.png` fills the square and keeps the drawing inside the middle 80 %, the safe zone a
// platform's mask (a circle, a squircle) never cuts. PNG is written by hand with node:zlib: no dependency.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";

const OUT = fileURLToPath(new URL("../web/public/icons", import.meta.url));
const ACCENT = [47, 111, 223];
const WHITE = [255, 255, 255];
const SAMPLES = 4;

/** Is (x, y), in units of the drawing's square (0..1), white ink? */
function ink(x, y) {
	const deck = y >= 0.4 && y <= 0.47 && x >= 0.16 && x <= 0.84;
	const rail = y >= 0.3 && y <= 0.34 && x >= 0.22 && x <= 0.78;
	const railPosts = y >= 0.3 && y <= 0.4 && [0.24, 0.5, 0.76].some((px) => Math.abs(x - px) <= 0.02);
	const legs = y >= 0.47 && y <= 0.68 && [0.24, 0.5, 0.76].some((px) => Math.abs(x - px) <= 0.035);
	const wave = (cy) => {
		const w = cy + 0.025 * Math.sin((x - 0.16) * Math.PI * 6);
		return x >= 0.16 && x <= 0.84 && Math.abs(y - w) <= 0.018;
	};
	return deck || rail || railPosts || legs || wave(0.72) || wave(0.82);
}

/** The rounded square of an "any" icon. */
function inRoundedSquare(x, y, radius) {
	const cx = Math.min(Math.max(x, radius), 1 - radius);
	const cy = Math.min(Math.max(y, radius), 1 - radius);
	return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2;
}

function draw(size, maskable) {
	const pixels = Buffer.alloc(size * size * 4);
	// A maskable icon's drawing sits in the middle 80 %.
	const scale = maskable ? 0.8 : 1;
	const offset = (1 - scale) / 2;
	for (let py = 0; py < size; py++) {
		for (let px = 0; px < size; px++) {
			let shape = 0;
			let white = 0;
			for (let sy = 0; sy < SAMPLES; sy++) {
				for (let sx = 0; sx < SAMPLES; sx++) {
					const x = (px + (sx + 0.5) / SAMPLES) / size;
					const y = (py + (sy + 0.5) / SAMPLES) / size;
					if (!maskable && !inRoundedSquare(x, y, 0.2)) continue;
					shape++;
					if (ink((x - offset) / scale, (y - offset) / scale)) white++;
				}
			}
			const n = SAMPLES * SAMPLES;
			const i = (py * size + px) * 4;
			const t = shape === 0 ? 0 : white / shape;
			for (let c = 0; c < 3; c++) pixels[i + c] = Math.round(ACCENT[c] * (1 - t) + WHITE[c] * t);
			pixels[i + 3] = Math.round((255 * shape) / n);
		}
	}
	return png(size, pixels);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
	let c = n;
	for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
	return c >>> 0;
});

function crc32(bytes) {
	let c = 0xffffffff;
	for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
	const length = Buffer.alloc(4);
	length.writeUInt32BE(data.length);
	const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(body));
	return Buffer.concat([length, body, crc]);
}

function png(size, rgba) {
	const header = Buffer.alloc(13);
	header.writeUInt32BE(size, 0);
	header.writeUInt32BE(size, 4);
	header[8] = 8; // bit depth
	header[9] = 6; // RGBA
	const rows = Buffer.alloc(size * (size * 4 + 1));
	for (let y = 0; y < size; y++) rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk("IHDR", header),
		chunk("IDAT", deflateSync(rows, { level: 9 })),
		chunk("IEND", Buffer.alloc(0)),
	]);
}

mkdirSync(OUT, { recursive: true });
for (const [name, size, maskable] of [
	["icon-192.png", 192, false],
	["icon-512.png", 512, false],
	["maskable-512.png", 512, true],
	["apple-touch-icon.png", 180, true],
]) {
	writeFileSync(join(OUT, name), draw(size, maskable));
	process.stdout.write(`${join(OUT, name)}\n`);
}

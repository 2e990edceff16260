/**
 * The terminal's scrollback bound, exactly: at the bound everything stays; one byte past it the oldest byte goes;
 * a cut never leaves half a UTF-8 character, and starts at a line when one begins soon after it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Scrollback } from "../../src/chamber/terminal/scrollback.js";
import { TERMINAL_LIMITS } from "../../src/chamber/terminal/terminal-wire.js";

const MAX = TERMINAL_LIMITS.scrollbackBytes;

test("at the bound everything is kept; one byte past it the oldest byte is dropped", () => {
	const full = new Scrollback(MAX);
	full.append("a");
	full.append("b".repeat(MAX - 2));
	full.append("c");
	assert.equal(full.bytes, MAX);
	assert.equal(full.text(), `a${"b".repeat(MAX - 2)}c`);

	full.append("d");
	assert.equal(full.bytes, MAX);
	const text = full.text();
	assert.equal(text.length, MAX);
	assert.equal(text[0], "b");
	assert.equal(text.at(-1), "d");
});

test("whole chunks go first, then the oldest kept one is cut; many small writes stay bounded", () => {
	const ring = new Scrollback(100);
	for (let n = 0; n < 1000; n++) ring.append(`${String(n).padStart(3, "0")}|`);
	assert.equal(ring.bytes, 100);
	assert.ok(ring.text().endsWith("998|999|"));
	ring.append("x".repeat(250));
	assert.equal(ring.text(), "x".repeat(100));
});

test("a cut never splits a UTF-8 character", () => {
	const ring = new Scrollback(10);
	// "é" is 2 bytes: 6 of them are 12 bytes, 2 past the bound; the cut lands on a character boundary.
	ring.append("éééééé");
	assert.equal(ring.text(), "ééééé");
	assert.equal(ring.bytes, 10);
	// 3 + 4 + 4 bytes ("€", "😀" twice) = 11: the euro sign (3 bytes) goes whole, not 1 byte of it.
	const emoji = new Scrollback(10);
	emoji.append("€😀😀");
	assert.equal(emoji.text(), "😀😀");
	assert.equal(emoji.bytes, 8);
});

test("a cut starts the replay at the next line when one begins within 4 KiB", () => {
	const ring = new Scrollback(1000);
	ring.append(`${"a".repeat(500)}\x1b[31mhalf-line\n`);
	ring.append(`next line\n${"z".repeat(400)}`);
	// 515 + 410 = 925 bytes: nothing cut yet.
	assert.ok(ring.text().startsWith("aaa"));
	ring.append("y".repeat(100));
	// Past the bound the cut lands inside the a's; the replay starts after the partial line and its escape.
	assert.ok(ring.text().startsWith("next line\n"), JSON.stringify(ring.text().slice(0, 20)));
	assert.ok(ring.bytes <= 1000);
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
	checkMaxFrameBytes,
	DEFAULT_MAX_FRAME_BYTES,
	encodeFrame,
	encodeFrameText,
	FrameDecoder,
	FrameError,
	MIN_MAX_FRAME_BYTES,
} from "../../src/extensions/protocol/codec.js";
import { jsonTextTooDeep, MAX_JSON_DEPTH, valueTooDeep } from "../../src/extensions/protocol/depth.js";

const bytes = (text: string) => Buffer.from(text, "utf8");

function failsWith(fn: () => unknown, code: string, message: RegExp) {
	assert.throws(fn, (error: unknown) => {
		assert.ok(error instanceof FrameError);
		assert.equal(error.code, code);
		assert.match(error.message, message);
		return true;
	});
}

describe("frame codec", () => {
	test("decodes frames split across and packed into chunks", () => {
		const d = new FrameDecoder();
		assert.deepEqual(d.push(bytes('{"a":')), []);
		assert.deepEqual(d.push(bytes('1}\n{"b":2}\n{"c"')), [{ a: 1 }, { b: 2 }]);
		assert.deepEqual(d.push(bytes(":3}\n")), [{ c: 3 }]);
		d.end();
	});

	test("multi-byte UTF-8 split across chunks survives", () => {
		const d = new FrameDecoder();
		const frame = bytes('{"t":"é°☃"}\n');
		assert.deepEqual(d.push(frame.subarray(0, 8)), []);
		assert.deepEqual(d.push(frame.subarray(8)), [{ t: "é°☃" }]);
	});

	test("the limit excludes the LF: exactly max bytes passes, one more fails", () => {
		const max = MIN_MAX_FRAME_BYTES;
		const at = `"${"x".repeat(max - 2)}"`;
		assert.equal(Buffer.byteLength(at), max);
		assert.deepEqual(new FrameDecoder(max).push(bytes(`${at}\n`)), ["x".repeat(max - 2)]);
		failsWith(() => new FrameDecoder(max).push(bytes(`"${"x".repeat(max - 1)}"\n`)), "frame_too_large", /1024/);
	});

	test("an oversized frame fails before its LF arrives (nothing buffered past the limit)", () => {
		const d = new FrameDecoder(MIN_MAX_FRAME_BYTES);
		d.push(bytes("x".repeat(1000)));
		failsWith(() => d.push(bytes("x".repeat(25))), "frame_too_large", /without LF/);
		failsWith(() => d.push(bytes("{}\n")), "frame_too_large", /./);
	});

	test("blank lines, CRLF, a final frame without LF, invalid UTF-8 and invalid JSON are rejected", () => {
		failsWith(() => new FrameDecoder().push(bytes("\n")), "invalid_frame", /blank line/);
		failsWith(() => new FrameDecoder().push(bytes('{"a":1}\n\n')), "invalid_frame", /blank line/);
		failsWith(() => new FrameDecoder().push(bytes('{"a":1}\r\n')), "invalid_frame", /CRLF/);
		const partial = new FrameDecoder();
		partial.push(bytes('{"a":1}'));
		failsWith(() => partial.end(), "invalid_frame", /final frame has no LF/);
		failsWith(() => new FrameDecoder().push(Buffer.from([0x22, 0xff, 0x22, 0x0a])), "invalid_frame", /UTF-8/);
		failsWith(() => new FrameDecoder().push(Buffer.from([0x22, 0xc3, 0x22, 0x0a])), "invalid_frame", /UTF-8/);
		failsWith(() => new FrameDecoder().push(bytes("{nope}\n")), "invalid_frame", /not valid JSON/);
	});

	test("frames packed into one chunk fail at the first bad one, whatever path decodes them", () => {
		// A literal U+FFFD is valid UTF-8 and decodes; a broken sequence after good frames fails the chunk.
		assert.deepEqual(new FrameDecoder().push(bytes('{"t":"\uFFFD"}\n{"u":1}\n{"v"')), [{ t: "\uFFFD" }, { u: 1 }]);
		const bad = Buffer.concat([bytes('{"a":1}\n'), Buffer.from([0x22, 0xff, 0x22, 0x0a]), bytes('{"b":2}\n')]);
		failsWith(() => new FrameDecoder().push(bad), "invalid_frame", /UTF-8/);
		failsWith(() => new FrameDecoder().push(bytes('{"a":1}\n{"b":2}\r\n')), "invalid_frame", /CRLF/);
		failsWith(() => new FrameDecoder().push(bytes('{"a":1}\n{nope}\n{"c":3}\n')), "invalid_frame", /not valid JSON/);
		// Whole lines then a tail past the limit: the tail fails before its LF arrives.
		failsWith(
			() => new FrameDecoder(MIN_MAX_FRAME_BYTES).push(bytes(`{"a":1}\n${"x".repeat(1025)}`)),
			"frame_too_large",
			/without LF/,
		);
		// Plain Uint8Array chunks decode as Buffers do.
		const d = new FrameDecoder();
		assert.deepEqual(d.push(new Uint8Array(bytes('{"a":1}\n{"b"'))), [{ a: 1 }]);
		assert.deepEqual(d.push(new Uint8Array(bytes(":2}\n"))), [{ b: 2 }]);
	});

	test("encoding refuses a frame past the limit and terminates with LF", () => {
		assert.equal(encodeFrame({ a: 1 }).toString(), '{"a":1}\n');
		failsWith(
			() => encodeFrame("x".repeat(2000), 1024),
			"frame_too_large",
			/frame exceeds 1024 bytes \(max_frame_bytes; this one is \d+\)/,
		);
		// The byte count, not the character count: 341 three-byte characters fit in 1,024 bytes, 342 do not.
		assert.equal(encodeFrameText("☃".repeat(340), 1024), `"${"☃".repeat(340)}"\n`);
		failsWith(() => encodeFrameText("☃".repeat(341), 1024), "frame_too_large", /this one is 1025\)/);
	});

	test("max_frame_bytes defaults to 1 MiB and cannot go below 1,024", () => {
		assert.equal(new FrameDecoder().maxFrameBytes, DEFAULT_MAX_FRAME_BYTES);
		assert.equal(DEFAULT_MAX_FRAME_BYTES, 1_048_576);
		assert.equal(checkMaxFrameBytes(1024), 1024);
		assert.throws(() => checkMaxFrameBytes(1023), /at least 1024/);
		assert.throws(() => new FrameDecoder(1023), RangeError);
	});

	test("nesting: 128 levels pass, 129 fail at the frame, whatever path decodes them; strings do not count", () => {
		assert.equal(MAX_JSON_DEPTH, 128);
		const nested = (n: number, open = "[", close = "]") => open.repeat(n) + close.repeat(n);
		const frame = (n: number) => `{"type":"update","id":"x","value":${nested(n - 1)}}`;
		assert.deepEqual(new FrameDecoder().push(bytes(`${frame(128)}\n`)).length, 1);
		failsWith(
			() => new FrameDecoder().push(bytes(`${frame(129)}\n`)),
			"invalid_frame",
			/nesting deeper than 128 levels/,
		);
		// The general path (a frame split across chunks) refuses the same.
		const split = new FrameDecoder();
		split.push(bytes(frame(129).slice(0, 100)));
		failsWith(() => split.push(bytes(`${frame(129).slice(100)}\n`)), "invalid_frame", /nesting deeper than 128/);
		const objects = `{"a":${'{"b":'.repeat(128)}1${"}".repeat(128)}}`;
		failsWith(() => new FrameDecoder().push(bytes(`${objects}\n`)), "invalid_frame", /nesting deeper than 128/);
		// Brackets inside strings, escaped quotes included, are text.
		const text = JSON.stringify({ s: `${"[".repeat(500)}\\"${"{".repeat(500)}`, t: "\\" });
		assert.equal(jsonTextTooDeep(text), false);
		assert.deepEqual(new FrameDecoder().push(bytes(`${text}\n`)), [JSON.parse(text)]);
		assert.equal(jsonTextTooDeep(nested(128)), false);
		assert.equal(jsonTextTooDeep(nested(129)), true);
		assert.equal(jsonTextTooDeep(nested(129, '{"k":', "}")), true);

		let value: unknown = [];
		for (let i = 1; i < 128; i++) value = [value];
		assert.equal(valueTooDeep(value), false);
		assert.equal(valueTooDeep([value]), true);
		const cycle: Record<string, unknown> = {};
		cycle.self = cycle;
		assert.equal(valueTooDeep(cycle), true, "a cycle is infinitely deep");
	});
});

/**
 * Seeded fuzz input for the protocol's inbound side: valid extension frames, and mutations of them that a
 * hostile or broken extension could send (truncation, byte flips, deep nesting, huge numbers, wrong types,
 * unknown fields, non-UTF-8, NUL, CR, oversize, random bytes). The same seed gives the same frames.
 */

/** mulberry32: small, fast, and good enough to make failures reproducible. */
export class Random {
	private state: number;
	constructor(readonly seed: number) {
		this.state = seed >>> 0;
	}
	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}
	int(n: number): number {
		return Math.floor(this.next() * n);
	}
	pick<T>(items: readonly T[]): T {
		return items[this.int(items.length)]!;
	}
	chance(p: number): boolean {
		return this.next() < p;
	}
}

/** Placeholder for the id of a request the host has pending; the harness substitutes a real one. */
export const PENDING = "@pending";

const RESULTS = [
	{ status: "success", value: { content: [{ type: "text", text: "ok" }] } },
	{ status: "success" },
	{ status: "failure", error: { code: "extension_error", message: "boom" } },
];

/** Valid frames of every extension → host type (most of them legal in some phase). */
function validFrame(r: Random): Record<string, unknown> {
	switch (r.int(12)) {
		case 0:
			return {
				type: "hello",
				protocolVersion: 1,
				manifest: {
					id: "fuzz",
					name: "Fuzz",
					version: "1.0.0",
					capabilities: ["tools", "ui"],
					uiCapabilities: ["notify"],
				},
			};
		case 1:
			return {
				type: "register",
				registration: {
					kind: "tool",
					tool: { name: `t${r.int(9)}`, label: "T", description: "d", parameters: { type: "object" } },
				},
			};
		case 2:
			return { type: "register", registration: { kind: "command", command: { name: `c${r.int(9)}` } } };
		case 3:
		case 4:
			return { type: "response", id: PENDING, result: r.pick(RESULTS) };
		case 5:
			return { type: "update", id: PENDING, value: { content: [{ type: "text", text: "partial" }] } };
		case 6:
			return {
				type: "request",
				id: `x${r.int(1e6)}`,
				request: { kind: "ui", ui: { request: { type: "notify", message: "hi", level: "info" } } },
			};
		case 7:
			return {
				type: "request",
				id: `x${r.int(1e6)}`,
				request: { kind: "action", action: { kind: "append_entry", customType: "fuzz", data: { n: r.int(100) } } },
			};
		case 8:
			return { type: "cancel", id: `x${r.int(1e6)}` };
		case 9:
			return { type: "unregister_provider", id: "p" };
		case 10:
			return { type: "response", id: `unknown-${r.int(1e6)}`, result: r.pick(RESULTS) };
		default:
			return { type: "update", id: `unknown-${r.int(1e6)}`, value: r.int(1e6) };
	}
}

const DEPTHS = [1, 2, 60, 124, 125, 126, 127, 128, 129, 130, 1_000, 8_000];
const NUMBERS = [
	"1e400",
	"-1e400",
	"1e-400",
	"-0",
	"123456789012345678901234567890123456789",
	"0.1e99999",
	"9007199254740993",
];
const WRONG = [null, 0, -1, 1.5, "", "x", true, false, [], {}, [1, [2, [3]]], { type: "response" }];
const KEYS = ["__proto__", "constructor", "prototype", "x", "", "type", "id", "toString", "\u0000", "\ud800"];
const BAD_BYTES = [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x00], [0x0d]];

/** Every object inside `value` (itself included). */
function objects(value: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
	if (typeof value === "object" && value !== null) {
		if (!Array.isArray(value)) out.push(value as Record<string, unknown>);
		for (const child of Object.values(value)) objects(child, out);
	}
	return out;
}

const MARK = '"\u0001mark\u0001"';

/** One frame's bytes, without its LF: valid, or mutated in one or two of many ways. */
export function fuzzFrame(r: Random, maxFrameBytes: number): Buffer {
	// Copies: the mutations below write into the frame, and the corpus shares its pieces.
	const frame = structuredClone(validFrame(r));
	const wrong = () => structuredClone(r.pick(WRONG));
	let inject: string | undefined;
	const rounds = r.chance(0.15) ? 0 : 1 + r.int(2);
	const targets = () => objects(frame);
	let rewriteBytes = false;
	for (let i = 0; i < rounds; i++) {
		const target = r.pick(targets());
		const keys = Object.keys(target);
		const key = keys.length > 0 ? r.pick(keys) : "x";
		switch (r.int(13)) {
			case 0: {
				// deep nesting at a value
				const depth = r.pick(DEPTHS);
				inject = "[".repeat(depth) + "]".repeat(depth);
				target[key] = MARK;
				break;
			}
			case 1: // huge numbers
				inject = r.pick(NUMBERS);
				target[key] = MARK;
				break;
			case 2: // wrong types
				target[key] = wrong();
				break;
			case 3: // unknown fields
				target[r.pick(KEYS)] = wrong();
				break;
			case 4: // oversize
				target[key] = "x".repeat(maxFrameBytes + r.int(64));
				break;
			case 5: // lone surrogates and escaped NUL inside strings
				target[key] = r.pick(["\ud800", "\udfff", "a\u0000b", "\u2028", "\uffff"]);
				break;
			case 6: // the frame is not an object
				return Buffer.from(JSON.stringify(r.pick([null, 1, "frame", [frame], true, 1e308])));
			case 7: // random bytes
				return Buffer.from(Array.from({ length: r.int(200) }, () => r.int(256)));
			default: // mutate the encoding itself (below)
				rewriteBytes = true;
		}
	}
	const json = JSON.stringify(frame);
	const encoded = inject === undefined ? json : json.replace(MARK, inject);
	const bytes = Buffer.from(encoded, "utf8");
	return rewriteBytes ? mutateBytes(r, bytes) : bytes;
}

function mutateBytes(r: Random, bytes: Buffer): Buffer {
	switch (r.int(6)) {
		case 0: // truncation
			return bytes.subarray(0, r.int(bytes.length));
		case 1: {
			// byte flips
			const copy = Buffer.from(bytes);
			for (let n = 1 + r.int(4); n > 0 && copy.length > 0; n--) copy[r.int(copy.length)] = r.int(256);
			return copy;
		}
		case 2: {
			// non-UTF-8, NUL or CR inserted anywhere
			const at = r.int(bytes.length + 1);
			return Buffer.concat([bytes.subarray(0, at), Buffer.from(r.pick(BAD_BYTES)), bytes.subarray(at)]);
		}
		case 3: // CR at the end (a CRLF line)
			return Buffer.concat([bytes, Buffer.from([0x0d])]);
		case 4: // an LF inside: two frames, each half of one
			return Buffer.concat([
				bytes.subarray(0, bytes.length >> 1),
				Buffer.from([0x0a]),
				bytes.subarray(bytes.length >> 1),
			]);
		default: // whitespace around, or nothing at all
			return r.chance(0.5) ? Buffer.from(` ${bytes.toString("latin1")} `, "latin1") : Buffer.alloc(0);
	}
}

/** Messages a QuickJS worker's port could carry that are not frame strings. */
export function fuzzControl(r: Random): unknown {
	return r.pick<unknown>([
		42,
		null,
		undefined,
		true,
		[],
		["{}"],
		{},
		{ fatal: 1 },
		{ fatal: "x", extra: 1 },
		{ ready: false },
		{ ready: true, fatal: "x" },
		{ type: "response", id: PENDING, result: { status: "success" } },
		new Uint8Array([123, 125]),
		new Map(),
		Object.create(null),
	]);
}

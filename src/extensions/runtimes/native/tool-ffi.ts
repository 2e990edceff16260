/**
 * A tool's functions bound for the path every tool call takes (execute → poll → take the payload → destroy),
 * declared so koffi does as little as possible per crossing: every pointer is a plain integer (`uintptr_t`:
 * no External to wrap or unwrap), no struct object is built or read, the step result lands in one reused
 * 24-byte buffer and a plugin string is copied out with one `memcpy` into a reused buffer.
 *
 * Why these declarations call the same C functions (native-abi.md §2): a `StbString`/`StbStringRef` by value
 * is two INTEGER eightbytes, passed in two consecutive general registers on x86-64 SysV and AAPCS64 alike
 * (these functions take at most five such words, well within the six/eight argument registers), exactly
 * like a `(ptr, len)` pair of arguments. A `StepResult` (24 bytes) is returned through a hidden pointer: on
 * x86-64 that pointer is the first integer argument (rdi) and comes back in rax, so `poll` is declared as
 * taking its out-buffer first. On aarch64 it travels in x8, which no koffi signature can name: there `poll`
 * keeps its struct return (with integer fields).
 */
import { HOST_FREE, koffi } from "./abi.js";

/** A plugin handle or pointer as koffi gives a `uintptr_t`: a number, or a BigInt past 2^53. */
export type Address = number | bigint;

export interface ToolPointers {
	execute: unknown;
	poll: unknown;
	cancel: unknown;
	destroy: unknown;
	free: unknown;
	/** `register_tool_with_wake` only. */
	setWaker?: unknown;
}

export interface ToolFns {
	/** Starts a call: `params` is copied into memory the plugin frees with the host's `free_string`. 0 = refused. */
	execute(callId: string, params: string): Address;
	/** One poll; returns the step tag and keeps the payload for `take()`. */
	poll(handle: Address, partialCb: Address, userData: number): number;
	/** The last poll's payload as text, reclaimed with the plugin's deallocator (empty when it had none). */
	take(): string;
	/** A plugin string given as `(ptr, len)` (a partial update), copied out and reclaimed the same way. */
	takeRaw(ptr: Address, len: number): string;
	cancel(handle: Address): void;
	destroy(handle: Address): void;
	setWaker?: (handle: Address, callback: Address, data: number) => void;
}

/** The sret trick is x86-64's alone (see above). */
const SRET_POLL = process.arch === "x64";

const ToolExecuteRaw = koffi.proto(
	"uintptr_t ToolExecuteRaw(const char *id, size_t idLen, uintptr_t params, size_t paramsLen, uintptr_t freeParams)",
);
const ToolPollRaw = pollProto();
function pollProto(): ReturnType<typeof koffi.proto> {
	if (SRET_POLL)
		return koffi.proto(
			"uintptr_t ToolPollRaw(uint8_t *result, uintptr_t handle, uintptr_t partialCb, uintptr_t userData)",
		);
	koffi.struct("StepResultRaw", { tag: "uint32_t", ptr: "uintptr_t", len: "size_t" });
	return koffi.proto("StepResultRaw ToolPollRaw(uintptr_t handle, uintptr_t partialCb, uintptr_t userData)");
}
const FreeRaw = koffi.proto("void FreeRaw(uintptr_t ptr, size_t len)");
const ToolHandleRaw = koffi.proto("void ToolHandleRaw(uintptr_t handle)");
const ToolSetWakerRaw = koffi.proto("void ToolSetWakerRaw(uintptr_t handle, uintptr_t callback, uintptr_t data)");
/** The host callbacks a tool calls, in the same integer form: `(StbString partial, void *userData)` and `(void *data)`. */
export const ToolPartialRaw = koffi.proto("void ToolPartialRaw(uintptr_t ptr, size_t len, uintptr_t userData)");
export const ToolWakeRaw = koffi.proto("void ToolWakeRaw(uintptr_t data)");

const libc = koffi.load("libc.so.6");
/** A malloc'd copy of `len` bytes of JS text (JSON text holds no NUL, so strndup copies all of it). */
const strndup = libc.func("uintptr_t strndup(const char *text, size_t len)") as (text: string, len: number) => Address;
const memcpy = libc.func("void memcpy(uint8_t *to, uintptr_t from, size_t len)") as (
	to: Buffer,
	from: Address,
	len: number,
) => void;
/** A pointer koffi hands out (an External) as the integer form above. */
function toAddress(ptr: unknown): Address {
	const value = koffi.address(ptr);
	return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}
const HOST_FREE_ADDRESS = toAddress(HOST_FREE);

/** Plugin strings up to this size are copied through one reused buffer; a larger one gets its own. */
const SCRATCH_BYTES = 64 * 1024;
const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);

/** The text of `len` bytes of native memory at `ptr`. */
function readAt(ptr: Address, len: number): string {
	const buffer = len <= scratch.length ? scratch : Buffer.allocUnsafe(len);
	memcpy(buffer, ptr, len);
	return buffer.toString("utf8", 0, len);
}

/** Two little-endian u32 words as an address: a number, or a BigInt when it would lose bits as one. */
function addressAt(buffer: Buffer, offset: number): Address {
	const low = buffer.readUInt32LE(offset);
	const high = buffer.readUInt32LE(offset + 4);
	return high < 0x20_0000 ? high * 0x1_0000_0000 + low : (BigInt(high) << 32n) | BigInt(low);
}

export function bindTool(pointers: ToolPointers): ToolFns {
	const execute = koffi.decode(pointers.execute, ToolExecuteRaw) as (
		id: string | null,
		idLen: number,
		params: Address,
		paramsLen: number,
		free: Address,
	) => Address;
	const free = koffi.decode(pointers.free, FreeRaw) as (ptr: Address, len: number) => void;
	const cancel = koffi.decode(pointers.cancel, ToolHandleRaw) as (handle: Address) => void;
	const destroy = koffi.decode(pointers.destroy, ToolHandleRaw) as (handle: Address) => void;
	const setWaker =
		pointers.setWaker === undefined
			? undefined
			: (koffi.decode(pointers.setWaker, ToolSetWakerRaw) as (handle: Address, cb: Address, data: number) => void);
	// The last step's payload, until `take()` reclaims it.
	let payloadPtr: Address = 0;
	let payloadLen = 0;
	let poll: ToolFns["poll"];
	if (SRET_POLL) {
		const raw = koffi.decode(pointers.poll, ToolPollRaw) as (
			out: Buffer,
			handle: Address,
			cb: Address,
			ud: number,
		) => unknown;
		const step = Buffer.alloc(24);
		poll = (handle, partialCb, userData) => {
			raw(step, handle, partialCb, userData);
			payloadPtr = addressAt(step, 8);
			payloadLen = Number(addressAt(step, 16));
			return step.readUInt32LE(0);
		};
	} else {
		const raw = koffi.decode(pointers.poll, ToolPollRaw) as (
			handle: Address,
			cb: Address,
			ud: number,
		) => { tag: number; ptr: Address; len: Address };
		poll = (handle, partialCb, userData) => {
			const step = raw(handle, partialCb, userData);
			payloadPtr = step.ptr;
			payloadLen = Number(step.len);
			return step.tag;
		};
	}
	const takeRaw = (ptr: Address, len: number): string => {
		if (!ptr) return "";
		const text = len === 0 ? "" : readAt(ptr, len);
		free(ptr, len);
		return text;
	};
	return {
		execute: (callId, params) => {
			const len = Buffer.byteLength(params, "utf8");
			const copy = strndup(params, len);
			if (!copy) throw new Error(`out of memory allocating ${len} bytes for a plugin string`);
			const idLen = callId.length === 0 ? 0 : Buffer.byteLength(callId, "utf8");
			return execute(idLen === 0 ? null : callId, idLen, copy, len, HOST_FREE_ADDRESS);
		},
		poll,
		take: () => {
			const ptr = payloadPtr;
			payloadPtr = 0;
			return takeRaw(ptr, payloadLen);
		},
		takeRaw,
		cancel,
		destroy,
		...(setWaker ? { setWaker } : {}),
	};
}

/** A host callback in the integer form above, registered for the life of the process: its address. */
export function rawCallback(fn: (...args: never[]) => unknown, proto: typeof ToolWakeRaw): Address {
	return toAddress(koffi.register(fn, koffi.pointer(proto)));
}

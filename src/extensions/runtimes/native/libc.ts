/**
 * The few libc calls the plugin host makes itself: a blocking `poll` for the synchronous protocol round trip
 * and a full pipe (no busy waiting), and the fd juggling that keeps a plugin's own stdin/stdout away from pier's
 * (stdio.ts). Called through koffi, like the plugin.
 */
import { koffi } from "./abi.js";

const libc = koffi.load("libc.so.6");
const pollFn = libc.func("int poll(void *fds, unsigned long nfds, int timeout)") as (
	fds: Buffer,
	nfds: number,
	timeout: number,
) => number;
export const dup = libc.func("int dup(int fd)") as (fd: number) => number;
export const dup2 = libc.func("int dup2(int from, int to)") as (from: number, to: number) => number;
export const close = libc.func("int close(int fd)") as (fd: number) => number;
const openFn = libc.func("int open(const char *path, int flags)") as (path: string, flags: number) => number;

const POLLIN = 0x001;
const POLLOUT = 0x004;
const O_RDWR = 0o2;

/** Blocks until `fd` is readable (or hung up) or `timeoutMs` passes; true when there is something to read. */
export function waitReadable(fd: number, timeoutMs: number): boolean {
	return pollOne(fd, POLLIN, Math.max(0, Math.min(timeoutMs, 2_147_483_647)));
}

/** Blocks until `fd` can take a write (or is hung up: the write then says why). */
export function waitWritable(fd: number): void {
	pollOne(fd, POLLOUT, -1);
}

function pollOne(fd: number, events: number, timeoutMs: number): boolean {
	const pollfd = Buffer.alloc(8);
	pollfd.writeInt32LE(fd, 0);
	pollfd.writeInt16LE(events, 4);
	return pollFn(pollfd, 1, timeoutMs) > 0;
}

export function openDevNull(): number {
	const fd = openFn("/dev/null", O_RDWR);
	if (fd < 0) throw new Error("cannot open /dev/null");
	return fd;
}

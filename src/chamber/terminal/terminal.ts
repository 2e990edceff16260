/**
 * One terminal: a shell on a PTY, its scrollback, and what it tells the pages that watch it. Output is coalesced to
 * one event per turn of the event loop (a shell writes in many small pieces) and enters the scrollback at the same
 * moment it is published, so a page that connects in between never sees a piece twice. Closing hangs up every
 * process the shell started (process-session.ts) and kills what is left after the grace time.
 */
import type { PtyProcess } from "./pty.js";
import { isRunning, sessionMembers, signalSession } from "./process-session.js";
import { Scrollback } from "./scrollback.js";
import {
	TERMINAL_LIMITS,
	type TerminalEndReason,
	type TerminalEventName,
	type TerminalEventPayloads,
	type TerminalView,
} from "./terminal-wire.js";

export type Publish = <E extends TerminalEventName>(event: E, payload: TerminalEventPayloads[E]) => void;

/** How often a closing terminal looks whether its processes are gone (bounded by the grace time). */
const POLL_MS = 50;

export class Terminal {
	private readonly scrollback = new Scrollback(TERMINAL_LIMITS.scrollbackBytes);
	private pending = "";
	private flushing = false;
	private exited = false;
	private closedHere = false;
	private closing: Promise<void> | undefined;
	private finish!: () => void;
	/** Resolves once the shell has exited and the last event is out. */
	readonly ended = new Promise<void>((done) => {
		this.finish = done;
	});

	constructor(
		readonly sessionId: string,
		private readonly pty: PtyProcess,
		private readonly meta: Omit<TerminalView, "pid">,
		private readonly publish: Publish,
		private readonly onEnded: (terminal: Terminal) => void,
	) {
		pty.onData((data) => {
			this.pending += data;
			if (this.flushing) return;
			this.flushing = true;
			setImmediate(() => this.flush());
		});
		pty.onExit(({ exitCode, signal }) => this.exit(exitCode, signal));
	}

	get id(): string {
		return this.meta.id;
	}

	get pid(): number {
		return this.pty.pid;
	}

	view(): TerminalView {
		return { ...this.meta, pid: this.pty.pid };
	}

	/** The scrollback as a page replays it (pending output goes out first, so nothing is counted twice). */
	replay(): string {
		this.flush();
		return this.scrollback.text();
	}

	/** Bytes the scrollback holds now. */
	get scrollbackBytes(): number {
		return this.scrollback.bytes;
	}

	write(data: string): void {
		if (!this.exited) this.pty.write(data);
	}

	resize(cols: number, rows: number): void {
		if (this.exited || (cols === this.meta.cols && rows === this.meta.rows)) return;
		this.pty.resize(cols, rows);
		this.meta.cols = cols;
		this.meta.rows = rows;
		this.publish("terminal.resized", { id: this.id, cols, rows });
	}

	/**
	 * Ends the terminal: SIGHUP to every process of the shell's session (a terminal window closing), then SIGKILL to
	 * whatever still runs after the grace time. Resolves once the shell is gone.
	 */
	close(): Promise<void> {
		this.closing ??= this.hangUp();
		return this.closing;
	}

	private async hangUp(): Promise<void> {
		if (this.exited) return;
		this.closedHere = true;
		const sid = this.pty.pid;
		signalSession(sid, "SIGHUP");
		const deadline = Date.now() + TERMINAL_LIMITS.hangupGraceMs;
		while (Date.now() < deadline && (!this.exited || sessionMembers(sid).length > 0)) await sleep(POLL_MS);
		// Until the shell is reaped its pid cannot be reused, so its group may be signalled; after, only the members found.
		if (!this.exited || sessionMembers(sid).length > 0) signalSession(sid, "SIGKILL");
		const killed = Date.now() + TERMINAL_LIMITS.hangupGraceMs;
		while (!this.exited && Date.now() < killed) await sleep(POLL_MS);
		// node-pty did not report the exit (it always should): the process is checked, and the terminal ends anyway.
		if (!this.exited) this.exit(isRunning(sid) ? -1 : 0, 9);
		await this.ended;
	}

	private flush(): void {
		this.flushing = false;
		if (this.pending === "") return;
		const data = this.pending;
		this.pending = "";
		this.scrollback.append(data);
		this.publish("terminal.output", { id: this.id, base64: Buffer.from(data).toString("base64") });
	}

	private exit(exitCode: number, signal: number | undefined): void {
		if (this.exited) return;
		this.exited = true;
		this.flush();
		const reason: TerminalEndReason = this.closedHere ? "closed" : "exited";
		this.publish("terminal.exit", { id: this.id, reason, exitCode, ...(signal ? { signal } : {}) });
		this.onEnded(this);
		this.finish();
	}
}

function sleep(ms: number): Promise<void> {
	return new Promise((done) => setTimeout(done, ms));
}

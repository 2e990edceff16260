/**
 * The daemon's terminals, by session. A terminal belongs to the session that opened it: every lookup names both, so a
 * terminal id used under another session's id is not found. Nothing here runs until a user opens a terminal (node-pty
 * itself is loaded then); the chamber closes a session's terminals when the session is deleted and all of them
 * when the daemon stops.
 */
import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import type { EventSink } from "../events/channel.js";
import { loadPty, spawnShell, userShell } from "./pty.js";
import { Terminal } from "./terminal.js";
import {
	TERMINAL_LIMITS,
	type TerminalEventName,
	type TerminalEventPayloads,
	type TerminalView,
} from "./terminal-wire.js";

/** A terminal request refused, with the HTTP status and code its route answers. */
export class TerminalError extends Error {
	constructor(
		readonly status: 404 | 409 | 422 | 500 | 503,
		readonly code: string,
		message: string,
	) {
		super(message);
	}
}

/** One SSE frame: the event's name and its JSON payload. */
export function terminalFrame<E extends TerminalEventName>(event: E, payload: TerminalEventPayloads[E]): string {
	return `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/** The size a terminal starts at when the page gives none (the page resizes it to fit at once). */
const DEFAULT_SIZE = { cols: 80, rows: 24 };

export class Terminals {
	private readonly byId = new Map<string, Terminal>();
	/** Pages following a session's terminals (one stream per page and session, whatever the number of terminals). */
	private readonly sinks = new Map<string, Set<EventSink>>();
	/** Opens between their check and their spawn (the first one waits for node-pty to load). */
	private opening = 0;
	private stopped = false;

	/** A new shell in `cwd` for `sessionId`, in the user's shell. */
	async open(sessionId: string, cwd: string, size: { cols?: number; rows?: number } = {}): Promise<TerminalView> {
		if (!isDirectory(cwd))
			throw new TerminalError(422, "bad_request", `the session's directory ${cwd} is not a directory any more`);
		this.checkRoom(sessionId);
		this.opening++;
		let terminal: Terminal;
		try {
			const pty = await loadPty();
			if (this.stopped) throw new TerminalError(503, "shutting_down", "the chamber is stopping");
			const shell = userShell();
			const cols = size.cols ?? DEFAULT_SIZE.cols;
			const rows = size.rows ?? DEFAULT_SIZE.rows;
			let spawned: ReturnType<typeof spawnShell>;
			try {
				spawned = spawnShell(pty, { shell, cwd, cols, rows });
			} catch (error) {
				throw new TerminalError(500, "terminal_failed", `${shell} did not start: ${(error as Error).message}`);
			}
			const meta = { id: `t${randomBytes(12).toString("hex")}`, shell, cwd, cols, rows, createdAt: now() };
			terminal = new Terminal(
				sessionId,
				spawned,
				meta,
				(event, payload) => this.publish(sessionId, event, payload),
				(ended) => {
					if (this.byId.get(ended.id) === ended) this.byId.delete(ended.id);
				},
			);
		} finally {
			this.opening--;
		}
		this.byId.set(terminal.id, terminal);
		const view = terminal.view();
		this.publish(sessionId, "terminal.opened", { terminal: view });
		return view;
	}

	private checkRoom(sessionId: string): void {
		if (this.stopped) throw new TerminalError(503, "shutting_down", "the chamber is stopping");
		if (this.list(sessionId).length >= TERMINAL_LIMITS.perSession)
			throw new TerminalError(
				409,
				"terminal_limit",
				`this session has ${TERMINAL_LIMITS.perSession} terminals open, the most it may; close one first`,
			);
		if (this.byId.size + this.opening >= TERMINAL_LIMITS.perDaemon)
			throw new TerminalError(
				409,
				"terminal_limit",
				`the chamber has ${TERMINAL_LIMITS.perDaemon} terminals open, the most it may; close one first`,
			);
	}

	/** The session's terminal `id`; not found when it is another session's (or gone). */
	find(sessionId: string, id: string): Terminal {
		const terminal = this.byId.get(id);
		if (!terminal || terminal.sessionId !== sessionId)
			throw new TerminalError(404, "not_found", `no terminal ${id} in session ${sessionId}`);
		return terminal;
	}

	list(sessionId: string): Terminal[] {
		return [...this.byId.values()].filter((t) => t.sessionId === sessionId);
	}

	/** How many run in the whole daemon. */
	get size(): number {
		return this.byId.size;
	}

	/**
	 * Follows a session's terminals: first the list and each one's scrollback, then everything live. Returns the
	 * detach. Nothing can come in between: this runs in one turn of the event loop.
	 */
	attach(sessionId: string, sink: EventSink): () => void {
		const terminals = this.list(sessionId);
		if (!sink.write(terminalFrame("terminal.list", { terminals: terminals.map((t) => t.view()) }))) return () => {};
		for (const t of terminals)
			if (
				!sink.write(terminalFrame("terminal.replay", { id: t.id, base64: Buffer.from(t.replay()).toString("base64") }))
			)
				return () => {};
		const set = this.sinks.get(sessionId) ?? new Set();
		this.sinks.set(sessionId, set);
		set.add(sink);
		return () => {
			const current = this.sinks.get(sessionId);
			current?.delete(sink);
			if (current?.size === 0) this.sinks.delete(sessionId);
		};
	}

	private publish<E extends TerminalEventName>(sessionId: string, event: E, payload: TerminalEventPayloads[E]): void {
		const set = this.sinks.get(sessionId);
		if (!set) return;
		const frame = terminalFrame(event, payload);
		for (const sink of set) if (!sink.write(frame)) set.delete(sink);
	}

	/** Ends every terminal of a deleted session, and its pages' streams. */
	async closeSession(sessionId: string): Promise<void> {
		await Promise.allSettled(this.list(sessionId).map((t) => t.close()));
		for (const sink of this.sinks.get(sessionId) ?? []) sink.end?.();
		this.sinks.delete(sessionId);
	}

	/** The daemon stops: no new terminal, every shell hung up (and killed after the grace time). */
	async closeAll(): Promise<void> {
		this.stopped = true;
		await Promise.allSettled([...this.byId.values()].map((t) => t.close()));
		for (const set of this.sinks.values()) for (const sink of set) sink.end?.();
		this.sinks.clear();
	}
}

function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

function now(): string {
	return new Date().toISOString();
}

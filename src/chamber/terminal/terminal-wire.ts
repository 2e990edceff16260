/**
 * The terminal's wire (docs/chamber-api.md, "Terminals"): request bodies, the view of one terminal and the events
 * of a session's terminal stream. The daemon and the web app both import it; it stays free of Node imports.
 */
import { type Static, Type } from "typebox";

/** Bounds on terminals; each has a test just past it (test/chamber/terminal*.test.ts). */
export const TERMINAL_LIMITS = {
	/** Output kept per terminal and replayed to a page that (re)connects: the newest bytes, as UTF-8. */
	scrollbackBytes: 256 * 1024,
	/** Terminals open at once in one session. */
	perSession: 8,
	/** Terminals open at once in the daemon, every session together. */
	perDaemon: 32,
	/** Characters of input one request carries (the page sends a longer paste in pieces). */
	inputChars: 64 * 1024,
	maxColumns: 500,
	maxRows: 200,
	/** How long a closed terminal's processes have after SIGHUP before they are killed. */
	hangupGraceMs: 2000,
} as const;

/** One open terminal as the page lists it. */
export interface TerminalView {
	/** Random and unguessable; valid only under the session that opened it. */
	id: string;
	/** The shell that runs (`$SHELL`, else /bin/sh) and the directory it started in (the session's). */
	shell: string;
	cwd: string;
	/** The shell's process id on the daemon's machine. */
	pid: number;
	cols: number;
	rows: number;
	/** ISO time it was opened. */
	createdAt: string;
}

/** Why a terminal ended: its shell exited by itself, or it was closed (DELETE, session deleted, daemon stopping). */
export type TerminalEndReason = "exited" | "closed";

/**
 * A session's terminal stream (`GET …/terminals/stream`), as SSE `event:` names and their JSON `data:`. On connect
 * the stream sends `terminal.list`, then one `terminal.replay` per terminal (its scrollback), then live events.
 * Output travels as base64 of its UTF-8 bytes: 4/3 of its size whatever it holds, where JSON would spell each
 * control byte of a terminal's escape sequences in six (the stream's buffer bound is sized on it).
 */
export interface TerminalEventPayloads {
	/** Every terminal of the session now: a page drops the ones it shows that are not here any more. */
	"terminal.list": { terminals: TerminalView[] };
	/** A terminal's scrollback, the newest `scrollbackBytes` of its output: the page resets its screen to this. */
	"terminal.replay": { id: string; base64: string };
	/** A terminal opened (by this page or another). */
	"terminal.opened": { terminal: TerminalView };
	"terminal.output": { id: string; base64: string };
	/** The terminal's size changed (another page may have a different one). */
	"terminal.resized": { id: string; cols: number; rows: number };
	/** The shell ended; the terminal is gone from the daemon. */
	"terminal.exit": { id: string; reason: TerminalEndReason; exitCode: number; signal?: number };
}

export type TerminalEventName = keyof TerminalEventPayloads;

const Columns = Type.Integer({ minimum: 2, maximum: TERMINAL_LIMITS.maxColumns });
const Rows = Type.Integer({ minimum: 1, maximum: TERMINAL_LIMITS.maxRows });

export const TerminalBodies = {
	open: Type.Object({ cols: Type.Optional(Columns), rows: Type.Optional(Rows) }, { additionalProperties: false }),
	input: Type.Object(
		{ data: Type.String({ minLength: 1, maxLength: TERMINAL_LIMITS.inputChars }) },
		{ additionalProperties: false },
	),
	resize: Type.Object({ cols: Columns, rows: Rows }, { additionalProperties: false }),
};

export type OpenTerminalBody = Static<typeof TerminalBodies.open>;

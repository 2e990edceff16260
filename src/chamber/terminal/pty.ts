/**
 * The PTY itself: `@lydell/node-pty` (node-pty with prebuilt N-API binaries), loaded on the first terminal a user
 * opens, never at the daemon's start or a session's. Only the members pier calls are typed here.
 */
import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute } from "node:path";

/** What pier uses of node-pty's IPty. */
export interface PtyProcess {
	readonly pid: number;
	onData(listener: (data: string) => void): { dispose(): void };
	onExit(listener: (event: { exitCode: number; signal?: number }) => void): { dispose(): void };
	write(data: string): void;
	resize(cols: number, rows: number): void;
	kill(signal?: string): void;
}

export interface NodePty {
	spawn(
		file: string,
		args: string[],
		options: { name: string; cols: number; rows: number; cwd: string; env: Record<string, string> },
	): PtyProcess;
}

let loading: Promise<NodePty> | undefined;

/** node-pty, imported once on first use (its native binding loads with it). */
export function loadPty(): Promise<NodePty> {
	// A name in a variable: the package declares no types for NodeNext, and pier types what it calls above.
	const name = "@lydell/node-pty";
	loading ??= (import(name) as Promise<NodePty & { default?: NodePty }>).then(
		(mod) => (typeof mod.spawn === "function" ? mod : (mod.default as NodePty)),
		(error: unknown) => {
			loading = undefined;
			throw new Error(`the terminal needs @lydell/node-pty, which did not load: ${(error as Error).message}`);
		},
	);
	return loading;
}

/** The user's shell: `$SHELL` when it names an executable file, else /bin/sh. */
export function userShell(env: NodeJS.ProcessEnv = process.env): string {
	const shell = env.SHELL;
	if (shell && isAbsolute(shell)) {
		try {
			accessSync(shell, constants.X_OK);
			if (statSync(shell).isFile()) return shell;
		} catch {
			// Not there or not executable: the fallback below.
		}
	}
	return "/bin/sh";
}

/** Variables the shell must not inherit: the daemon's own secrets. */
const WITHHELD = new Set(["PIER_UI_PASSWORD"]);

/**
 * The daemon's environment for the shell, with what a terminal emulator sets (xterm.js is xterm-compatible) and
 * `PWD` the session's directory (a shell trusts it when it names its working directory: the path, not a symlink's
 * target).
 */
export function shellEnv(cwd: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [key, value] of Object.entries(env)) if (value !== undefined && !WITHHELD.has(key)) out[key] = value;
	out.TERM = "xterm-256color";
	out.COLORTERM = "truecolor";
	out.PWD = cwd;
	return out;
}

/** The shell on a new PTY (node-pty makes it a session leader with the PTY as its controlling terminal). */
export function spawnShell(
	pty: NodePty,
	options: { shell: string; cwd: string; cols: number; rows: number },
): PtyProcess {
	return pty.spawn(options.shell, [], {
		name: "xterm-256color",
		cols: options.cols,
		rows: options.rows,
		cwd: options.cwd,
		env: shellEnv(options.cwd),
	});
}

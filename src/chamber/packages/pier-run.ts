/**
 * The chamber's install, update and remove are `pier install | update | remove` themselves, run as a child of
 * the daemon: the one code path the CLI takes (its source checks, staged installs, scripts off, and every check
 * and record later added to it), with the daemon's agent directory and environment. One at a time per daemon;
 * the package lock (packages/lock.ts) orders them against other pier processes.
 */
import { spawn } from "node:child_process";

export interface PierRun {
	code: number;
	stdout: string;
	stderr: string;
}

/** Most of what a package command prints is a line or two; a runaway one is cut, not buffered forever. */
const MAX_OUTPUT = 256 * 1024;
const TIMEOUT_MS = 10 * 60_000;

let queue: Promise<unknown> = Promise.resolve();

export function runPier(args: readonly string[], cwd: string): Promise<PierRun> {
	const next = queue.then(() => spawnPier(args, cwd));
	queue = next.catch(() => {});
	return next;
}

function spawnPier(args: readonly string[], cwd: string): Promise<PierRun> {
	const bin = process.argv[1];
	return new Promise((resolve, reject) => {
		if (!bin) return reject(new Error("the daemon does not know its own pier program"));
		// The daemon's sign-in password is not npm's or git's business.
		const { PIER_UI_PASSWORD: _withheld, ...env } = process.env;
		const child = spawn(process.execPath, [bin, ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		const take = (into: "out" | "err") => (chunk: Buffer) => {
			if (into === "out") stdout = (stdout + chunk.toString("utf8")).slice(0, MAX_OUTPUT);
			else stderr = (stderr + chunk.toString("utf8")).slice(0, MAX_OUTPUT);
		};
		child.stdout.on("data", take("out"));
		child.stderr.on("data", take("err"));
		const timer = setTimeout(() => child.kill("SIGTERM"), TIMEOUT_MS);
		child.on("error", (error) => {
			clearTimeout(timer);
			reject(error);
		});
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code: code ?? 1, stdout: stdout.trim(), stderr: stderr.trim() });
		});
	});
}

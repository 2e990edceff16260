/** Runs the real `pier` bin in a child process, against a throw-away pi agent directory. */
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const PIER_BIN = join(REPO_ROOT, "bin", "pier.js");

export interface PierResult {
	code: number | null;
	stdout: string;
	stderr: string;
}

export interface PierRunOptions {
	agentDir: string;
	cwd?: string;
	env?: Record<string, string>;
	/** Written to a pipe that is then closed; or a path, opened as stdin itself (`pier run < file`). */
	stdin?: string | { file: string };
	timeoutMs?: number;
}

/** An empty pi agent directory: "nothing configured". */
export function tempDir(prefix = "pier-test-"): { path: string; [Symbol.dispose](): void } {
	const path = mkdtempSync(join(tmpdir(), prefix));
	return { path, [Symbol.dispose]: () => rmSync(path, { recursive: true, force: true }) };
}

/** Environment with nothing of the developer's pi configuration or provider keys. */
export function cleanEnv(agentDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const key of ["PATH", "HOME", "LANG", "TERM", "TMPDIR"]) {
		if (process.env[key] !== undefined) env[key] = process.env[key];
	}
	return { ...env, PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: "1", ...extra };
}

export function runPier(args: readonly string[], options: PierRunOptions): Promise<PierResult> {
	return new Promise((resolve, reject) => {
		const stdinFile = typeof options.stdin === "object" ? openSync(options.stdin.file, "r") : undefined;
		const child = spawn(process.execPath, [PIER_BIN, ...args], {
			cwd: options.cwd ?? options.agentDir,
			env: cleanEnv(options.agentDir, options.env),
			stdio: [stdinFile ?? "pipe", "pipe", "pipe"],
		});
		if (stdinFile !== undefined) closeSync(stdinFile);
		let stdout = "";
		let stderr = "";
		child.stdout!.setEncoding("utf8").on("data", (d: string) => {
			stdout += d;
		});
		child.stderr!.setEncoding("utf8").on("data", (d: string) => {
			stderr += d;
		});
		const timer = setTimeout(() => {
			child.kill("SIGKILL");
			reject(new Error(`pier ${args.join(" ")} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
		}, options.timeoutMs ?? 30_000);
		child.on("error", reject);
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code, stdout, stderr });
		});
		if (typeof options.stdin !== "object") child.stdin?.end(options.stdin ?? "");
	});
}

/** Parses `--mode json` output: one JSON object per line. */
export function jsonLines(text: string): Array<Record<string, unknown> & { type: string }> {
	return text
		.split("\n")
		.filter((line) => line.trim() !== "")
		.map((line) => JSON.parse(line) as Record<string, unknown> & { type: string });
}

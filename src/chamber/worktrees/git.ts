/**
 * git, run as a program: the one way the worktree feature touches a repository. Arguments go to `git` as an
 * array (never through a shell), with the terminal prompt and pagers off, C locale messages, and a bound on
 * time and output, so a hung credential helper or a huge status cannot hold the daemon.
 */
import { execFile } from "node:child_process";

export interface GitResult {
	code: number;
	stdout: string;
	stderr: string;
}

const GIT_ENV = {
	GIT_TERMINAL_PROMPT: "0",
	GIT_PAGER: "cat",
	GIT_EDITOR: "true",
	GIT_MERGE_AUTOEDIT: "no",
	LC_ALL: "C",
} as const;

/** Runs `git -C dir …args`; resolves with the exit code (a refusal is an answer, not an exception). */
export function git(dir: string, args: readonly string[], timeoutMs = 30_000): Promise<GitResult> {
	return new Promise((resolve, reject) => {
		execFile(
			"git",
			["-C", dir, ...args],
			{ env: { ...process.env, ...GIT_ENV }, timeout: timeoutMs, maxBuffer: 8 * 1024 * 1024, encoding: "utf8" },
			(error, stdout, stderr) => {
				if (error && typeof (error as NodeJS.ErrnoException).code === "string") {
					reject(new Error(`git could not run: ${error.message}`));
					return;
				}
				const code = error ? ((error as { code?: number }).code ?? 1) : 0;
				resolve({ code: typeof code === "number" ? code : 1, stdout, stderr });
			},
		);
	});
}

/** `git …` that must succeed: its first line of complaint otherwise. */
export async function gitOk(dir: string, args: readonly string[]): Promise<string> {
	const r = await git(dir, args);
	if (r.code !== 0) throw new Error(firstLines(r.stderr || r.stdout) || `git ${args[0]} failed (${r.code})`);
	return r.stdout;
}

export function firstLines(text: string, n = 3): string {
	return text
		.split("\n")
		.map((l) => l.trim())
		.filter(Boolean)
		.slice(0, n)
		.join(" ");
}

/**
 * What is not committed in a checkout, as paths relative to its top: changed, staged, deleted and (unless
 * `tracked`) untracked files. `-z` keeps odd names whole.
 */
export async function uncommitted(dir: string, options: { tracked?: boolean } = {}): Promise<string[]> {
	const untracked = options.tracked ? "--untracked-files=no" : "--untracked-files=all";
	const out = await gitOk(dir, ["status", "--porcelain=v1", "-z", untracked]);
	const files: string[] = [];
	const parts = out.split("\0");
	for (let i = 0; i < parts.length; i++) {
		const entry = parts[i]!;
		if (entry.length < 4) continue;
		files.push(entry.slice(3));
		// A rename or copy carries its source as the next NUL-separated field.
		if (entry[0] === "R" || entry[0] === "C") i++;
	}
	return files;
}

/** Names a list of files in a sentence: the first `max`, then how many more. */
export function nameFiles(files: readonly string[], max = 10): string {
	const shown = files.slice(0, max).join(", ");
	return files.length > max ? `${shown} and ${files.length - max} more` : shown;
}

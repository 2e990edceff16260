/**
 * Which entries of a listing `.gitignore` hides. In a git repository git itself decides (`git check-ignore`, so
 * nested `.gitignore` files, `.git/info/exclude` and the user's excludes count, and a tracked file is never
 * hidden). Outside git the root `.gitignore` is read with minimatch, and `.git` and `node_modules` are always
 * hidden. Hiding is a view, not a guard: the `outside_project` rule is the guard.
 */
import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { minimatch } from "minimatch";

export interface Ignorer {
	kind: "git" | "gitignore" | "none";
	/** The paths (project-relative; directories end with `/`) that are hidden. */
	ignored(paths: readonly string[]): Promise<Set<string>>;
}

/** Hidden whatever the rules say: git's own directory, and outside git the usual dependency tree. */
const ALWAYS = new Set([".git"]);
const OUTSIDE_GIT = new Set([".git", "node_modules"]);
const GIT_MS = 10_000;

export function isAlwaysHidden(name: string, git: boolean): boolean {
	return (git ? ALWAYS : OUTSIDE_GIT).has(name);
}

/** Asked without blocking the daemon: a slow disk or a large repository must not hold other requests. */
function inGitRepo(root: string): Promise<boolean> {
	return new Promise((resolve) => {
		execFile("git", ["rev-parse", "--is-inside-work-tree"], { cwd: root, timeout: GIT_MS }, (error, stdout) =>
			resolve(!error && stdout.trim() === "true"),
		);
	});
}

/** `git check-ignore -z --stdin`: exit 0 some are ignored, 1 none are; anything else is git failing. */
function gitIgnored(root: string, paths: readonly string[]): Promise<Set<string>> {
	if (paths.length === 0) return Promise.resolve(new Set());
	return new Promise((resolve, reject) => {
		const child = spawn("git", ["check-ignore", "-z", "--stdin"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
		const timer = setTimeout(() => child.kill("SIGKILL"), GIT_MS);
		let out = "";
		let err = "";
		child.stdout.setEncoding("utf8").on("data", (d: string) => {
			out += d;
		});
		child.stderr.setEncoding("utf8").on("data", (d: string) => {
			err += d;
		});
		child.on("error", reject);
		child.on("close", (code) => {
			clearTimeout(timer);
			if (code === 0 || code === 1) resolve(new Set(out.split("\0").filter(Boolean)));
			else reject(new Error(`git check-ignore failed (${code}): ${err.trim()}`));
		});
		child.stdin.on("error", () => {}); // git may exit before reading all (it failed: `close` says so)
		child.stdin.end(paths.map((p) => `${p}\0`).join(""));
	});
}

interface Rule {
	negate: boolean;
	dirOnly: boolean;
	glob: string;
}

/** The root `.gitignore`'s rules, in order (the last rule that matches decides, as in git). */
export function parseGitignore(text: string): Rule[] {
	const rules: Rule[] = [];
	for (const raw of text.split(/\r?\n/)) {
		let line = raw.replace(/(?<!\\)\s+$/, "");
		if (!line || line.startsWith("#")) continue;
		const negate = line.startsWith("!");
		if (negate) line = line.slice(1);
		if (line.startsWith("\\")) line = line.slice(1);
		const dirOnly = line.endsWith("/");
		if (dirOnly) line = line.slice(0, -1);
		if (!line) continue;
		// A slash before the end anchors the pattern at the root; otherwise it matches a name at any depth.
		const anchored = line.includes("/");
		const glob = anchored ? line.replace(/^\//, "") : `**/${line}`;
		rules.push({ negate, dirOnly, glob });
	}
	return rules;
}

function ruleDecides(rules: readonly Rule[], path: string, dir: boolean): boolean {
	let ignored = false;
	for (const rule of rules) {
		if (rule.dirOnly && !dir) continue;
		if (minimatch(path, rule.glob, { dot: true })) ignored = !rule.negate;
	}
	return ignored;
}

/** Whether a path is hidden by the rules: itself or a directory above it (git never looks inside a hidden one). */
export function matchesGitignore(rules: readonly Rule[], path: string): boolean {
	const dir = path.endsWith("/");
	const segments = path.replace(/\/$/, "").split("/");
	for (let i = 1; i <= segments.length; i++) {
		const prefix = segments.slice(0, i).join("/");
		if (ruleDecides(rules, prefix, i < segments.length || dir)) return true;
	}
	return false;
}

export async function ignorerFor(root: string): Promise<Ignorer> {
	if (await inGitRepo(root)) return { kind: "git", ignored: (paths) => gitIgnored(root, paths) };
	let text: string;
	try {
		text = readFileSync(join(root, ".gitignore"), "utf8");
	} catch {
		return { kind: "none", ignored: async () => new Set() };
	}
	const rules = parseGitignore(text);
	return {
		kind: "gitignore",
		ignored: async (paths) => new Set(paths.filter((p) => matchesGitignore(rules, p))),
	};
}

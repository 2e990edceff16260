/**
 * Git checkouts of packages, at pi's locations (`<agentDir>/git/<host>/<path>`, `<cwd>/.pi/git/<host>/<path>`),
 * so pi and pier share them. What pier adds over pi: the checkout always matches the pin (a pin that cannot be
 * checked out is an error, never the default branch), and every install or move is staged in a sibling directory
 * and swapped in by rename, under one lock, so a failed clone never leaves a half checkout where pi or pier would
 * load it.
 *
 * git runs with an argument vector (no shell), without prompts, and refs were validated by sources.ts first.
 */
import { execFile } from "node:child_process";
import {
	type Dirent,
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { promisify } from "node:util";
import { installWithoutScripts } from "./npm.js";
import { PackageSourceError, type ParsedSource } from "./sources.js";

const run = promisify(execFile);
type GitSource = Extract<ParsedSource, { kind: "git" }>;

const GIT_ENV = { GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "" };

/** The caller's environment without what would point git at another repository than the one named. */
function gitEnv(): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env, ...GIT_ENV };
	for (const key of ["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"])
		delete env[key];
	return env;
}

async function git(args: string[], cwd?: string): Promise<string> {
	try {
		const { stdout } = await run("git", ["-c", "color.ui=false", "-c", "advice.detachedHead=false", ...args], {
			...(cwd ? { cwd } : {}),
			env: gitEnv(),
			maxBuffer: 16 * 1024 * 1024,
			timeout: 120_000,
		});
		return stdout.trim();
	} catch (error) {
		const e = error as { stderr?: string; message: string };
		const detail = (e.stderr ?? "").trim().split("\n").slice(-2).join(" ") || e.message;
		throw new Error(`git ${args[0]} failed: ${detail}`);
	}
}

/** The directory holding every git checkout of a scope (pi's). */
export function gitRoot(scopeRoot: string): string {
	return join(scopeRoot, "git");
}

/** Where a source's checkout lives: always strictly inside the scope's git root (sources.ts refuses what is not). */
export function checkoutPath(scopeRoot: string, source: GitSource): string {
	const root = gitRoot(scopeRoot);
	const target = join(root, source.host, ...source.path.split("/"));
	const rel = relative(root, target);
	if (rel === "" || rel.startsWith("..") || isAbsolute(rel) || rel.split(sep).length < 2)
		throw new PackageSourceError(source.source, `its checkout would be ${target}, outside ${root}; refusing it`);
	return target;
}

/** The checkout (a directory with `.git`) strictly between the git root and `target` that holds it, if any. */
function enclosingCheckout(root: string, target: string): string | undefined {
	for (let dir = dirname(target); relative(root, dir) && !relative(root, dir).startsWith(".."); dir = dirname(dir))
		if (existsSync(join(dir, ".git"))) return dir;
	return undefined;
}

/** A checkout below `target` (which is not one itself), if any; checkouts are not descended into. */
function checkoutWithin(target: string): string | undefined {
	if (!existsSync(target) || existsSync(join(target, ".git"))) return undefined;
	const queue = [target];
	while (queue.length > 0) {
		const dir = queue.shift()!;
		let entries: Dirent[];
		try {
			entries = readdirSync(dir, { withFileTypes: true });
		} catch {
			continue;
		}
		for (const entry of entries) {
			if (!entry.isDirectory()) continue;
			const sub = join(dir, entry.name);
			if (existsSync(join(sub, ".git"))) return sub;
			queue.push(sub);
		}
	}
	return undefined;
}

/**
 * Refuses a checkout at `target` that would sit inside another package's checkout, or hold one: installing or
 * removing it would replace or delete part of the other package.
 */
export function refuseNestedCheckout(scopeRoot: string, target: string, source: string): void {
	const root = gitRoot(scopeRoot);
	const name = (dir: string) => `git:${relative(root, dir).split(sep).join("/")}`;
	const outer = enclosingCheckout(root, target);
	if (outer)
		throw new PackageSourceError(
			source,
			`its checkout ${target} would be inside the checkout of ${name(outer)} (${outer}); nested checkouts are refused`,
		);
	const inner = checkoutWithin(target);
	if (inner)
		throw new PackageSourceError(
			source,
			`its checkout ${target} would hold the checkout of ${name(inner)} (${inner}); nested checkouts are refused`,
		);
}

/** The commit a checkout's HEAD is at, or undefined when it is not a readable git checkout. */
export async function headOf(dir: string): Promise<string | undefined> {
	// Without its own .git, git would answer for an enclosing repository (a project holding .pi/git/…).
	if (!existsSync(join(dir, ".git"))) return undefined;
	try {
		return await git(["rev-parse", "--verify", "HEAD^{commit}"], dir);
	} catch {
		return undefined;
	}
}

/** The commit `ref` names in the checkout (a tag, a remote branch, or a commit), if it is known there. */
async function commitOf(dir: string, ref: string): Promise<string | undefined> {
	for (const name of [`refs/tags/${ref}`, `refs/remotes/origin/${ref}`, ref]) {
		try {
			return await git(["rev-parse", "--verify", "--quiet", "--end-of-options", `${name}^{commit}`], dir);
		} catch {
			// try the next spelling
		}
	}
	return undefined;
}

/** Whether the checkout is where the source says: at its pin, or (unpinned) any commit. */
export async function matchesPin(dir: string, source: GitSource): Promise<boolean> {
	const head = await headOf(dir);
	if (!head) return false;
	if (!source.ref) return true;
	return (await commitOf(dir, source.ref)) === head;
}

async function checkoutPin(stage: string, source: GitSource): Promise<void> {
	if (!source.ref) return;
	let commit = await commitOf(stage, source.ref);
	if (!commit) {
		// Not a tag or branch: perhaps a commit the server gives only when asked for it by name.
		try {
			await git(["fetch", "--quiet", "origin", "--end-of-options", source.ref], stage);
			commit = await git(["rev-parse", "--verify", "FETCH_HEAD^{commit}"], stage);
		} catch {
			throw new Error(`pin "${source.ref}" cannot be checked out: ${source.repo} has no such tag, branch or commit`);
		}
	}
	await git(["checkout", "--quiet", "--detach", commit], stage);
}

/**
 * pi runs `npm install` in a git package with a package.json; pier does so only when it declares dependencies,
 * and with scripts off (the package's own and its dependencies'): the caller's `onStaged` runs the allowed ones.
 */
async function installDependencies(stage: string): Promise<void> {
	const file = join(stage, "package.json");
	if (!existsSync(file)) return;
	let deps: unknown;
	try {
		deps = (JSON.parse(readFileSync(file, "utf8")) as { dependencies?: unknown }).dependencies;
	} catch {
		return;
	}
	if (!deps || typeof deps !== "object" || Object.keys(deps).length === 0) return;
	await installWithoutScripts(["npm"], ["install", "--omit=dev"], stage).catch((error: Error) => {
		throw new Error(`npm install in the checkout failed: ${error.message}`);
	});
}

/** Called with the staged checkout, its dependencies installed, before it is swapped in (scripts are settled here). */
export type OnStaged = (stage: string) => Promise<void>;

/**
 * Clones the source into a staging sibling of `target`, checks out its pin (or the remote's default branch), and
 * swaps it in. The old checkout, if any, stays in place until the new one is complete.
 */
export async function stageAndSwap(
	target: string,
	scopeRoot: string,
	source: GitSource,
	onStaged?: OnStaged,
): Promise<string> {
	const root = gitRoot(scopeRoot);
	refuseNestedCheckout(scopeRoot, target, source.source);
	mkdirSync(dirname(target), { recursive: true });
	// pi's rule: a scope's git directory ignores itself, so a project's checkouts are never committed.
	if (!existsSync(join(root, ".gitignore"))) writeFileSync(join(root, ".gitignore"), "*\n!.gitignore\n");
	const suffix = `${process.pid}-${Date.now().toString(36)}`;
	const stage = `${target}.pier-stage-${suffix}`;
	const old = `${target}.pier-old-${suffix}`;
	try {
		await git(["clone", "--quiet", "--end-of-options", source.repo, stage]);
		await checkoutPin(stage, source);
		await installDependencies(stage);
		await onStaged?.(stage);
		const head = await git(["rev-parse", "HEAD"], stage);
		if (existsSync(target)) renameSync(target, old);
		try {
			renameSync(stage, target);
		} catch (error) {
			if (existsSync(old)) renameSync(old, target);
			throw error;
		}
		rmSync(old, { recursive: true, force: true });
		return head;
	} finally {
		rmSync(stage, { recursive: true, force: true });
	}
}

/**
 * `pier update` of an unpinned checkout: the remote's default branch, as a fresh staged clone (so a moved or
 * rewritten remote cannot leave the checkout between two states). Returns the old and new commits.
 */
export async function updateUnpinned(
	target: string,
	scopeRoot: string,
	source: GitSource,
	onStaged?: OnStaged,
): Promise<{ from?: string; to: string }> {
	const from = await headOf(target);
	if (from) {
		const remote = await git(["ls-remote", "--end-of-options", source.repo, "HEAD"]).catch(() => "");
		if (remote.split(/\s/)[0] === from) return { from, to: from };
	}
	const to = await stageAndSwap(target, scopeRoot, source, onStaged);
	return { ...(from ? { from } : {}), to };
}

/**
 * `pier update` of a pinned checkout: nothing when the remote's ref still names the commit checked out (a tag),
 * else a fresh staged clone at the pin (a branch pin that moved, or a pin the checkout does not match).
 */
export async function updatePinned(
	target: string,
	scopeRoot: string,
	source: GitSource,
	onStaged?: OnStaged,
): Promise<string> {
	const head = await headOf(target);
	if (head && source.ref && (await matchesPin(target, source))) {
		const lines = await git(["ls-remote", "--end-of-options", source.repo, source.ref]).catch(() => "");
		const rows = lines.split("\n").map((l) => l.split("\t"));
		// An annotated tag's commit is its peeled `^{}` line.
		const remote = (rows.find((r) => r[1]?.endsWith("^{}")) ?? rows[0])?.[0];
		if (remote === head) return head;
	}
	return stageAndSwap(target, scopeRoot, source, onStaged);
}

/** Deletes a checkout and the directories it leaves empty, up to the scope's git root (pi's pruning). */
export function removeCheckout(target: string, scopeRoot: string, source: string): boolean {
	if (!existsSync(target)) return false;
	// A directory inside another package's checkout is that package's, whatever settings say.
	const outer = enclosingCheckout(gitRoot(scopeRoot), target);
	if (outer)
		throw new PackageSourceError(
			source,
			`${target} is inside the checkout ${outer} of another package; not deleting it (remove that package instead)`,
		);
	rmSync(target, { recursive: true, force: true });
	const root = gitRoot(scopeRoot);
	let dir = dirname(target);
	while (relative(root, dir) && !relative(root, dir).startsWith("..")) {
		try {
			if (!statSync(dir).isDirectory() || readdirSync(dir).length > 0) break;
			rmSync(dir, { recursive: true });
		} catch {
			break;
		}
		dir = dirname(dir);
	}
	return true;
}

/**
 * The one trust check for a project: does it carry anything pier would load, and did the user decide?
 *
 * Policy (pi 1.6's): a project with nothing pier would load is trusted; else a
 * one-run flag (`--approve` / `--no-approve`) decides; else the nearest decision in `<agentDir>/trust.json`; else it
 * is undecided, which is untrusted unless a user-level trust hook or the terminal's question approves it. Headless
 * runs never ask. An untrusted project contributes nothing (see trust-settings.ts for how pi is told).
 */
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { canonicalDir, TrustStore } from "./trust-store.js";

/** What under `<cwd>/.pi` pier (through pi) would load: pi 1.6's list (`mcp.json` names commands pi's MCP runs). */
const PROJECT_CONFIG_RESOURCES = [
	"settings.json",
	"mcp.json",
	"extensions",
	"skills",
	"prompts",
	"themes",
	"SYSTEM.md",
	"APPEND_SYSTEM.md",
] as const;
/** pi 1.6's context file names, in its order of preference per directory (it reads the first that is a file). */
export const CONTEXT_FILE_NAMES = ["AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"] as const;

export interface TrustOptions {
	/** `--approve` (true), `--no-approve` (false), or unset. */
	approve?: boolean;
	agentDir: string;
}

export type TrustSource = "nothing-to-trust" | "flag" | "store" | "undecided" | "extension" | "prompt";

export interface TrustDecision {
	/** The canonical project directory (the store's key). */
	cwd: string;
	trusted: boolean;
	/** What the project has that trust gates (paths relative to cwd, or absolute outside it). Empty: nothing to decide. */
	resources: string[];
	source: TrustSource;
	/** For `store`: the directory whose stored decision applied (cwd or an ancestor). */
	matchedPath?: string;
	/** No flag and no stored decision: trust hooks or the terminal's question may still approve. */
	undecided?: boolean;
	/** The one line shown when the project's files are skipped (or trusted by an extension). */
	reason?: string;
}

function isFile(path: string): boolean {
	return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

function homeDir(): string {
	return canonicalDir(process.env.HOME || homedir());
}

function isInside(path: string, root: string): boolean {
	return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

function ancestors(dir: string, stopAt?: string): string[] {
	const dirs: string[] = [];
	let current = dir;
	while (true) {
		dirs.push(current);
		if (stopAt && current === stopAt) return dirs;
		const parent = dirname(current);
		if (parent === current) return dirs;
		current = parent;
	}
}

function gitRoot(dir: string): string | undefined {
	return ancestors(dir).find((d) => existsSync(join(d, ".git")));
}

/**
 * The `.agents/skills` directories pi 0.74.2 reads for `cwd` (cwd up to the git root, else to `/`), without the
 * user's own `~/.agents/skills`.
 */
export function projectAgentsSkillDirs(cwd: string): string[] {
	const user = join(homeDir(), ".agents", "skills");
	return ancestors(resolve(cwd), gitRoot(resolve(cwd)))
		.map((d) => join(d, ".agents", "skills"))
		.filter((d) => d !== user && canonicalDir(d) !== user);
}

/**
 * Whether a context file pi would load for `cwd` is the project's. pi reads `<agentDir>/AGENTS.md` (the user's)
 * and one file per directory from cwd up to `/`. Files in the home directory or above it are the user's or the
 * machine's, not something a cloned project can bring; the ones below home, and anywhere outside home, are the
 * project's.
 */
export function isProjectContextFile(file: string, agentDir: string): boolean {
	const dir = canonicalDir(dirname(file));
	if (dir === canonicalDir(agentDir)) return false;
	const home = homeDir();
	if (isInside(home, dir)) return false;
	return true;
}

/** Everything the project at `cwd` has that pier would load from it. */
export function trustRequiringResources(cwd: string, agentDir: string): string[] {
	const root = resolve(cwd);
	const found: string[] = [];
	const label = (path: string) => {
		const rel = relative(root, path);
		return rel && !rel.startsWith("..") ? rel : path;
	};
	for (const entry of PROJECT_CONFIG_RESOURCES) {
		const path = join(root, ".pi", entry);
		if (existsSync(path)) found.push(label(path));
	}
	for (const dir of projectAgentsSkillDirs(root)) if (existsSync(dir)) found.push(label(dir));
	for (const dir of ancestors(root)) {
		const name = CONTEXT_FILE_NAMES.find((n) => isFile(join(dir, n)));
		if (name && isProjectContextFile(join(dir, name), agentDir)) found.push(label(join(dir, name)));
	}
	return found;
}

/** Decides without asking anyone; the store is read only when no flag decided. */
export function decideProjectTrust(cwd: string, options: TrustOptions): TrustDecision {
	const dir = canonicalDir(cwd);
	const resources = trustRequiringResources(dir, options.agentDir);
	const base = { cwd: dir, resources };
	if (resources.length === 0) return { ...base, trusted: true, source: "nothing-to-trust" };
	if (options.approve === true) return { ...base, trusted: true, source: "flag" };
	if (options.approve === false) return untrusted(base, "flag", "--no-approve was given");
	const entry = new TrustStore(options.agentDir).entry(dir);
	if (entry?.decision === true) return { ...base, trusted: true, source: "store", matchedPath: entry.path };
	if (entry?.decision === false) {
		const where = entry.path === dir ? "" : ` (decided for ${entry.path})`;
		return { ...untrusted(base, "store", `you chose not to trust it${where}`), matchedPath: entry.path };
	}
	return { ...untrusted(base, "undecided", "no decision yet"), undecided: true };
}

function untrusted(base: { cwd: string; resources: string[] }, source: TrustSource, why: string): TrustDecision {
	return { ...base, trusted: false, source, reason: skippedLine(base.cwd, base.resources, why) };
}

/** The one line pier prints for an untrusted project: what it skipped and how to trust it. */
export function skippedLine(cwd: string, resources: readonly string[], why: string): string {
	return `project ${cwd} is not trusted (${why}): skipped ${resources.join(", ")}; trust it with \`pier trust ${cwd}\`, or for one run with --approve`;
}

/** The decision once a user-level extension's trust hook approved the project. */
export function approvedByExtension(decision: TrustDecision, extensionId: string): TrustDecision {
	return {
		cwd: decision.cwd,
		resources: decision.resources,
		trusted: true,
		source: "extension",
		reason: `project trusted by extension ${extensionId}`,
	};
}

/** The decision once a user-level extension's trust hook refused the project. */
export function refusedByExtension(decision: TrustDecision, extensionId: string): TrustDecision {
	return untrusted(decision, "extension", `extension ${extensionId} chose not to trust it`);
}

/** The decision once the user answered the terminal's question. */
export function answeredByUser(decision: TrustDecision, trusted: boolean): TrustDecision {
	if (trusted) return { cwd: decision.cwd, resources: decision.resources, trusted: true, source: "prompt" };
	return untrusted(decision, "prompt", "you chose not to trust it");
}

/** A session's decision as it stands now: a reload may re-decide it (see `decisionAtReload`). */
export type LiveTrust = TrustDecision | (() => TrustDecision);

export const trustNow = (trust: LiveTrust): TrustDecision => (typeof trust === "function" ? trust() : trust);

/**
 * Whether pier may load anything from the project. "Nothing to trust" is trusted for what it had, which was
 * nothing: whatever appears after that decision (and before the next reload re-decides) is not the project's to
 * load, so a file written between the check and pi's read gains nothing.
 */
export const projectContentAllowed = (decision: TrustDecision): boolean =>
	decision.trusted && decision.source !== "nothing-to-trust";

/**
 * The decision a reload works with. "Nothing to trust" and "undecided" were no one's decision: they are made
 * again, so resources that appeared since are undecided (untrusted: a reload never asks) and a `pier trust` given
 * meanwhile applies. A decision someone made (flag, store, a trust hook, the question) stands for the session.
 */
export function decisionAtReload(current: TrustDecision, options: TrustOptions): TrustDecision {
	if (current.source !== "nothing-to-trust" && current.source !== "undecided") return current;
	return decideProjectTrust(current.cwd, options);
}

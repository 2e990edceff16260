/**
 * The extension policy's patterns: what each names and what it matches. Four forms, and nothing else, so that a
 * typo is an error rather than a pattern that silently matches nothing:
 *
 * - `npm:<name>` — an npm package by name (`npm:@scope/*`); never a version.
 * - `git:<host>/<path>` — a git repository by pi's identity (`git:github.com/org/*`, `git:file/…` for `file://`);
 *   never a ref. Written as a URL (`https://github.com/org/x`) it is refused with the `git:` form to use.
 * - an absolute or `~` path — a directory or file on disk, and everything inside it.
 * - `id:<id>` — an extension by its id (a manifest's `id`, or an in-process extension's name).
 *
 * A bare word (`lodash`, `my-ext`) is refused: it could mean an npm package, an id or a relative path, and a policy
 * must not guess which. In every form `*` matches any characters but `/`, and `**` any characters at all.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

export type PatternKind = "npm" | "git" | "path" | "id";

export interface PolicyPattern {
	/** As the user wrote it (what refusals quote). */
	text: string;
	kind: PatternKind;
	/** Matches a whole subject of the pattern's kind (for paths: the path or one of its ancestors). */
	regexes: RegExp[];
}

/** What an extension or package is, as the policy sees it. */
export interface PolicySubject {
	/** A package's identity (`npm:<name>`, `git:<host>/<path>`, `local:<path>`) when it comes from one. */
	source?: string;
	/** Where it is on disk (as given and by real path). */
	paths: string[];
	/** An extension's id, once known. */
	id?: string;
}

export class PatternError extends Error {
	override name = "PatternError";
}

const escapeRegex = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

/** `*` is any run of non-`/` characters, `**` any run of characters. */
function globSource(glob: string): string {
	return glob
		.split("**")
		.map((part) => part.split("*").map(escapeRegex).join("[^/]*"))
		.join(".*");
}

const whole = (glob: string, flags = "") => new RegExp(`^${globSource(glob)}$`, flags);

function realOrSelf(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** Parses one pattern; throws PatternError saying what is wrong and how to write it. */
export function parsePattern(text: string): PolicyPattern {
	if (typeof text !== "string") throw new PatternError("is not a string");
	if (text.trim() === "") throw new PatternError("is empty");
	if (text !== text.trim()) throw new PatternError(`${JSON.stringify(text)} has leading or trailing spaces`);
	// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is rejected
	if (/[\u0000-\u001f\u007f]/.test(text)) throw new PatternError(`${JSON.stringify(text)} has control characters`);
	const fail = (problem: string): never => {
		throw new PatternError(`${JSON.stringify(text)} ${problem}`);
	};
	if (text.startsWith("npm:")) {
		const name = text.slice(4);
		if (!/^(@[A-Za-z0-9*._~-]+\/)?[A-Za-z0-9*._~-]+$/.test(name)) {
			if (/^@?[^@]+@/.test(name)) fail("names a version: a policy names packages (write npm:<name>)");
			fail("is not an npm package name (npm:name, npm:@scope/name, npm:@scope/*)");
		}
		// npm names are lower-case; a pattern written with capitals still means the same package.
		return { text, kind: "npm", regexes: [whole(`npm:${name}`, "i")] };
	}
	if (text.startsWith("git:")) {
		const rest = text.slice(4).replace(/\.git$/, "");
		if (rest.includes("@")) fail("names a ref: a policy names repositories (write git:<host>/<owner>/<repo>)");
		if (rest.includes("://")) fail("is a URL: write git:<host>/<path>, as pier list shows the identity");
		const slash = rest.indexOf("/");
		if (slash <= 0 || slash === rest.length - 1) fail("needs a host and a path (git:github.com/org/*)");
		if (rest.split("/").some((s) => s === "" || s === "." || s === "..")) fail("has an empty, '.' or '..' segment");
		const host = rest.slice(0, slash).toLowerCase();
		return { text, kind: "git", regexes: [whole(`git:${host}/${rest.slice(slash + 1)}`)] };
	}
	if (text.startsWith("id:")) {
		const id = text.slice(3);
		if (!/^[A-Za-z0-9_.*-]{1,128}$/.test(id))
			fail("is not an extension id (1–128 of A-Z a-z 0-9 _ . - and * as a wildcard)");
		return { text, kind: "id", regexes: [whole(id)] };
	}
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || text.startsWith("git@"))
		fail("is a URL: write git:<host>/<owner>/<repo> for a repository, or an absolute path");
	if (text === "~" || text.startsWith("~/") || isAbsolute(text)) {
		const path = resolve(text === "~" ? homedir() : text.startsWith("~/") ? join(homedir(), text.slice(2)) : text);
		if (path === "/") fail("is the root directory: it would match every extension (use ** for that)");
		// A pattern naming a symlinked directory also matches what it points to, so a path cannot be dodged by link.
		const forms = path.includes("*") ? [path] : [...new Set([path, realOrSelf(path)])];
		return { text, kind: "path", regexes: forms.map((p) => new RegExp(`^${globSource(p)}(/.*)?$`)) };
	}
	if (/^[A-Za-z0-9_.-]+$/.test(text))
		fail(`is a bare word: write id:${text} for an extension id, or npm:${text} for an npm package`);
	return fail("is not a pattern: use npm:<name>, git:<host>/<path>, an absolute or ~ path, or id:<id>");
}

/** Whether `pattern` matches `subject`. Path patterns match every path given (lexical and real), ids only ids. */
export function patternMatches(pattern: PolicyPattern, subject: PolicySubject): boolean {
	const test = (value: string | undefined) => value !== undefined && pattern.regexes.some((r) => r.test(value));
	switch (pattern.kind) {
		case "npm":
		case "git":
			return test(subject.source);
		case "id":
			return test(subject.id);
		case "path": {
			const local = subject.source?.startsWith("local:") ? [subject.source.slice(6)] : [];
			return [...subject.paths, ...local].some((p) => test(p) || test(realOrSelf(p)));
		}
	}
}

/**
 * Package sources, parsed before anything is installed: npm, git and local paths, as pi 0.74.2 spells them, plus
 * what pi gets wrong (see ../../../docs/packages.md): `git://…` and `file://…` URLs without the `git:` prefix are git
 * (pi takes them for missing local paths and loads nothing), and every ref is validated (rpi's rules) before git
 * sees it, so `@--upload-pack=…` can never become an option of a git command.
 *
 * Identity (which entries are "the same package": project over global, `remove`, `update`) is pi's:
 * `npm:<name>`, `git:<host>/<path>` (host lower-cased, `.git` dropped), `local:<absolute path>`. A `file://`
 * repository's identity is `git:file/<path>`.
 */
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import type { PackageScope } from "./vocabulary.js";

export type { PackageScope } from "./vocabulary.js";

export type ParsedSource =
	| { kind: "npm"; source: string; identity: string; name: string; version?: string; pinned: boolean }
	| {
			kind: "git";
			source: string;
			identity: string;
			/** What `git clone` is given. */
			repo: string;
			host: string;
			/** `owner/repo` (or the repository's path for `file://`), without `.git`. */
			path: string;
			ref?: string;
			pinned: boolean;
	  }
	| { kind: "local"; source: string; identity: string; path: string; pinned: false };

/** Whether `-e` names a package source (npm or git) rather than a path. */
export function isPackageSource(path: string): boolean {
	return /^(npm:|git:|[a-z][a-z0-9+.-]*:\/\/|git@)/i.test(path);
}

export class PackageSourceError extends Error {
	override name = "PackageSourceError";
	constructor(
		readonly source: string,
		problem: string,
	) {
		super(`package ${JSON.stringify(source)}: ${problem}`);
	}
}

/** The directory a scope's relative local sources are resolved against (pi's rule). */
export function scopeBaseDir(scope: PackageScope, cwd: string, agentDir: string): string {
	return scope === "project" ? join(cwd, ".pi") : agentDir;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is rejected
const CONTROL = /[\u0000-\u001f\u007f]/;

/** rpi's git ref rule, applied to the ref as written and percent-decoded; undefined when the ref is acceptable. */
export function refProblem(ref: string): string | undefined {
	let decoded = ref;
	try {
		decoded = decodeURIComponent(ref);
	} catch {
		return "is not valid percent-encoding";
	}
	for (const value of new Set([ref, decoded])) {
		if (value === "") return "is empty";
		if (value.startsWith("-")) return "must not start with '-' (git would read it as an option)";
		if (value.startsWith("/") || value.endsWith("/")) return "must not start or end with '/'";
		if (value.endsWith(".")) return "must not end with '.'";
		if (value.includes("..")) return "must not contain '..'";
		if (value.includes("//")) return "must not contain '//'";
		if (value.includes("@{")) return "must not contain '@{'";
		if (CONTROL.test(value)) return "must not contain control characters";
		if (/\s/.test(value)) return "must not contain whitespace";
		const bad = /[\\:?*[^~]/.exec(value);
		if (bad) return `must not contain '${bad[0]}'`;
		for (const segment of value.split("/")) {
			if (segment === "" || segment === "." || segment === "..") return "has an empty, '.' or '..' segment";
			if (segment.endsWith(".lock")) return "has a segment ending in '.lock'";
		}
	}
	return undefined;
}

function pathProblem(path: string): string | undefined {
	if (CONTROL.test(path) || path.includes("\\")) return "has control characters or backslashes in its path";
	const segments = path.split("/");
	if (segments.some((s) => s === ".." || s === ".")) return "has a '.' or '..' segment in its path";
	if (segments.some((s) => s === "")) return "has an empty segment in its path";
	return undefined;
}

/**
 * The host names a directory of the checkout's path (`<git root>/<host>/…`): `.`, `..` and empty labels would put
 * it outside the root or over another host's checkouts, so they are no host.
 */
function hostProblem(host: string): string | undefined {
	if (!host) return "has no host";
	if (CONTROL.test(host) || /[\s/\\]/.test(host)) return `host ${JSON.stringify(host)} is not a host name`;
	if (host.split(".").some((label) => label === ""))
		return `host ${JSON.stringify(host)} is not a host name (it is or has an empty, '.' or '..' label)`;
	return undefined;
}

/** Splits `<repo>@<ref>` where the `@` is in the path part (not `git@host:`). */
function splitRef(rest: string): { repo: string; ref?: string } {
	const pathStart = rest.startsWith("git@") ? rest.indexOf(":") : rest.indexOf("/", rest.indexOf("://") + 3);
	// The first @ of the path: everything after it is the ref, so `@@{u}` is the ref "@{u}" (refused).
	const at = pathStart < 0 ? -1 : rest.indexOf("@", pathStart + 1);
	if (at < 0) return { repo: rest };
	return { repo: rest.slice(0, at), ref: rest.slice(at + 1) };
}

function gitSource(source: string, repo: string, host: string, rawPath: string, ref: string | undefined): ParsedSource {
	const fail = (problem: string): never => {
		throw new PackageSourceError(source, problem);
	};
	if (/[?#]/.test(repo)) fail("query strings and fragments are not supported (pin a ref with @ref)");
	if (ref !== undefined) {
		const problem = refProblem(ref);
		if (problem) fail(`ref ${JSON.stringify(ref)} ${problem}`);
	}
	const path = rawPath
		.replace(/^\/+/, "")
		.replace(/\/+$/, "")
		.replace(/\.git$/, "");
	const problem = pathProblem(path);
	if (problem) fail(problem);
	const badHost = hostProblem(host);
	if (badHost) fail(badHost);
	return {
		kind: "git",
		source,
		identity: `git:${host.toLowerCase()}/${path}`,
		repo,
		host: host.toLowerCase(),
		path,
		...(ref !== undefined ? { ref } : {}),
		pinned: ref !== undefined,
	};
}

function parseUrl(source: string, rest: string): ParsedSource {
	const { repo, ref } = splitRef(rest);
	let url: URL;
	try {
		url = new URL(repo);
	} catch {
		throw new PackageSourceError(source, `${repo} is not a valid URL`);
	}
	if (url.protocol === "file:") {
		const path = fileURLToPath(url);
		if (url.search || url.hash) throw new PackageSourceError(source, "query strings and fragments are not supported");
		// A local repository: its path is the identity (it has no host), and it must exist to be cloned.
		return gitSource(source, repo, "file", path, ref);
	}
	if (!["https:", "http:", "ssh:", "git:"].includes(url.protocol)) {
		throw new PackageSourceError(
			source,
			`unsupported URL scheme ${url.protocol} (use https://, ssh://, git://, file:// or git:host/owner/repo)`,
		);
	}
	const path = decodeURIComponent(url.pathname);
	if (
		path
			.replace(/^\/+/, "")
			.replace(/\.git$/, "")
			.split("/")
			.filter(Boolean).length < 2
	) {
		throw new PackageSourceError(source, "a git URL needs an owner and a repository (host/owner/repo)");
	}
	return gitSource(source, repo, url.hostname, path, ref);
}

/**
 * Parses a source as written in settings or on the command line. Local paths stay as written (relative ones are
 * resolved against the scope's base dir by `localPath`). Throws PackageSourceError naming the source.
 */
export function parseSource(input: string): ParsedSource {
	const source = input.trim();
	if (source === "") throw new PackageSourceError(input, "is empty");
	if (CONTROL.test(source)) throw new PackageSourceError(input, "contains control characters");
	if (source.startsWith("npm:")) {
		const spec = source.slice(4).trim();
		const match = /^(@?[^@]+(?:\/[^@]+)?)(?:@(.+))?$/.exec(spec);
		if (!match?.[1]) throw new PackageSourceError(source, "needs a package name: npm:name[@version]");
		const [, name, version] = match;
		if (/^[-.]|\s/.test(name!))
			throw new PackageSourceError(source, `${JSON.stringify(name)} is not an npm package name`);
		if (version !== undefined && (version.startsWith("-") || /\s/.test(version)))
			throw new PackageSourceError(source, `version ${JSON.stringify(version)} is not a version or tag`);
		return {
			kind: "npm",
			source,
			identity: `npm:${name}`,
			name: name!,
			...(version ? { version } : {}),
			pinned: !!version,
		};
	}
	const prefixed = source.startsWith("git:") && !source.startsWith("git://");
	const rest = prefixed ? source.slice(4).trim() : source;
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rest)) return parseUrl(source, rest);
	const scp = /^([A-Za-z0-9._-]+)@([^:/]+):(.+)$/.exec(rest);
	if (scp && (prefixed || scp[1] === "git")) {
		const { repo, ref } = splitRef(rest);
		const path = repo.slice(repo.indexOf(":") + 1);
		if (
			path
				.replace(/\.git$/, "")
				.split("/")
				.filter(Boolean).length < 2
		)
			throw new PackageSourceError(source, "an scp-style source needs owner/repo after the colon");
		return gitSource(source, repo, scp[2]!, path, ref);
	}
	if (prefixed) {
		// pi's shorthand git:host/owner/repo[@ref], cloned over https.
		const { repo, ref } = splitRef(`//${rest}`);
		const bare = repo.slice(2);
		const slash = bare.indexOf("/");
		const host = slash < 0 ? "" : bare.slice(0, slash);
		if (!host || (!host.includes(".") && host !== "localhost") || bare.slice(slash + 1).split("/").length < 2)
			throw new PackageSourceError(source, "git: shorthand must be git:host/owner/repo[@ref] (the host has a dot)");
		return gitSource(source, `https://${bare}`, host, bare.slice(slash + 1), ref);
	}
	return { kind: "local", source, identity: "", path: source, pinned: false };
}

/** A local source's absolute path, as pi resolves it: `~` is home, relative is against the scope's base dir. */
export function localPath(path: string, baseDir: string): string {
	if (path === "~") return homedir();
	if (path.startsWith("~/")) return join(homedir(), path.slice(2));
	return isAbsolute(path) ? resolve(path) : resolve(baseDir, path);
}

/** `parseSource` with a local source's identity filled in for its scope, and bare repositories refused. */
export function parseScopedSource(input: string, baseDir: string): ParsedSource {
	const parsed = parseSource(input);
	if (parsed.kind !== "local") return parsed;
	const path = localPath(parsed.path, baseDir);
	if (isBareRepository(path)) {
		throw new PackageSourceError(
			input,
			`${path} is a bare git repository, not a package directory; to install from it use file://${path}`,
		);
	}
	return { ...parsed, identity: `local:${path}`, path };
}

function isBareRepository(path: string): boolean {
	try {
		return statSync(path).isDirectory() && existsSync(join(path, "HEAD")) && existsSync(join(path, "objects"));
	} catch {
		return false;
	}
}

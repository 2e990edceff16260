/**
 * The npm registry, read for the package catalog: search (`/-/v1/search`, always narrowed to
 * `keywords:pi-package`), a package's packument (versions, dist-tags, README) and weekly downloads
 * (`api.npmjs.org/downloads/point/last-week/<name>`).
 *
 * The registry is npm's own (`PIER_NPM_REGISTRY`, else `npm_config_registry` in the environment, else
 * `npm config get registry`, else registry.npmjs.org), so search shows what `pier install npm:…` installs.
 * Downloads are a separate service that only counts registry.npmjs.org: for another registry (unless
 * `PIER_NPM_DOWNLOADS` names a service) and whenever that service cannot be reached, a package's downloads are
 * unknown and the search still answers. A registry that cannot be reached or answers an error is a
 * RegistryError naming it and what to do; nothing installed depends on it.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { RegistryDetails, RegistryPackage, RegistrySearch } from "./wire.js";

const run = promisify(execFile);

export const NPMJS = "https://registry.npmjs.org/";
const DOWNLOADS = "https://api.npmjs.org/downloads/point/last-week/";
/** The keyword pi's package gallery lists by. */
export const PI_PACKAGE_KEYWORD = "pi-package";

export const SEARCH_TIMEOUT_MS = 15_000;
const DOWNLOADS_TIMEOUT_MS = 4_000;
/** A packument past this is refused: pi packages are small, and the daemon must not buffer a huge body. */
export const MAX_PACKUMENT_BYTES = 16 * 1024 * 1024;
/** What of a README is shown. */
export const MAX_README_CHARS = 200_000;
/** npm's search answers at most 250 per page. */
export const MAX_SEARCH_SIZE = 100;
export const MAX_QUERY_CHARS = 200;

export class RegistryError extends Error {
	constructor(
		message: string,
		/** `unreachable`: no answer; `failed`: an error status or a body that is not the registry's; `not_found`. */
		readonly reason: "unreachable" | "failed" | "not_found",
	) {
		super(message);
		this.name = "RegistryError";
	}
}

export interface RegistryOptions {
	/** The registry's base URL; default: npm's configuration (`registryUrl`). */
	registry?: string;
	env?: NodeJS.ProcessEnv;
	/** Where `npm config get registry` runs (a project's .npmrc counts, as for npm). */
	cwd?: string;
}

const withSlash = (url: string) => (url.endsWith("/") ? url : `${url}/`);

/** npm's registry setting, as `npm install` would use it here. */
export async function registryUrl(options: RegistryOptions = {}): Promise<string> {
	if (options.registry) return withSlash(options.registry);
	const env = options.env ?? process.env;
	const fromEnv = env.PIER_NPM_REGISTRY || env.npm_config_registry || env.NPM_CONFIG_REGISTRY;
	if (fromEnv) return withSlash(fromEnv);
	const key = options.cwd ?? process.cwd();
	const cached = npmConfigured.get(key);
	if (cached && Date.now() - cached.at < NPM_CONFIG_TTL_MS) return cached.url;
	const url = await npmConfigRegistry(env, key);
	npmConfigured.set(key, { url, at: Date.now() });
	if (npmConfigured.size > 64) npmConfigured.delete(npmConfigured.keys().next().value as string);
	return url;
}

/** `npm config get registry` costs a process: the daemon asks again after a minute, not on every search. */
const NPM_CONFIG_TTL_MS = 60_000;
const npmConfigured = new Map<string, { url: string; at: number }>();

async function npmConfigRegistry(env: NodeJS.ProcessEnv, cwd: string): Promise<string> {
	try {
		const { stdout } = await run("npm", ["config", "get", "registry"], {
			cwd,
			env: { ...env, npm_config_ignore_scripts: "true" },
			timeout: 15_000,
		});
		const url = stdout.trim();
		if (/^https?:\/\//.test(url)) return withSlash(url);
	} catch {
		// no npm on PATH: npm's own default
	}
	return NPMJS;
}

const isNpmjs = (registry: string) => /^https?:\/\/registry\.npmjs\.(org|com)\/$/.test(registry);

function unreachable(registry: string, cause: unknown): RegistryError {
	const why = (cause as { cause?: { code?: string; message?: string } }).cause;
	const detail =
		(cause as Error).name === "TimeoutError"
			? "no answer in time"
			: (why?.code ?? why?.message ?? (cause as Error).message);
	return new RegistryError(
		`the npm registry at ${registry} cannot be reached (${detail}). Check the network connection, or the registry ` +
			"setting (npm config get registry; PIER_NPM_REGISTRY overrides it for pier). Installed packages keep working.",
		"unreachable",
	);
}

/** The body of a registry answer, read up to `limit` bytes. */
async function readLimited(response: Response, limit: number, what: string): Promise<string> {
	const length = Number(response.headers.get("content-length") ?? "0");
	if (length > limit) throw new RegistryError(`${what} is larger than ${limit} bytes; refused`, "failed");
	const reader = response.body?.getReader();
	if (!reader) return "";
	const chunks: Uint8Array[] = [];
	let total = 0;
	for (;;) {
		const { done, value } = await reader.read();
		if (done) break;
		total += value.byteLength;
		if (total > limit) {
			await reader.cancel();
			throw new RegistryError(`${what} is larger than ${limit} bytes; refused`, "failed");
		}
		chunks.push(value);
	}
	return Buffer.concat(chunks).toString("utf8");
}

async function getJson(url: string, registry: string, what: string, limit: number): Promise<unknown> {
	let response: Response;
	try {
		response = await fetch(url, {
			headers: { accept: "application/json" },
			signal: AbortSignal.timeout(SEARCH_TIMEOUT_MS),
			redirect: "follow",
		});
	} catch (error) {
		throw unreachable(registry, error);
	}
	if (response.status === 404) {
		await response.body?.cancel();
		throw new RegistryError(`${what}: not found on the npm registry at ${registry}`, "not_found");
	}
	if (!response.ok) {
		await response.body?.cancel();
		throw new RegistryError(
			`the npm registry at ${registry} answered ${response.status} ${response.statusText} for ${what}; try again later, ` +
				"or check the registry setting (npm config get registry; PIER_NPM_REGISTRY). Installed packages keep working.",
			"failed",
		);
	}
	let text: string;
	try {
		text = await readLimited(response, limit, what);
	} catch (error) {
		if (error instanceof RegistryError) throw error;
		throw unreachable(registry, error);
	}
	try {
		return JSON.parse(text);
	} catch {
		throw new RegistryError(
			`the npm registry at ${registry} answered ${what} with something that is not JSON`,
			"failed",
		);
	}
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

/** A repository field (`"github:o/r"`, a URL, or `{url}`) as a URL to show. */
function repositoryUrl(v: unknown): string | undefined {
	const url = typeof v === "string" ? v : str((v as { url?: unknown } | null)?.url);
	return url?.replace(/^git\+/, "").replace(/\.git$/, "");
}

/** An npm package name as the registry's path takes it: a scope's slash is encoded. */
export function packagePath(name: string): string {
	return name.startsWith("@") ? `@${encodeURIComponent(name.slice(1))}` : encodeURIComponent(name);
}

/** npm's rules for a name, enough that nothing else reaches a URL: lower case, URL-safe, at most 214 characters. */
export function packageNameProblem(name: string): string | undefined {
	if (name.length === 0 || name.length > 214) return "must be 1 to 214 characters";
	if (!/^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/.test(name))
		return "is not an npm package name (lower case letters, digits, - . _ ~, and an optional @scope/)";
	return undefined;
}

/** Weekly downloads of each name; a name the service does not answer for is absent. Never throws. */
export async function weeklyDownloads(
	names: readonly string[],
	registry: string,
	env: NodeJS.ProcessEnv = process.env,
): Promise<{ counts: Map<string, number>; note?: string }> {
	const counts = new Map<string, number>();
	const service = env.PIER_NPM_DOWNLOADS
		? withSlash(env.PIER_NPM_DOWNLOADS)
		: isNpmjs(registry)
			? DOWNLOADS
			: undefined;
	if (!service) return { counts, note: `downloads unknown: ${registry} is not registry.npmjs.org` };
	let failures = 0;
	await Promise.all(
		names.map(async (name) => {
			try {
				const response = await fetch(`${service}${name}`, { signal: AbortSignal.timeout(DOWNLOADS_TIMEOUT_MS) });
				if (!response.ok) {
					await response.body?.cancel();
					if (response.status !== 404) failures++;
					return;
				}
				const body = JSON.parse(await readLimited(response, 64 * 1024, "downloads")) as { downloads?: unknown };
				if (typeof body.downloads === "number") counts.set(name, body.downloads);
			} catch {
				failures++;
			}
		}),
	);
	return failures > 0 && counts.size === 0
		? { counts, note: `downloads unknown: ${service} cannot be reached` }
		: { counts };
}

/** Search results: packages with the pi-package keyword that match `words`. */
export async function searchPackages(
	words: string,
	options: RegistryOptions & { size?: number; from?: number } = {},
): Promise<RegistrySearch> {
	const registry = await registryUrl(options);
	const size = Math.min(Math.max(1, options.size ?? 20), MAX_SEARCH_SIZE);
	const from = Math.max(0, options.from ?? 0);
	const text = `keywords:${PI_PACKAGE_KEYWORD}${words.trim() ? ` ${words.trim()}` : ""}`;
	const url = `${registry}-/v1/search?text=${encodeURIComponent(text)}&size=${size}&from=${from}`;
	let body: { objects?: unknown; total?: unknown };
	try {
		body = (await getJson(url, registry, "the search", MAX_PACKUMENT_BYTES)) as typeof body;
	} catch (error) {
		// A mirror or proxy that serves packages may not serve search at all.
		if (!(error instanceof RegistryError) || error.reason !== "not_found") throw error;
		throw new RegistryError(
			`the npm registry at ${registry} does not offer search (${registry}-/v1/search answered 404): set a registry ` +
				"that does (npm config set registry, or PIER_NPM_REGISTRY for pier), or find packages elsewhere and install " +
				"them by name (pier install npm:<name>). Installed packages keep working.",
			"failed",
		);
	}
	if (!Array.isArray(body?.objects))
		throw new RegistryError(`the npm registry at ${registry} answered the search without "objects"`, "failed");
	const results: RegistryPackage[] = [];
	const known = new Map<string, number>();
	for (const object of body.objects as Array<Record<string, unknown>>) {
		const p = (object?.package ?? {}) as Record<string, unknown>;
		const name = str(p.name);
		if (!name || packageNameProblem(name)) continue;
		const links = (p.links ?? {}) as Record<string, unknown>;
		// The public registry now sends the downloads with each result; other registries do not.
		const weekly = (object.downloads as { weekly?: unknown } | undefined)?.weekly;
		if (typeof weekly === "number") known.set(name, weekly);
		results.push({
			name,
			description: str(p.description) ?? "",
			version: str(p.version) ?? "",
			...(str(p.date) ? { date: str(p.date) } : {}),
			keywords: strings(p.keywords),
			...(str((p.publisher as { username?: unknown } | undefined)?.username)
				? { publisher: str((p.publisher as { username?: unknown }).username) }
				: {}),
			links: {
				...(str(links.npm) ? { npm: str(links.npm) } : {}),
				...(str(links.homepage) ? { homepage: str(links.homepage) } : {}),
				...(str(links.repository) ? { repository: str(links.repository) } : {}),
			},
		});
	}
	const missing = results.filter((r) => !known.has(r.name)).map((r) => r.name);
	const downloads = missing.length > 0 ? await weeklyDownloads(missing, registry, options.env) : { counts: known };
	for (const r of results) {
		const n = known.get(r.name) ?? downloads.counts.get(r.name);
		if (n !== undefined) r.weeklyDownloads = n;
	}
	return {
		registry,
		total: typeof body.total === "number" ? body.total : results.length,
		results,
		...(downloads.note && results.some((r) => r.weeklyDownloads === undefined)
			? { downloadsNote: downloads.note }
			: {}),
	};
}

/** A package's packument, as the catalog shows it: versions, tags and the README. */
export async function packageDetails(name: string, options: RegistryOptions = {}): Promise<RegistryDetails> {
	const problem = packageNameProblem(name);
	if (problem) throw new RegistryError(`package name ${JSON.stringify(name)} ${problem}`, "not_found");
	const registry = await registryUrl(options);
	const body = (await getJson(`${registry}${packagePath(name)}`, registry, `package ${name}`, MAX_PACKUMENT_BYTES)) as
		| Record<string, unknown>
		| undefined;
	if (!body || typeof body !== "object" || typeof body.versions !== "object" || body.versions === null)
		throw new RegistryError(`the npm registry at ${registry} answered package ${name} without "versions"`, "failed");
	const distTags = Object.fromEntries(
		Object.entries((body["dist-tags"] ?? {}) as Record<string, unknown>).filter(
			(e): e is [string, string] => typeof e[1] === "string",
		),
	);
	const times = (body.time ?? {}) as Record<string, unknown>;
	const all = body.versions as Record<string, Record<string, unknown>>;
	const versions = Object.keys(all)
		.map((version) => ({
			version,
			...(str(times[version]) ? { date: str(times[version]) } : {}),
			...(str(all[version]?.deprecated) ? { deprecated: str(all[version]?.deprecated) } : {}),
		}))
		.sort((a, b) => (b.date ?? "").localeCompare(a.date ?? "") || compareVersions(b.version, a.version));
	const latest = distTags.latest;
	const manifest = (latest ? all[latest] : undefined) ?? {};
	// The full packument carries the README of the latest version; an abbreviated one may keep it per version.
	const readme = str(body.readme) || str(manifest.readme) || "";
	const downloads = await weeklyDownloads([name], registry, options.env);
	return {
		registry,
		name,
		description: str(body.description) ?? str(manifest.description) ?? "",
		...(latest ? { latest } : {}),
		distTags,
		versions,
		readme: readme.slice(0, MAX_README_CHARS),
		readmeTruncated: readme.length > MAX_README_CHARS,
		...(str(manifest.license ?? body.license) ? { license: str(manifest.license ?? body.license) } : {}),
		...(str(body.homepage ?? manifest.homepage) ? { homepage: str(body.homepage ?? manifest.homepage) } : {}),
		...(repositoryUrl(body.repository ?? manifest.repository)
			? { repository: repositoryUrl(body.repository ?? manifest.repository) }
			: {}),
		keywords: strings(manifest.keywords ?? body.keywords),
		...(downloads.counts.has(name) ? { weeklyDownloads: downloads.counts.get(name) } : {}),
	};
}

/** The latest version the registry tags, or undefined when it cannot say (offline, not found). Never throws. */
export async function latestVersion(name: string, options: RegistryOptions = {}): Promise<string | undefined> {
	try {
		const registry = await registryUrl(options);
		const body = (await getJson(
			`${registry}${packagePath(name)}`,
			registry,
			`package ${name}`,
			MAX_PACKUMENT_BYTES,
		)) as {
			"dist-tags"?: { latest?: unknown };
		};
		return str(body?.["dist-tags"]?.latest);
	} catch {
		return undefined;
	}
}

/** Semver order of plain `x.y.z[-pre]` versions (enough to say "newer"); anything else compares as text. */
export function compareVersions(a: string, b: string): number {
	const parse = (v: string) => /^v?(\d+)\.(\d+)\.(\d+)(?:-([^+]+))?/.exec(v);
	const pa = parse(a);
	const pb = parse(b);
	if (!pa || !pb) return a.localeCompare(b);
	for (let i = 1; i <= 3; i++) {
		const d = Number(pa[i]) - Number(pb[i]);
		if (d !== 0) return d;
	}
	if (pa[4] === pb[4]) return 0;
	if (pa[4] === undefined) return 1;
	if (pb[4] === undefined) return -1;
	return pa[4].localeCompare(pb[4], undefined, { numeric: true });
}

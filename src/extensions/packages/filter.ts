/**
 * The one filter matcher for a package's resources, of every kind: pi 0.74.2's semantics (its helpers are
 * module-private, so they are re-implemented here from its documented behaviour), extended with names.
 *
 * - filter omitted: everything; `[]`: nothing.
 * - plain entries are minimatch includes (no includes: everything), `!pat` excludes, `+exact` adds back what
 *   `!` removed, `-exact` removes even what `+` added.
 * - pi matches a resource's path relative to the package root, its file name and its absolute path. pier adds
 *   for a manifest directory its directory name and its manifest `id`, and for a TypeScript/JavaScript extension
 *   its name (the file name without extension, or the directory name of an `index.ts`), so
 *   `"extensions": ["pi-weather"]` selects the extension called pi-weather whatever its kind.
 */
import { minimatch } from "minimatch";

export interface FilterCandidate {
	/** Path relative to the package root, `/`-separated. */
	rel: string;
	absolute: string;
	/** The file or directory name (pi's basename rule). */
	basename: string;
	/** pier's extension: names an extension is also known by (directory name, manifest id). */
	names: readonly string[];
}

function keys(candidate: FilterCandidate): string[] {
	return [candidate.rel, candidate.basename, candidate.absolute, ...candidate.names];
}

function globMatches(candidate: FilterCandidate, pattern: string): boolean {
	return keys(candidate).some((key) => minimatch(key, pattern));
}

function exactMatches(candidate: FilterCandidate, pattern: string): boolean {
	const normalized = pattern.startsWith("./") ? pattern.slice(2) : pattern;
	return [candidate.rel, candidate.absolute, ...candidate.names].includes(normalized);
}

/** Whether the candidate is enabled by `patterns` (undefined: no filter). */
export function isSelected(candidate: FilterCandidate, patterns: readonly string[] | undefined): boolean {
	if (patterns === undefined) return true;
	if (patterns.length === 0) return false;
	const includes = patterns.filter((p) => !/^[!+-]/.test(p));
	const excludes = patterns.filter((p) => p.startsWith("!")).map((p) => p.slice(1));
	const forceIncludes = patterns.filter((p) => p.startsWith("+")).map((p) => p.slice(1));
	const forceExcludes = patterns.filter((p) => p.startsWith("-")).map((p) => p.slice(1));
	let selected = includes.length === 0 || includes.some((p) => globMatches(candidate, p));
	if (selected && excludes.some((p) => globMatches(candidate, p))) selected = false;
	if (!selected && forceIncludes.some((p) => exactMatches(candidate, p))) selected = true;
	if (forceExcludes.some((p) => exactMatches(candidate, p))) selected = false;
	return selected;
}

/** A settings entry's filter for one resource type: undefined when omitted, an error naming the field if malformed. */
export function filterOf(entry: unknown, type: "extensions" | "skills" | "prompts" | "themes"): string[] | undefined {
	if (typeof entry !== "object" || entry === null) return undefined;
	const value = (entry as Record<string, unknown>)[type];
	if (value === undefined) return undefined;
	if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
		throw new Error(`"${type}" must be an array of strings`);
	return value as string[];
}

const RESOURCE_TYPES = ["extensions", "skills", "prompts", "themes"] as const;

/**
 * A settings entry that loads nothing: every resource type filtered to `[]` (pi's semantics). This is how a
 * package is switched off, for all projects (its own entry) or for one (a project entry of the same identity,
 * which overrides the user's); such an entry is never installed just to load nothing.
 */
export function disablesEverything(entry: unknown): boolean {
	if (typeof entry !== "object" || entry === null) return false;
	const record = entry as Record<string, unknown>;
	return RESOURCE_TYPES.every((type) => Array.isArray(record[type]) && (record[type] as unknown[]).length === 0);
}

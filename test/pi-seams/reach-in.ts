/**
 * What counts as reaching into pi: an unexported module loaded by URL, pi's temporary compat entry, a pi prototype
 * touched, a pi private member read or written. src/pi-seams/ is where these live; anywhere else in src/ they fail
 * test/pi-seams/no-reach-in.test.ts. Private names are read from pi's own declarations, so a field pi makes private
 * later is caught too.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export interface ReachIn {
	file: string;
	line: number;
	why: string;
	text: string;
}

const PI_PACKAGES = ["pi-coding-agent", "pi-tui", "pi-agent-core", "pi-ai"];

function filesUnder(dir: string, keep: (path: string) => boolean): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) {
			if (entry.name !== "node_modules") out.push(...filesUnder(path, keep));
		} else if (keep(path)) out.push(path);
	}
	return out;
}

/** Private members of pi versions pier ran on before, which pier reached into then. */
const FORMER_PRIVATES = ["_agentEventQueue"];

/** Every member pi's packages declare `private` or `protected`. */
export function piPrivateNames(nodeModules: string): Set<string> {
	const names = new Set<string>(FORMER_PRIVATES);
	for (const pkg of PI_PACKAGES) {
		const dist = join(nodeModules, "@earendil-works", pkg, "dist");
		for (const file of filesUnder(dist, (path) => path.endsWith(".d.ts"))) {
			const text = readFileSync(file, "utf8");
			for (const match of text.matchAll(
				/^\s+(?:private|protected)\s+(?:static\s+)?(?:readonly\s+)?([A-Za-z_$][\w$]*)/gm,
			))
				if (match[1]) names.add(match[1]);
		}
	}
	return names;
}

const regexpEscape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The names a file imports from pi's packages (`import { A, type B as C } from "@earendil-works/…"`). */
function piImports(text: string): string[] {
	const names: string[] = [];
	for (const match of text.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*"@earendil-works\/[^"]+"/g)) {
		for (const part of (match[1] ?? "").split(",")) {
			const name = part
				.trim()
				.replace(/^type\s+/, "")
				.split(/\s+as\s+/)
				.at(-1)
				?.trim();
			if (name) names.push(name);
		}
	}
	return names;
}

/** The reaches into pi in one file's text. */
export function reachesIn(file: string, text: string, privateNames: ReadonlySet<string>): ReachIn[] {
	const found: ReachIn[] = [];
	const classes = piImports(text).filter((name) => /^[A-Z]/.test(name));
	const prototypeOf =
		classes.length > 0 ? new RegExp(`\\b(?:${classes.map(regexpEscape).join("|")})\\.prototype\\b`) : undefined;
	const lines = text.split("\n");
	lines.forEach((line, index) => {
		const at = (why: string) => found.push({ file, line: index + 1, why, text: line.trim() });
		if (/\bpiModule\s*[<(]/.test(line)) at("loads an unexported pi module (piModule)");
		if (/import\.meta\.resolve\(\s*["'`]@earendil-works/.test(line)) at("resolves a pi module by URL");
		if (/["']@earendil-works\/[\w-]+\/(?:dist\/|compat["'])/.test(line))
			at("imports a pi module that is unexported or temporary (dist/, pi-ai/compat)");
		if (/\.prototype(?:\.[\w$]+|\[[^\]]+\])\s*=(?!=)/.test(line)) at("assigns to a prototype");
		if (prototypeOf?.test(line)) at("touches a pi class's prototype");
		for (const match of line.matchAll(/\.(_[\w$]+)\b/g))
			if (match[1] && privateNames.has(match[1])) at(`uses pi's private member ${match[1]}`);
		for (const match of line.matchAll(/\[\s*["'`]([\w$]+)["'`]\s*\]/g))
			if (match[1] && privateNames.has(match[1]) && /^_/.test(match[1])) at(`uses pi's private member ${match[1]}`);
	});
	// A cast to an object type naming a pi private member: `(x as unknown as { cursor: number }).cursor`. pi's
	// private names include common words (`value`, `content`), so a plain word counts only in a double cast, the
	// escape from a class's declared type; a `_name` counts in any cast.
	for (const match of text.matchAll(/\bas\s+(unknown\s+as\s+)?\{([^{}]*)/g)) {
		const double = match[1] !== undefined;
		const keys = [...(match[2] ?? "").matchAll(/([A-Za-z_$][\w$]*)\??\s*:/g)].map((m) => m[1] ?? "");
		const privates = keys.filter((key) => privateNames.has(key) && (double || key.startsWith("_")));
		if (privates.length === 0) continue;
		const line = text.slice(0, match.index).split("\n").length;
		found.push({
			file,
			line,
			why: `casts to reach pi's private member(s) ${privates.join(", ")}`,
			text: lines[line - 1]?.trim() ?? "",
		});
	}
	return found;
}

/** Every reach into pi under `srcDir`, except in src/pi-seams/. */
export function reachesInSource(repoRoot: string, privateNames: ReadonlySet<string>): ReachIn[] {
	const src = join(repoRoot, "src");
	const seams = join(src, "pi-seams");
	const files = filesUnder(src, (path) => /\.(ts|mts|js|mjs)$/.test(path) && !path.startsWith(`${seams}/`));
	return files.flatMap((path) => reachesIn(relative(repoRoot, path), readFileSync(path, "utf8"), privateNames));
}

/**
 * What every seam shares: where pi's packages are, how one of their files is loaded, and the descriptor that the
 * contract test (test/pi-seams/contract.test.ts) runs against the installed pi, or against a copy of it.
 *
 * A check is pointed at package roots rather than at the modules pier imports, so the same check can run on a
 * copy of pi with one member removed. For the installed roots the files are the very modules pi itself loads
 * (same URL, same instance).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The directories of the pi packages a seam reaches into. */
export interface PiRoots {
	codingAgent: string;
	ai: string;
	tui: string;
	agentCore: string;
}

export interface Seam {
	/** Named in every failure, and in docs/architecture.md's seams table. */
	name: string;
	/** The file to change when pi changes. */
	file: string;
	/** The pi members this seam relies on, as the seams table lists them. */
	members: readonly string[];
	/** Resolves when every member still has the shape pier uses; rejects with a SeamBroken otherwise. */
	check(roots: PiRoots): Promise<void>;
}

export class SeamBroken extends Error {
	constructor(
		readonly seam: Pick<Seam, "name" | "file">,
		readonly problems: readonly string[],
	) {
		super(`pi seam "${seam.name}" is broken (change ${seam.file}): ${problems.join("; ")}`);
		this.name = "SeamBroken";
	}
}

/** The directory of an installed package: the nearest package.json above its entry that has its name. */
function packageRoot(name: string): string {
	let dir = dirname(fileURLToPath(import.meta.resolve(name)));
	for (;;) {
		const manifest = join(dir, "package.json");
		if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === name)
			return dir;
		const up = dirname(dir);
		if (up === dir) throw new Error(`pier: cannot find the package directory of ${name}`);
		dir = up;
	}
}

let installed: PiRoots | undefined;

/** The pi packages pier runs on. */
export function installedPiRoots(): PiRoots {
	installed ??= {
		codingAgent: packageRoot("@earendil-works/pi-coding-agent"),
		ai: packageRoot("@earendil-works/pi-ai"),
		tui: packageRoot("@earendil-works/pi-tui"),
		agentCore: packageRoot("@earendil-works/pi-agent-core"),
	};
	return installed;
}

/** A module of a package by its path in the package (`dist/core/output-guard.js`), exported or not. */
export function loadFrom<T>(root: string, path: string): Promise<T> {
	return import(pathToFileURL(join(root, path)).href) as Promise<T>;
}

/** A module of the installed pi-coding-agent that its package does not export. */
export function piModule<T>(path: string): Promise<T> {
	return loadFrom<T>(installedPiRoots().codingAgent, path);
}

const requireModule = createRequire(import.meta.url);

/**
 * The same, at once: for a module pi itself loads lazily before it calls pier's code that needs it (then it is the
 * instance pi loaded; Node loads an ES module synchronously through `require` otherwise).
 */
export function piModuleNow<T>(path: string): T {
	return requireModule(join(installedPiRoots().codingAgent, path)) as T;
}

/** A file's text, for checks on how pi itself calls a member pier replaces. */
export function sourceOf(root: string, path: string): string {
	return readFileSync(join(root, path), "utf8");
}

/** Collects what is wrong with a seam's members; `done()` throws them all at once, naming the seam. */
export class Findings {
	private readonly problems: string[] = [];

	constructor(private readonly seam: Pick<Seam, "name" | "file">) {}

	add(problem: string): void {
		this.problems.push(problem);
	}

	/** `owner[key]` is a function; with `arity`, one declaring exactly that many parameters. */
	fn(owner: unknown, key: string, label: string, arity?: number): void {
		const value = owner === null || owner === undefined ? undefined : (owner as Record<string, unknown>)[key];
		if (typeof value !== "function") {
			this.add(`${label} is ${value === undefined ? "missing" : `a ${typeof value}, not a function`}`);
			return;
		}
		if (arity !== undefined && value.length !== arity)
			this.add(`${label} declares ${value.length} parameter(s), pier calls it with ${arity}`);
	}

	/** pi's own code still calls `call` (found in `path`), so replacing the member still takes effect. */
	calls(root: string, path: string, call: string): void {
		let text: string;
		try {
			text = sourceOf(root, path);
		} catch {
			this.add(`${path} is missing`);
			return;
		}
		if (!text.includes(call)) this.add(`${path} no longer calls ${call}`);
	}

	done(): void {
		if (this.problems.length > 0) throw new SeamBroken(this.seam, this.problems);
	}
}

/** Loads a module for a check; a module that is gone is the seam's failure, not a crash of the check. */
export async function loadForCheck<T>(findings: Findings, root: string, path: string): Promise<T | undefined> {
	try {
		return await loadFrom<T>(root, path);
	} catch (error) {
		findings.add(`${path} does not load (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`);
		return undefined;
	}
}

/** The check of a seam that only calls named exports of modules pi does not export. */
export function moduleExports(
	seam: Pick<Seam, "name" | "file">,
	root: (roots: PiRoots) => string,
	exports: Record<string, Record<string, number | undefined>>,
): (roots: PiRoots) => Promise<void> {
	return async (roots) => {
		const findings = new Findings(seam);
		for (const [path, names] of Object.entries(exports)) {
			const module = await loadForCheck<Record<string, unknown>>(findings, root(roots), path);
			if (!module) continue;
			for (const [name, arity] of Object.entries(names)) findings.fn(module, name, `${path} export ${name}`, arity);
		}
		findings.done();
	};
}

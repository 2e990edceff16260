/**
 * What a package holds, shown before it is installed: its extensions and their kinds, the capabilities each
 * declares, the grants a sandboxed one can be given (and holds already), its install scripts (which will not
 * run) and the trust decision that applies. Nothing of the package runs: an npm source is fetched with
 * `npm pack --ignore-scripts` and unpacked by tar, a git source is cloned (dependencies installed with scripts
 * off, as `pier install` does), a local directory is read where it is; each into a temporary directory that
 * is removed afterwards.
 *
 * Each manifest extension's digest (grants/identity.ts) is part of the answer: a grant chosen while looking
 * at this inspection is given only to installed code with the same digest (catalog/grants.ts).
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { packageDigest } from "../grants/identity.js";
import { readGrants } from "../grants/store.js";
import { GRANTS, sortedGrants } from "../grants/vocabulary.js";
import { isManifestRuntime, loadManifest } from "../manifest.js";
import { type ExtensionKind, packageExtensions } from "../packages/contents.js";
import { stageAndSwap } from "../packages/git.js";
import { packagesWithScripts } from "../packages/scripts.js";
import { type PackageScope, PackageSourceError, parseScopedSource } from "../packages/sources.js";
import { decideProjectTrust } from "../trust.js";
import type { InspectedExtension, Inspection } from "./wire.js";

const run = promisify(execFile);

export class InspectError extends Error {
	override name = "InspectError";
}

const KIND_RUNS: Record<ExtensionKind, InspectedExtension["runsAs"]> = {
	quickjs: "sandbox",
	process: "process",
	native: "native",
	typescript: "pi",
	javascript: "pi",
};

function readManifestJson(root: string): { name?: string; version?: string; description?: string } {
	try {
		const json = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown>;
		const s = (v: unknown) => (typeof v === "string" ? v : undefined);
		return {
			...(s(json.name) ? { name: s(json.name) } : {}),
			...(s(json.version) ? { version: s(json.version) } : {}),
			...(s(json.description) ? { description: s(json.description) } : {}),
		};
	} catch {
		return {};
	}
}

/** The trust sentence of an install in `scope`; a project install into an untrusted project is refused. */
export function installTrust(scope: PackageScope, cwd: string, agentDir: string): Inspection["trust"] {
	if (scope === "user")
		return {
			scope,
			trusted: true,
			summary:
				"A user package loads in every project, trusted or not. Its TypeScript/JavaScript extensions run inside pi with your powers, process and native extensions as your own programs; QuickJS extensions run sandboxed with only the grants you give.",
		};
	const decision = decideProjectTrust(cwd, { agentDir });
	return {
		scope,
		cwd: decision.cwd,
		trusted: decision.trusted,
		summary: decision.trusted
			? `A project package loads only in ${decision.cwd} (trusted: ${decision.source}).`
			: `${decision.cwd} is not trusted: pier does not install or load its packages. Trust the project first (pier trust ${decision.cwd}).`,
	};
}

/** The extensions of the package at `root`, described. */
export async function describeExtensions(root: string, agentDir: string): Promise<InspectedExtension[]> {
	const grants = readGrants(agentDir).grants;
	const out: InspectedExtension[] = [];
	for (const e of await packageExtensions(root, undefined)) {
		const base = { kind: e.kind, rel: e.rel, runsAs: KIND_RUNS[e.kind] };
		if (!isManifestRuntime(e.kind)) {
			out.push({
				...base,
				id: e.name,
				capabilities: [],
				uiCapabilities: [],
				grants: { grantable: false, known: [], held: [] },
			});
			continue;
		}
		try {
			const manifest = loadManifest(e.path, { origin: "user" });
			const digest = packageDigest(manifest.root);
			const entry = grants.get(manifest.id);
			const sandboxed = manifest.runtime.kind === "quickjs";
			out.push({
				...base,
				kind: manifest.runtime.kind,
				runsAs: KIND_RUNS[manifest.runtime.kind],
				id: manifest.id,
				capabilities: manifest.capabilities,
				uiCapabilities: manifest.uiCapabilities,
				grants: {
					grantable: sandboxed,
					known: sandboxed ? [...GRANTS] : [],
					held: sandboxed && entry?.digest === digest ? sortedGrants(entry.grants) : [],
				},
				digest,
			});
		} catch (error) {
			out.push({
				...base,
				id: e.id ?? e.name,
				capabilities: [],
				uiCapabilities: [],
				grants: { grantable: false, known: [], held: [] },
				problem: (error as Error).message,
			});
		}
	}
	return out;
}

/** `npm pack` of the spec into `dir`, unpacked: the package's root. Runs nothing of the package. */
async function packNpm(spec: string, dir: string, env: NodeJS.ProcessEnv): Promise<string> {
	const childEnv: NodeJS.ProcessEnv = { ...env, npm_config_ignore_scripts: "true" };
	if (env.PIER_NPM_REGISTRY) childEnv.npm_config_registry = env.PIER_NPM_REGISTRY;
	try {
		await run("npm", ["pack", spec, "--ignore-scripts", "--json", "--pack-destination", dir], {
			cwd: dir,
			env: childEnv,
			timeout: 120_000,
			maxBuffer: 8 * 1024 * 1024,
		});
	} catch (error) {
		const e = error as { stderr?: string; message: string };
		const detail = (e.stderr ?? "").trim().split("\n").slice(-3).join(" ") || e.message.split("\n")[0];
		throw new InspectError(`npm pack ${spec} failed: ${detail}`);
	}
	// npm names a scoped tarball scope-name-version.tgz (older npms differ): the one tarball in the directory.
	const tarball = readdirSync(dir).find((f) => f.endsWith(".tgz"));
	if (!tarball) throw new InspectError(`npm pack ${spec} left no tarball`);
	const out = join(dir, "unpacked");
	mkdirSync(out);
	await run("tar", ["-xzf", join(dir, tarball), "-C", out, "--no-same-owner"], { timeout: 60_000 });
	// An npm tarball's files are under package/ (or, rarely, another single directory).
	const top = readdirSync(out);
	const only = top.length === 1 ? join(out, top[0]!) : out;
	return existsSync(join(out, "package")) ? join(out, "package") : statSync(only).isDirectory() ? only : out;
}

/**
 * Inspects `source` as it would be installed in `scope` (relative paths against `cwd`, as the CLI takes them).
 * Throws PackageSourceError for a bad source, InspectError when it cannot be fetched.
 */
export async function inspectSource(options: {
	source: string;
	scope: PackageScope;
	cwd: string;
	agentDir: string;
	env?: NodeJS.ProcessEnv;
}): Promise<Inspection> {
	const { source, scope, cwd, agentDir } = options;
	const parsed = parseScopedSource(source, cwd);
	const trust = installTrust(scope, cwd, agentDir);
	const work = mkdtempSync(join(tmpdir(), "pier-inspect-"));
	try {
		let root: string;
		if (parsed.kind === "local") {
			if (!existsSync(parsed.path) || !statSync(parsed.path).isDirectory())
				throw new PackageSourceError(parsed.source, `${parsed.path} is not a directory`);
			root = parsed.path;
		} else if (parsed.kind === "npm") {
			root = await packNpm(
				parsed.version ? `${parsed.name}@${parsed.version}` : parsed.name,
				work,
				options.env ?? process.env,
			);
		} else {
			root = join(work, "git", "checkout");
			try {
				await stageAndSwap(root, work, parsed);
			} catch (error) {
				throw new InspectError(`${parsed.source}: ${(error as Error).message}`);
			}
		}
		const facts = readManifestJson(root);
		const scripted = packagesWithScripts(root, root, parsed.kind === "npm" ? parsed.name : facts.name);
		return {
			source: parsed.source,
			identity: parsed.identity,
			kind: parsed.kind,
			scope,
			...facts,
			extensions: await describeExtensions(root, agentDir),
			scripts: scripted.map((p) => ({ name: p.name, scripts: p.scripts })),
			trust,
		};
	} finally {
		rmSync(work, { recursive: true, force: true });
	}
}

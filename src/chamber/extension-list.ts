/**
 * `GET /api/pi/extensions?session=`: a running session's extensions with `pier list`'s facts about each (kind,
 * origin, scope, package, state, capabilities, the project's trust decision) and what the session measured of
 * them. The facts come from the same model `pier list` prints, matched to the running extensions by path;
 * paths never leave the server: extensions are named by opaque ids and their own names, packages by name, and
 * absolute paths in messages are cut to their last segment.
 */
import { createHash } from "node:crypto";
import { basename, dirname } from "node:path";
import type { ExtensionMetrics, MetricsSnapshot } from "../extensions/host/metrics.js";
import {
	type ExtensionList,
	type ListedExtension,
	listExtensions,
	projectPackageEntries,
} from "../extensions/packages/list.js";
import { agentDir } from "../agent/paths.js";
import { isManifestRuntime } from "../extensions/manifest.js";
import type { LiveSession } from "./live-session.js";

/** Opaque and stable: clients can key on it; it says nothing about the server's disk. */
export function opaqueExtensionId(path: string): string {
	return `ext_${createHash("sha256").update(path).digest("hex").slice(0, 16)}`;
}

export interface ExtensionMetricsView extends Omit<MetricsSnapshot, "lastError"> {
	lastError?: { message: string; at: string };
	/** Which of these the session could observe for this kind (docs/chamber-api.md). */
	measured: "host" | "session-events";
}

export interface ExtensionView {
	id: string;
	/** The manifest id, or a TypeScript/JavaScript extension's name. */
	name: string;
	/** `builtin`: one of pi's built-in extensions (llama.cpp, codemode, tool-search, mcp), named as pi names it. */
	kind: ListedExtension["kind"] | "native" | "builtin" | "unknown";
	origin?: ListedExtension["origin"];
	scope?: ListedExtension["scope"];
	package?: { name: string; source?: string; identity?: string; pinned?: string; revision?: string };
	state: ListedExtension["state"] | "running";
	/** Why it does not run (a `blocked` one: the extension policy's file, field and pattern), paths cut. */
	reason?: string;
	/** A protocol extension's instance: active, crashed, … */
	phase?: string;
	capabilities: ListedExtension["capabilities"];
	commands: string[];
	tools: string[];
	metrics: ExtensionMetricsView;
}

export interface ExtensionListView {
	trust: { trusted: boolean; source: string };
	/** When this session's extensions started (ISO): the metrics count from then, so a reopened session starts at 0. */
	since: string;
	extensions: ExtensionView[];
}

const NONE = { declared: [], uiDeclared: [], granted: [] };
const isInline = (path: string) => path.startsWith("<inline:");
const BUILTIN_PREFIX = "builtin:";

export async function extensionList(session: LiveSession): Promise<ExtensionListView> {
	const pi = session.pier.runtime.session;
	const host = session.pier.extensionHost;
	const trust = session.pier.trust;
	const cwd = pi.sessionManager.getCwd();
	const listed = await listExtensions({
		cwd,
		agentDir: agentDir(),
		trust,
		projectPackages: projectPackageEntries(cwd),
		cliPaths: session.cliExtensionPaths,
	}).catch(() => undefined);
	const facts = listed?.extensions.filter((e) => e.state === "enabled") ?? [];
	const runner = pi.extensionRunner;
	const extensions: ExtensionView[] = [];

	for (const instance of host.instances) {
		const dir = dirname(instance.spec.source);
		const fact =
			facts.find((f) => f.path === dir || f.path === instance.spec.source) ??
			facts.find((f) => f.id === instance.id && isManifestRuntime(f.kind));
		const r = instance.registrations;
		extensions.push({
			...describe(instance.spec.source, instance.id, fact, instance.spec.runtime ?? "process"),
			phase: instance.phase,
			commands: r?.commands.map((c) => c.name) ?? [],
			tools: r?.tools.map((t) => t.name) ?? [],
			metrics: metricsView(host.metricsOf(instance.id), "host"),
		});
	}

	const commands = new Map<string, string[]>();
	for (const c of runner.getRegisteredCommands()) {
		if (!isInline(c.sourceInfo.path))
			commands.set(c.sourceInfo.path, [...(commands.get(c.sourceInfo.path) ?? []), c.invocationName]);
	}
	const tools = new Map<string, string[]>();
	for (const t of runner.getAllRegisteredTools()) {
		if (!isInline(t.sourceInfo.path))
			tools.set(t.sourceInfo.path, [...(tools.get(t.sourceInfo.path) ?? []), t.definition.name]);
	}
	for (const path of runner.getExtensionPaths()) {
		if (isInline(path)) continue;
		extensions.push({
			...describeInProcess(path, facts),
			commands: commands.get(path) ?? [],
			tools: tools.get(path) ?? [],
			metrics: metricsView(session.piMetrics.of(path), "session-events"),
		});
	}
	extensions.push(...blockedByPolicy(listed));
	return { trust: { trusted: trust.trusted, source: trust.source }, since: session.startedAt, extensions };
}

/**
 * What the extension policy kept out of the session, listed with the refusal: each blocked extension, and each
 * blocked package as one entry (its contents were never read, so its extensions are not known).
 */
function blockedByPolicy(listed: ExtensionList | undefined): ExtensionView[] {
	const idle = { commands: [], tools: [] };
	const extensions = (listed?.extensions ?? [])
		.filter((f) => f.state === "blocked")
		.map((f) => ({
			...describe(f.path, f.id, f, f.kind),
			...(f.reason ? { reason: withoutPaths(f.reason) } : {}),
			...idle,
			metrics: metricsView(undefined, isManifestRuntime(f.kind) ? "host" : "session-events"),
		}));
	const packages = (listed?.packages ?? [])
		.filter((p) => p.state === "blocked")
		.map((p) => {
			const pkg = packageView({ source: p.source, ...(p.identity ? { identity: p.identity } : {}) });
			return {
				id: opaqueExtensionId(p.identity ?? p.source),
				name: pkg.name,
				kind: "unknown" as const,
				origin: "package" as const,
				scope: p.scope,
				package: pkg,
				state: "blocked" as const,
				...(p.reason ? { reason: withoutPaths(p.reason) } : {}),
				capabilities: NONE,
				...idle,
				metrics: metricsView(undefined, "host"),
			};
		});
	return [...extensions, ...packages];
}

/** An in-process extension: a file pi loaded, or one of pi's built-ins (`builtin:<name>`). */
function describeInProcess(path: string, facts: ListedExtension[]): ReturnType<typeof describe> {
	if (path.startsWith(BUILTIN_PREFIX)) return describe(path, path.slice(BUILTIN_PREFIX.length), undefined, "builtin");
	const fact = facts.find((f) => f.path === path) ?? facts.find((f) => isWithin(path, f.path));
	const name = basename(path).replace(/\.[cm]?[jt]s$/, "");
	const kind = /\.[cm]?js$/.test(path) ? "javascript" : "typescript";
	return describe(path, name === "index" ? basename(dirname(path)) : name, fact, kind);
}

function describe(
	path: string,
	name: string,
	fact: ListedExtension | undefined,
	kind: ExtensionView["kind"],
): Pick<ExtensionView, "id" | "name" | "kind" | "origin" | "scope" | "package" | "state" | "capabilities"> {
	return {
		id: opaqueExtensionId(path),
		name: fact?.id ?? name,
		kind: fact?.kind ?? kind,
		...(fact ? { origin: fact.origin, scope: fact.scope } : {}),
		...(fact?.package ? { package: packageView(fact.package) } : {}),
		state: fact?.state ?? "running",
		capabilities: fact?.capabilities ?? NONE,
	};
}

/** A local or `file://` package is named by its directory's name: its source and identity are paths. */
function packageView(pkg: NonNullable<ListedExtension["package"]>): NonNullable<ExtensionView["package"]> {
	const local = !pkg.identity || pkg.identity.startsWith("local:") || pkg.identity.startsWith("git:file/");
	const name = local
		? basename(
				pkg.source
					.replace(/^file:\/\//, "")
					.replace(/@[^/@]*$/, "")
					.replace(/\.git$/, ""),
			) || "package"
		: pkg.identity!.replace(/^(npm|git):/, "");
	return {
		name,
		...(local ? {} : { source: pkg.source, identity: pkg.identity! }),
		...(pkg.pinned ? { pinned: pkg.pinned } : {}),
		...(pkg.revision ? { revision: pkg.revision } : {}),
	};
}

function metricsView(metrics: ExtensionMetrics | undefined, measured: ExtensionMetricsView["measured"]) {
	const snapshot = metrics?.snapshot() ?? { invocations: 0, errors: 0, restarts: 0, crashes: 0 };
	const { lastError, ...counts } = snapshot;
	return {
		...counts,
		...(lastError
			? { lastError: { message: withoutPaths(lastError.message), at: new Date(lastError.at).toISOString() } }
			: {}),
		measured,
	};
}

/** Absolute paths (and file:// URLs) in a message are cut to their last segment. */
export function withoutPaths(message: string): string {
	return message.replace(
		/(?<=^|[\s'"`(=:])(?:file:\/\/)?(?:[A-Za-z]:)?(?:[\\/][^\s\\/:'"`()[\]<>,;]+)+[\\/]?/g,
		(path) => {
			const segments = path.split(/[\\/]/).filter(Boolean);
			return segments.length > 0 ? `…${segments[segments.length - 1]}` : path;
		},
	);
}

function isWithin(file: string, dir: string): boolean {
	return file.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/**
 * `pier install | remove | update | list`: pi's package commands and settings (so a pi user's installs work in
 * pier and the other way round), with pier's source checks, pins that hold, staged installs, and a `list` that
 * shows every extension pier would load and why.
 */
import { auditPackage } from "../audit/package-audit.js";
import { existsSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { DefaultPackageManager, SettingsManager } from "@earendil-works/pi-coding-agent";
import { agentDir as defaultAgentDir } from "../agent/paths.js";
import {
	checkoutPath,
	headOf,
	matchesPin,
	removeCheckout,
	stageAndSwap,
	updatePinned,
	updateUnpinned,
} from "../extensions/packages/git.js";
import { type ExtensionList, listExtensions, projectPackageEntries } from "../extensions/packages/list.js";
import { offline } from "../extensions/packages/resolve.js";
import { withPackageLock } from "../extensions/packages/lock.js";
import {
	checkoutScripts,
	installNpmSource,
	settleCheckout,
	skippedNotice,
	uninstallNpmSource,
} from "../extensions/packages/npm.js";
import { allowScripts, type ScriptRecord, writeScriptRecord } from "../extensions/packages/script-policy.js";
import {
	type PackageScope,
	type ParsedSource,
	PackageSourceError,
	parseScopedSource,
	scopeBaseDir,
} from "../extensions/packages/sources.js";
import { decideProjectTrust } from "../extensions/trust.js";
import { refuseInstallByPolicy } from "../extensions/policy/policy.js";
import { ArgsError } from "./args.js";

export const PACKAGES_HELP = `Usage:
  pier install <source> [-l|--project] [--allow-scripts NAME[,NAME]]
                                         install a package and add it to settings (-l: the project's .pi/);
                                         install scripts never run unless their package is allowed by name
  pier remove <source> [-l|--project]    remove it from settings and delete its checkout
  pier update [source]                   unpinned packages move to their latest; pinned ones to their pin
  pier list [--json] [--check] [--cwd DIR] [-e DIR]
                                         every extension pier would load, and why (starts nothing;
                                         --check starts each process/QuickJS extension through its handshake)

Sources: npm:name[@version], git:host/owner/repo[@ref], https://…, ssh://…, git://…, git@host:owner/repo,
file:///path/to/repo[@ref], or a local directory. See docs/packages.md.

Install scripts (preinstall, install, postinstall; prepare of a git package) are skipped, the package's own and
its dependencies'. --allow-scripts adds package names to extensionHost.allowScripts in the global settings; the
scripts of those packages then run (now, and on later installs and updates). A project cannot allow scripts.

The global settings' extensionPolicy {"allow": [...], "block": [...]} (npm:@scope/*, git:host/org/*, /path or
~/path, id:<id>) refuses installs and loads it does not allow; pier list shows each package's standing.
`;

type Command = "install" | "remove" | "update" | "list";

interface Context {
	cwd: string;
	agentDir: string;
	say: (line: string) => void;
	/** What an install skipped, said on stderr with how to allow it. */
	notice: (line: string) => void;
}

export async function packagesCommand(command: Command, argv: readonly string[]): Promise<number> {
	try {
		return await packagesCommandInner(command, argv);
	} catch (error) {
		if (error instanceof ArgsError || error instanceof PackageSourceError) throw error;
		if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) throw new ArgsError((error as Error).message);
		// git, npm and the file system fail with a message worth reading, not a stack trace.
		process.stderr.write(`pier: ${command}: ${(error as Error).message}\n`);
		return 1;
	}
}

async function packagesCommandInner(command: Command, argv: readonly string[]): Promise<number> {
	const { values, positionals } = parseArgs({
		args: [...argv],
		allowPositionals: true,
		options: {
			local: { type: "boolean", short: "l" },
			project: { type: "boolean" },
			json: { type: "boolean" },
			check: { type: "boolean" },
			cwd: { type: "string" },
			extension: { type: "string", short: "e", multiple: true },
			"allow-scripts": { type: "string", multiple: true },
			help: { type: "boolean", short: "h" },
		},
		strict: true,
	});
	if (values.help) {
		process.stdout.write(PACKAGES_HELP);
		return 0;
	}
	const ctx: Context = {
		cwd: resolve(values.cwd ?? process.cwd()),
		agentDir: defaultAgentDir(),
		say: (line) => process.stdout.write(`${line}\n`),
		notice: (line) => process.stderr.write(`pier: ${line}\n`),
	};
	const allow = (values["allow-scripts"] ?? []).flatMap((v) => v.split(",")).map((v) => v.trim());
	if (allow.length > 0 && command !== "install")
		throw new ArgsError(`--allow-scripts belongs to pier install (pier install <source> --allow-scripts NAME)`);
	const scope: PackageScope = values.local || values.project ? "project" : "user";
	if (command === "list") {
		if (positionals.length > 0) throw new ArgsError(`pier list takes no words, got ${positionals.join(" ")}`);
		return list(ctx, values.json === true, values.check === true, values.extension ?? []);
	}
	if (command === "update") {
		if (positionals.length > 1) throw new ArgsError("pier update takes at most one source");
		return update(ctx, positionals[0]);
	}
	if (positionals.length !== 1) throw new ArgsError(`pier ${command} needs one source: pier ${command} <source> [-l]`);
	if (scope === "project") refuseUntrustedProject(ctx);
	if (command === "remove") return remove(ctx, positionals[0]!, scope);
	// Parsed and checked against the extension policy before the allowance is written: a refused source allows nothing.
	refuseInstallByPolicy(ctx.agentDir, parseScopedSource(positionals[0]!, ctx.cwd));
	if (allow.length > 0) await allowScripts(ctx.agentDir, allow);
	return install(ctx, positionals[0]!, scope);
}

/** rpi's rule: an untrusted project's package storage is not touched, not even by its own commands. */
function refuseUntrustedProject(ctx: Context): void {
	const trust = decideProjectTrust(ctx.cwd, { agentDir: ctx.agentDir });
	if (!trust.trusted)
		throw new ArgsError(
			`project ${trust.cwd} is not trusted; refusing to change its packages (trust it first with \`pier trust ${trust.cwd}\`)`,
		);
}

/**
 * pi's settings as the package commands may read them. pi's manager reads the project's settings (its
 * `npmCommand`, run here) unless told the project is not trusted: a user package installed while standing in a
 * cloned repository must not run that repository's program.
 */
function settingsFor(ctx: Context): SettingsManager {
	const projectTrusted = decideProjectTrust(ctx.cwd, { agentDir: ctx.agentDir }).trusted;
	return SettingsManager.create(ctx.cwd, ctx.agentDir, { projectTrusted });
}

function packagesOf(settings: SettingsManager, scope: PackageScope): unknown[] {
	return [...((scope === "project" ? settings.getProjectSettings() : settings.getGlobalSettings()).packages ?? [])];
}

async function savePackages(settings: SettingsManager, scope: PackageScope, packages: unknown[]): Promise<void> {
	type Entries = Parameters<SettingsManager["setPackages"]>[0];
	if (scope === "project") settings.setProjectPackages(packages as Entries);
	else settings.setPackages(packages as Entries);
	await settings.flush();
}

const sourceOf = (entry: unknown) =>
	typeof entry === "string" ? entry : ((entry as { source?: unknown } | null)?.source as string | undefined);

/** The index of the entry of the same package (pi's identity), if any. */
function indexOfIdentity(entries: readonly unknown[], identity: string, base: string): number {
	return entries.findIndex((entry) => {
		const source = sourceOf(entry);
		if (typeof source !== "string") return false;
		try {
			return parseScopedSource(source, base).identity === identity;
		} catch {
			return false;
		}
	});
}

/** The source as settings store it: local paths relative to the scope's directory, as pi writes them. */
function settingsSource(parsed: ParsedSource, base: string): string {
	if (parsed.kind !== "local") return parsed.source;
	const rel = relative(base, parsed.path);
	return rel === "" ? "." : rel.startsWith("..") || rel.startsWith("/") ? rel : `./${rel}`;
}

function tellScripts(ctx: Context, source: string, record: ScriptRecord | undefined): void {
	if (!record) return;
	if (record.ran.length > 0)
		ctx.say(
			`  install scripts ran (allowed by name): ${record.ran.map((p) => `${p.name} (${p.scripts.join(", ")})`).join(", ")}`,
		);
	const notice = skippedNotice(source, record);
	if (notice) ctx.notice(notice);
}

async function installParsed(ctx: Context, parsed: ParsedSource, scope: PackageScope): Promise<string> {
	const scopeRoot = scopeBaseDir(scope, ctx.cwd, ctx.agentDir);
	if (parsed.kind === "local") {
		if (!existsSync(parsed.path) || !statSync(parsed.path).isDirectory())
			throw new PackageSourceError(parsed.source, `${parsed.path} is not a directory`);
		return parsed.path;
	}
	if (parsed.kind === "npm") {
		const { cwd, agentDir } = ctx;
		const installed = await withPackageLock(agentDir, () =>
			installNpmSource({ parsed, scope, cwd, agentDir, settingsManager: settingsFor(ctx) }),
		);
		tellScripts(ctx, parsed.source, installed.scripts);
		return installed.root;
	}
	const target = checkoutPath(scopeRoot, parsed);
	const record = await withPackageLock(ctx.agentDir, async () => {
		// Already at its pin: only scripts allowed since it was installed run.
		if (existsSync(target) && (await matchesPin(target, parsed)))
			return settleCheckout(ctx.agentDir, target, parsed.identity);
		const scripts = checkoutScripts(ctx.agentDir, target, parsed.identity);
		await stageAndSwap(target, scopeRoot, parsed, scripts.onStaged);
		return scripts.record();
	});
	tellScripts(ctx, parsed.source, record);
	return target;
}

async function install(ctx: Context, source: string, scope: PackageScope): Promise<number> {
	const base = scopeBaseDir(scope, ctx.cwd, ctx.agentDir);
	// A path typed on the command line is relative to where the user is, as in pi.
	const parsed = parseScopedSource(source, ctx.cwd);
	const where = await installParsed(ctx, parsed, scope);
	const settings = settingsFor(ctx);
	const entries = packagesOf(settings, scope);
	const stored = settingsSource(parsed, base);
	const at = indexOfIdentity(entries, parsed.identity, base);
	// Unlike pi, a new pin replaces the old one (pi keeps the old entry and silently installs nothing).
	if (at < 0) entries.push(stored);
	else if (typeof entries[at] === "string") entries[at] = stored;
	else entries[at] = { ...(entries[at] as object), source: stored };
	await savePackages(settings, scope, entries);
	const head = parsed.kind === "git" ? await headOf(where) : undefined;
	auditPackage(
		ctx.agentDir,
		"package.install",
		parsed,
		scope,
		`at ${where}${head ? ` (${head})` : ""}`,
		"pier install",
	);
	ctx.say(`installed ${source} (${scope}) at ${where}${head ? ` (${head.slice(0, 12)})` : ""}`);
	return 0;
}

async function remove(ctx: Context, source: string, scope: PackageScope): Promise<number> {
	const base = scopeBaseDir(scope, ctx.cwd, ctx.agentDir);
	const parsed = parseScopedSource(source, ctx.cwd);
	const settings = settingsFor(ctx);
	const entries = packagesOf(settings, scope);
	const at = indexOfIdentity(entries, parsed.identity, base);
	if (at < 0) throw new ArgsError(`no ${scope} package matches ${source} (see pier list)`);
	const configured = parseScopedSource(sourceOf(entries[at])!, base);
	entries.splice(at, 1);
	await withPackageLock(ctx.agentDir, async () => {
		if (configured.kind === "git") {
			const target = checkoutPath(base, configured);
			removeCheckout(target, base, configured.source);
			writeScriptRecord(ctx.agentDir, target, undefined);
		}
		if (configured.kind === "npm") {
			const manager = new DefaultPackageManager({ cwd: ctx.cwd, agentDir: ctx.agentDir, settingsManager: settings });
			const root = manager.getInstalledPath(configured.source, scope);
			await uninstallNpmSource({ parsed: configured, scope, cwd: ctx.cwd, settingsManager: settings });
			if (root) writeScriptRecord(ctx.agentDir, root, undefined);
		}
	});
	await savePackages(settings, scope, entries);
	auditPackage(ctx.agentDir, "package.remove", configured, scope, undefined, "pier remove");
	ctx.say(`removed ${configured.source} (${scope})`);
	return 0;
}

async function update(ctx: Context, only: string | undefined): Promise<number> {
	const settings = settingsFor(ctx);
	const trusted = decideProjectTrust(ctx.cwd, { agentDir: ctx.agentDir }).trusted;
	const scopes: PackageScope[] = trusted ? ["project", "user"] : ["user"];
	// Parsed once, up front: a bad source given here is its own error, not "no match".
	const wanted = only === undefined ? undefined : parseScopedSource(only, ctx.cwd).identity;
	let matched = false;
	let failed = 0;
	for (const scope of scopes) {
		const base = scopeBaseDir(scope, ctx.cwd, ctx.agentDir);
		for (const entry of packagesOf(settings, scope)) {
			const source = sourceOf(entry) ?? "";
			let parsed: ParsedSource | undefined;
			try {
				parsed = parseScopedSource(source, base);
				if (wanted !== undefined && wanted !== parsed.identity) continue;
				matched = true;
				ctx.say(await updateOne(ctx, parsed, scope, settings));
			} catch (error) {
				// An unparsable entry is not the one asked for; with no source given, every problem is reported.
				if (wanted !== undefined && parsed === undefined) continue;
				failed++;
				process.stderr.write(`pier: package ${source} (${scope}): ${(error as Error).message}\n`);
			}
		}
	}
	if (only !== undefined && !matched) throw new ArgsError(`no configured package matches ${only} (see pier list)`);
	return failed > 0 ? 1 : 0;
}

async function updateOne(
	ctx: Context,
	parsed: ParsedSource,
	scope: PackageScope,
	settings: SettingsManager,
): Promise<string> {
	const label = `${parsed.source} (${scope})`;
	if (parsed.kind === "local") return `${label}: a local directory, nothing to update`;
	refuseInstallByPolicy(ctx.agentDir, parsed);
	if (parsed.kind === "npm") {
		// pi's rule: a pinned npm package stays at its pin, and offline nothing is fetched.
		if (parsed.pinned) return `${label}: pinned to ${parsed.version}, nothing to update`;
		if (offline()) return `${label}: offline, not updated`;
		const { cwd, agentDir } = ctx;
		const spec = `${parsed.name}@latest`;
		const installed = await withPackageLock(agentDir, () =>
			installNpmSource({ parsed, scope, cwd, agentDir, settingsManager: settings, spec }),
		);
		tellScripts(ctx, parsed.source, installed.scripts);
		auditPackage(ctx.agentDir, "package.update", parsed, scope, `to ${spec}`, "pier update");
		return `${label}: updated through npm`;
	}
	const scopeRoot = scopeBaseDir(scope, ctx.cwd, ctx.agentDir);
	const target = checkoutPath(scopeRoot, parsed);
	const scripts = checkoutScripts(ctx.agentDir, target, parsed.identity);
	const line = await withPackageLock(ctx.agentDir, async () => {
		const before = await headOf(target);
		// A pinned package is reconciled to its pin (a moved branch pin moves with it); unpinned: the remote's HEAD.
		const to = parsed.pinned
			? await updatePinned(target, scopeRoot, parsed, scripts.onStaged)
			: (await updateUnpinned(target, scopeRoot, parsed, scripts.onStaged)).to;
		if (before === to) return `${label}: up to date at ${to.slice(0, 12)}`;
		auditPackage(
			ctx.agentDir,
			"package.update",
			parsed,
			scope,
			`${before ?? "(not installed)"} → ${to}`,
			"pier update",
		);
		return `${label}: updated ${before ? before.slice(0, 12) : "(not installed)"} → ${to.slice(0, 12)}`;
	});
	tellScripts(ctx, parsed.source, scripts.record());
	return line;
}

async function list(ctx: Context, json: boolean, check: boolean, cliDirs: readonly string[]): Promise<number> {
	const trust = decideProjectTrust(ctx.cwd, { agentDir: ctx.agentDir });
	const model = await listExtensions({
		cwd: ctx.cwd,
		agentDir: ctx.agentDir,
		trust,
		projectPackages: projectPackageEntries(ctx.cwd),
		cliPaths: cliDirs.map((d) => resolve(ctx.cwd, d)),
	});
	if (check) await (await import("../extensions/packages/check.js")).checkExtensions(model);
	if (json) {
		process.stdout.write(`${JSON.stringify(model, null, 2)}\n`);
		return 0;
	}
	printList(model, ctx.say);
	return 0;
}

function scriptLines(p: ExtensionList["packages"][number]): string[] {
	const s = p.scripts;
	if (!s) return [];
	const show = (list: ReadonlyArray<{ name: string; scripts: string[] }>) =>
		list.map((x) => `${x.name} (${x.scripts.join(", ")})`).join(", ");
	if ("unknown" in s) return [`install scripts: not installed by pier, they may have run: ${show(s.unknown)}`];
	const lines: string[] = [];
	if (s.ran.length > 0) lines.push(`install scripts ran (allowed by name): ${show(s.ran)}`);
	if (s.skipped.length > 0)
		lines.push(
			`install scripts skipped: ${show(s.skipped)}; to allow: pier install ${p.source} --allow-scripts ${s.skipped.map((x) => x.name).join(",")}`,
		);
	return lines;
}

/** The extension policy in force, and what is wrong with it (or with a project's attempt to set one). */
function policyLines(model: ExtensionList): string[] {
	const p = model.policy;
	const lines = [p.active ? `extension policy: ${p.file}` : "extension policy: none"];
	if (p.problem) lines.push(`  malformed, nothing is installed or loaded until it is fixed: ${p.problem}`);
	if (p.ignored) lines.push(`  ${p.ignored}`);
	return lines;
}

function standingText(s: NonNullable<ExtensionList["packages"][number]["standing"]>): string {
	switch (s.standing) {
		case "allowed":
			if (s.byId) return "no allow pattern names it; its extensions load only where an id: pattern names them";
			return s.pattern ? `allowed by ${s.pattern}` : "allowed";
		case "blocked":
			return `blocked by ${s.pattern}`;
		case "not-allowed":
			return "not allowed by the allow list";
		case "malformed":
			return "refused: the policy is malformed";
	}
}

function printList(model: ExtensionList, say: (line: string) => void): void {
	const t = model.trust;
	const from = t.matchedPath ? ` (decision for ${t.matchedPath})` : ` (${t.source})`;
	say(`project ${model.cwd}: ${t.trusted ? "trusted" : "not trusted"}${from}`);
	for (const line of policyLines(model)) say(line);
	say("");
	say(model.packages.length === 0 ? "No packages configured." : "Packages:");
	for (const p of model.packages) {
		const pin = p.pinned ? ` pinned ${p.pinned}` : "";
		const rev = p.revision ? ` at ${p.revision.slice(0, 12)}` : "";
		say(`  ${p.scope.padEnd(7)} ${p.source}  ${p.state}${pin}${rev}${p.filtered ? " (filtered)" : ""}`);
		if (p.reason) say(`          ${p.reason}`);
		if (model.policy.active && p.standing) say(`          policy: ${standingText(p.standing)}`);
		for (const line of scriptLines(p)) say(`          ${line}`);
	}
	say("");
	say(model.extensions.length === 0 ? "No extensions." : "Extensions:");
	for (const e of model.extensions) {
		const from = e.package ? `package ${e.package.source}` : e.origin;
		const caps = e.capabilities.declared.length > 0 ? ` capabilities ${e.capabilities.declared.join(",")}` : "";
		const granted = e.capabilities.granted.length > 0 ? ` granted ${e.capabilities.granted.join(",")}` : "";
		const checked = e.checked ? " (started and stopped: ok)" : "";
		say(`  ${e.state.padEnd(9)} ${e.id} [${e.kind}] ${e.scope} ${from}${caps}${granted}${checked}`);
		if (e.reason) say(`            ${e.reason}`);
	}
}

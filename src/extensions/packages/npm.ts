/**
 * npm, run by pier with install scripts off. pi's DefaultPackageManager runs `npm install` with scripts on, so pier
 * installs npm sources itself, at pi's locations (`npm install -g <spec>` for the user scope, `npm install <spec>
 * --prefix <cwd>/.pi/npm` for a project) with pi's `npmCommand` setting, and asks pi only where a package is
 * (`getInstalledPath`). Scripts are off by flag and by `npm_config_ignore_scripts` in the environment, which reaches
 * the nested `npm install` npm runs to prepare a git dependency (the flag alone does not).
 *
 * Afterwards the tree is scanned (scripts.ts): the scripts of the packages the user allowed by name run through
 * `npm rebuild <their directories>` (and `npm run prepare` for a git checkout's own root), the rest are reported.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { DefaultPackageManager, type SettingsManager } from "@earendil-works/pi-coding-agent";
import { allowedScriptNames, brief, type ScriptRecord, scriptRecord, writeScriptRecord } from "./script-policy.js";
import { readInstallRecord } from "./provenance.js";
import { describeScripted, packagesWithScripts } from "./scripts.js";
import { refuseInstallByPolicy } from "../policy/policy.js";
import type { PackageScope, ParsedSource } from "./sources.js";

const run = promisify(execFile);
type NpmSource = Extract<ParsedSource, { kind: "npm" }>;

export type NpmCommand = readonly string[];

/** pi's `npmCommand` setting (its own public getter), or plain npm. */
export function npmCommandOf(settings: SettingsManager | undefined): NpmCommand {
	const configured = settings?.getNpmCommand();
	return configured && configured.length > 0 && configured[0] ? configured : ["npm"];
}

const IGNORE_KEYS = ["npm_config_ignore_scripts", "NPM_CONFIG_IGNORE_SCRIPTS", "npm_config_ignore-scripts"];

function envWithScripts(on: boolean): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = { ...process.env };
	for (const key of IGNORE_KEYS) delete env[key];
	if (!on) env.npm_config_ignore_scripts = "true";
	// A package's own .npmrc is project config to an npm run in its directory (a checkout, a git dependency npm
	// prepares in its clone): its `git` key would name a program of the package. The environment outranks project
	// config, and reaches the npm that npm starts.
	if (!env.npm_config_git && !env.NPM_CONFIG_GIT) env.npm_config_git = "git";
	return env;
}

/** The registry npm installs from here, as npm itself resolves its configuration. */
async function configuredRegistry(command: NpmCommand, cwd: string): Promise<string | undefined> {
	const [bin, ...pre] = command;
	try {
		const { stdout } = await run(bin!, [...pre, "config", "get", "registry"], {
			cwd,
			env: envWithScripts(false),
			timeout: 30_000,
		});
		const url = stdout.trim();
		return /^https?:\/\//.test(url) ? url : undefined;
	} catch {
		return undefined;
	}
}

async function npm(command: NpmCommand, args: string[], cwd: string, scripts: boolean): Promise<void> {
	const [bin, ...pre] = command;
	try {
		await run(bin!, [...pre, ...args], {
			cwd,
			env: envWithScripts(scripts),
			maxBuffer: 16 * 1024 * 1024,
			timeout: 300_000,
		});
	} catch (error) {
		const e = error as { stderr?: string; message: string };
		const detail = (e.stderr ?? "").trim().split("\n").slice(-3).join(" ") || e.message.split("\n")[0];
		throw new Error(`${[...command, args[0]].join(" ")} failed: ${detail}`);
	}
}

/** An npm command with scripts off: the flag for npm, the environment for what npm starts. */
export function installWithoutScripts(command: NpmCommand, args: string[], cwd: string): Promise<void> {
	return npm(command, [...args, "--ignore-scripts"], cwd, false);
}

/** pi's project install root, made as pi makes it (a private package.json and a .gitignore). */
function projectRoot(cwd: string): string {
	return npmRoot(join(cwd, ".pi", "npm"));
}

/** An npm install root of pier's or pi's: a directory with a private package.json and a .gitignore. */
export function npmRoot(root: string): string {
	mkdirSync(root, { recursive: true });
	if (!existsSync(join(root, ".gitignore"))) writeFileSync(join(root, ".gitignore"), "*\n!.gitignore\n");
	const manifest = join(root, "package.json");
	if (!existsSync(manifest)) writeFileSync(manifest, JSON.stringify({ name: "pi-extensions", private: true }, null, 2));
	return root;
}

export interface ScriptsContext {
	agentDir: string;
	command: NpmCommand;
	/** Where `npm rebuild` runs: `-g`, or a prefix directory. */
	where: { global: true } | { prefix: string };
	/** The record's key: where the package stays (a checkout's final path while it is staged elsewhere). */
	key: string;
	/** A fresh install: scripts that ran for an earlier one count for nothing. */
	fresh: boolean;
}

/**
 * Runs the allowed scripts of the tree at `root` that have not run for this install, and records what ran and
 * what was skipped. `boundary` is the install's root (scripts.ts); `rootName` names a root without a name.
 */
export async function settleScripts(
	root: string,
	boundary: string,
	context: ScriptsContext,
	rootName?: string,
	authoritative = false,
): Promise<ScriptRecord> {
	const registry = await configuredRegistry(context.command, boundary);
	const scripted = packagesWithScripts(root, boundary, rootName, readInstallRecord(boundary, registry), authoritative);
	const allowed = allowedScriptNames(context.agentDir).names;
	const before = context.fresh ? undefined : scriptRecord(context.agentDir, context.key);
	const already = new Set((before?.ran ?? []).map((p) => p.name));
	const toRun = scripted.filter((p) => p.allowable && allowed.has(p.name) && !already.has(p.name));
	if (toRun.length > 0) {
		const where = "global" in context.where ? ["-g"] : ["--prefix", context.where.prefix];
		const cwd = "global" in context.where ? root : context.where.prefix;
		await npm(context.command, ["rebuild", ...toRun.map((p) => p.dir), ...where, "--ignore-scripts=false"], cwd, true);
		// npm rebuild runs a root's install scripts but not its prepare, which npm install in the checkout would run.
		if (toRun.some((p) => p.root && p.scripts.includes("prepare")))
			await npm(context.command, ["run", "prepare", "--ignore-scripts=false"], root, true);
	}
	// npm rebuild of a package builds what it bundles too: that ran, as part of it.
	const rebuilt = new Set([...already, ...toRun.map((p) => p.name)]);
	const ran = scripted.filter((p) => rebuilt.has(p.name) || (p.bundledIn !== undefined && rebuilt.has(p.bundledIn)));
	const record: ScriptRecord = {
		ran: ran.map(brief),
		skipped: scripted.filter((p) => !ran.includes(p)).map(brief),
	};
	writeScriptRecord(context.agentDir, context.key, record);
	return record;
}

/**
 * Installs an npm source at pi's location with scripts off, then settles its scripts. `spec` overrides what npm
 * is given (`name@latest` for an update). The caller holds the package lock.
 */
export async function installNpmSource(options: {
	parsed: NpmSource;
	scope: PackageScope;
	cwd: string;
	agentDir: string;
	settingsManager: SettingsManager;
	spec?: string;
}): Promise<{ root: string; scripts: ScriptRecord }> {
	const { parsed, scope, cwd, agentDir, settingsManager } = options;
	refuseInstallByPolicy(agentDir, parsed);
	const command = npmCommandOf(settingsManager);
	const spec = options.spec ?? (parsed.version ? `${parsed.name}@${parsed.version}` : parsed.name);
	const prefix = scope === "project" ? projectRoot(cwd) : undefined;
	if (prefix) await installWithoutScripts(command, ["install", spec, "--prefix", prefix], prefix);
	else await installWithoutScripts(command, ["install", "-g", spec], cwd);
	const manager = new DefaultPackageManager({ cwd, agentDir, settingsManager });
	const root = manager.getInstalledPath(parsed.source, scope);
	if (!root) throw new Error(`npm installed ${spec}, but it is not where pi looks for it`);
	const scripts = await settleScripts(
		root,
		prefix ?? root,
		{ agentDir, command, where: prefix ? { prefix } : { global: true }, key: root, fresh: true },
		parsed.name,
		true,
	);
	return { root, scripts };
}

/** What to tell the user about scripts that did not run, or undefined when none were skipped. */
export function skippedNotice(source: string, record: ScriptRecord): string | undefined {
	if (record.skipped.length === 0) return undefined;
	const list = describeScripted(record.skipped);
	// Names with a space say where a package came from: nothing can allow those (script-policy.ts).
	const names = record.skipped
		.map((p) => p.name)
		.filter((name) => !/\s/.test(name))
		.join(",");
	if (names === "") return `package ${source}: install scripts skipped: ${list}. None of them can be allowed by name.`;
	return (
		`package ${source}: install scripts skipped: ${list}. If the package needs them, allow them by name: ` +
		`pier install ${source} --allow-scripts ${names} (adds them to extensionHost.allowScripts in the global settings)`
	);
}

/** Scripts of a git checkout: settled in its staging directory, recorded under the checkout's own path. */
export function checkoutScripts(
	agentDir: string,
	target: string,
	identity: string,
): { onStaged: (stage: string) => Promise<void>; record: () => ScriptRecord | undefined } {
	let record: ScriptRecord | undefined;
	return {
		onStaged: async (stage) => {
			const context = { agentDir, command: ["npm"], where: { prefix: stage }, key: target, fresh: true };
			record = await settleScripts(stage, stage, context, identity);
		},
		record: () => record,
	};
}

/** An installed checkout's scripts allowed since it was installed (`pier install --allow-scripts` again). */
export function settleCheckout(agentDir: string, target: string, identity: string): Promise<ScriptRecord> {
	const context = { agentDir, command: ["npm"], where: { prefix: target }, key: target, fresh: false };
	return settleScripts(target, target, context, identity);
}

/** pi's `npm uninstall`, with scripts off as well (a reified tree must not run anything either). */
export async function uninstallNpmSource(options: {
	parsed: NpmSource;
	scope: PackageScope;
	cwd: string;
	settingsManager: SettingsManager;
}): Promise<void> {
	const command = npmCommandOf(options.settingsManager);
	const prefix = join(options.cwd, ".pi", "npm");
	if (options.scope === "user")
		await installWithoutScripts(command, ["uninstall", "-g", options.parsed.name], options.cwd);
	else if (existsSync(prefix))
		await installWithoutScripts(command, ["uninstall", options.parsed.name, "--prefix", prefix], prefix);
}

/**
 * `-e <package source>` (`-e npm:name`, `-e git:host/owner/repo`): pi would install it as a temporary package with
 * its own package manager, which runs the package's lifecycle scripts. pier installs it instead, as it installs
 * every package (scripts off, allowed by name; npm.ts), under `<agentDir>/pier-cli-packages/`, and hands pi the
 * installed directory. An installed source is reused as it is; `pier install` is the way to keep one up to date.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { checkoutPath, stageAndSwap } from "./git.js";
import { withPackageLock } from "./lock.js";
import { checkoutScripts, installWithoutScripts, npmRoot, settleScripts, skippedNotice } from "./npm.js";
import { isPackageSource, type ParsedSource, parseSource } from "./sources.js";
import { refuseInstallByPolicy } from "../policy/policy.js";

export interface CliSourceOptions {
	agentDir: string;
	/** Whether installing is allowed now (not offline). */
	install: boolean;
}

function installedVersion(root: string): string | undefined {
	try {
		return (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: string }).version;
	} catch {
		return undefined;
	}
}

/**
 * The directory an `-e` package source is installed in, installing it first if needed, with what was said about
 * its scripts; undefined when it is not installed and may not be now (pi then says it is missing).
 */
export async function installCliSource(
	parsed: Exclude<ParsedSource, { kind: "local" }>,
	options: CliSourceOptions,
): Promise<{ dir: string; notices: string[] } | undefined> {
	refuseInstallByPolicy(options.agentDir, parsed);
	const base = join(options.agentDir, "pier-cli-packages");
	const notices: string[] = [];
	if (parsed.kind === "npm") {
		const prefix = join(base, "npm");
		const root = join(prefix, "node_modules", parsed.name);
		const have = installedVersion(root);
		if (have !== undefined && (!parsed.version || parsed.version === have)) return { dir: root, notices };
		if (!options.install) return undefined;
		const spec = parsed.version ? `${parsed.name}@${parsed.version}` : parsed.name;
		await withPackageLock(options.agentDir, async () => {
			npmRoot(prefix);
			await installWithoutScripts(["npm"], ["install", spec, "--prefix", prefix], prefix);
			const context = { agentDir: options.agentDir, command: ["npm"], where: { prefix }, key: root, fresh: true };
			const record = await settleScripts(root, prefix, context, parsed.name, true);
			const notice = skippedNotice(parsed.source, record);
			if (notice) notices.push(notice);
		});
		return { dir: root, notices };
	}
	const target = checkoutPath(base, parsed);
	if (existsSync(target)) return { dir: target, notices };
	if (!options.install) return undefined;
	const scripts = checkoutScripts(options.agentDir, target, parsed.identity);
	await withPackageLock(options.agentDir, () => stageAndSwap(target, base, parsed, scripts.onStaged));
	const record = scripts.record();
	const notice = record && skippedNotice(parsed.source, record);
	if (notice) notices.push(notice);
	return { dir: target, notices };
}

/**
 * The `-e` list with each package source replaced by the directory pier installed it in. A source pier could not
 * install is left out with an error naming it: pi would install it with its scripts on. A `file://` git source
 * stays as it is (discovery refuses it with what to do instead), and so does one that may not be installed now.
 */
export async function localizeCliSources(
	paths: readonly string[],
	options: CliSourceOptions & { cwd: string },
): Promise<{ paths: string[]; notices: string[]; errors: string[] }> {
	const out = { paths: [] as string[], notices: [] as string[], errors: [] as string[] };
	for (const path of paths) {
		if (existsSync(resolve(options.cwd, path)) || !isPackageSource(path)) {
			out.paths.push(path);
			continue;
		}
		try {
			const parsed = parseSource(path);
			if (parsed.kind === "local" || (parsed.kind === "git" && parsed.host === "file")) {
				out.paths.push(path);
				continue;
			}
			const installed = await installCliSource(parsed, options);
			if (!installed) {
				out.paths.push(path);
				continue;
			}
			out.paths.push(installed.dir);
			out.notices.push(...installed.notices);
		} catch (error) {
			out.errors.push(`-e ${path}: ${(error as Error).message}`);
		}
	}
	return out;
}

/**
 * What the CLI and the chamber show about grants: the user's installed protocol extensions (what each
 * declares, where it lives, whether grants apply to it) and the grants in force, each with the directory it is
 * bound to and whether that directory still holds the code it was granted to.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadManifest, MANIFEST_FILE, type RuntimeKind } from "../manifest.js";
import { identityOf } from "./identity.js";
import { readGrants } from "./store.js";
import { GRANT_MEANING, GRANTS, type Grant, sortedGrants } from "./vocabulary.js";

export interface InstalledExtension {
	id: string;
	/** The canonical manifest directory: what a grant binds to. */
	dir: string;
	runtime: RuntimeKind;
	/** What the manifest declares (capabilities and UI capabilities). */
	capabilities: string[];
	uiCapabilities: string[];
	/** Grants apply only to sandboxed extensions; the others already run arbitrary code. */
	sandboxed: boolean;
}

/**
 * `current`: the directory holds the extension and code granted to; `changed`: its code (or id) changed, so
 * the grant applies to nothing until given again; `missing`: no extension there any more.
 */
export type GrantStatus = "current" | "changed" | "missing";

export interface GrantView {
	dir: string;
	digest: string;
	grants: Grant[];
	status: GrantStatus;
}

export interface GrantOverview {
	grants: Record<string, GrantView>;
	extensions: InstalledExtension[];
	known: { name: Grant; meaning: string }[];
	problems: string[];
}

/** `<agentDir>/extensions/<name>/pi-extension.json`, as session discovery finds them; broken ones are skipped. */
/** The extension whose manifest is in `dir`, or undefined (no manifest, or a broken one). */
export function manifestExtension(dir: string): InstalledExtension | undefined {
	if (!existsSync(join(dir, MANIFEST_FILE))) return undefined;
	try {
		const m = loadManifest(dir, { origin: "user" });
		return {
			id: m.id,
			dir: m.root,
			runtime: m.runtime.kind,
			capabilities: m.capabilities,
			uiCapabilities: m.uiCapabilities,
			sandboxed: m.runtime.kind === "quickjs",
		};
	} catch {
		// a session reports the broken manifest with its reason; here it is simply not offered
		return undefined;
	}
}

export function installedExtensions(agentDir: string): InstalledExtension[] {
	const root = join(agentDir, "extensions");
	if (!existsSync(root)) return [];
	const found: InstalledExtension[] = [];
	for (const entry of readdirSync(root, { withFileTypes: true })) {
		if (entry.name.startsWith(".") || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
		const extension = manifestExtension(join(root, entry.name));
		if (extension) found.push(extension);
	}
	return found.sort((a, b) => a.id.localeCompare(b.id) || a.dir.localeCompare(b.dir));
}

function statusOf(id: string, dir: string, digest: string): GrantStatus {
	if (!existsSync(join(dir, MANIFEST_FILE))) return "missing";
	try {
		const now = identityOf(dir);
		return now.id === id && now.digest === digest ? "current" : "changed";
	} catch {
		return "changed";
	}
}

/**
 * `loaded`: directories the caller loads besides the installed ones (the daemon's `-e` paths), listed too, so
 * an extension running from there can be granted from the page as `pier grant <its directory>` does.
 */
export function grantOverview(agentDir: string, loaded: readonly string[] = []): GrantOverview {
	const { grants, problems } = readGrants(agentDir);
	return {
		grants: Object.fromEntries(
			[...grants].map(([id, entry]) => [
				id,
				{
					dir: entry.dir,
					digest: entry.digest,
					grants: sortedGrants(entry.grants),
					status: statusOf(id, entry.dir, entry.digest),
				},
			]),
		),
		extensions: withLoaded(installedExtensions(agentDir), loaded),
		known: GRANTS.map((name) => ({ name, meaning: GRANT_MEANING[name] })),
		problems,
	};
}

function withLoaded(installed: InstalledExtension[], loaded: readonly string[]): InstalledExtension[] {
	const all = [...installed];
	for (const dir of loaded) {
		const found = manifestExtension(dir);
		if (found && !all.some((e) => e.dir === found.dir)) all.push(found);
	}
	return all.sort((a, b) => a.id.localeCompare(b.id) || a.dir.localeCompare(b.dir));
}

/**
 * What the CLI and the chamber show about grants: the user's installed protocol extensions (what each
 * declares, whether grants apply to it) and the grants in force, from the one store.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadManifest, MANIFEST_FILE } from "../manifest.js";
import { readGrants } from "./store.js";
import { GRANT_MEANING, GRANTS, type Grant, sortedGrants } from "./vocabulary.js";

export interface InstalledExtension {
	id: string;
	runtime: "process" | "quickjs";
	/** What the manifest declares (capabilities and UI capabilities). */
	capabilities: string[];
	uiCapabilities: string[];
	/** Grants apply only to sandboxed extensions; the others already run arbitrary code. */
	sandboxed: boolean;
}

export interface GrantOverview {
	grants: Record<string, Grant[]>;
	extensions: InstalledExtension[];
	known: { name: Grant; meaning: string }[];
	problems: string[];
}

/** `<agentDir>/extensions/<name>/pi-extension.json`, as session discovery finds them; broken ones are skipped. */
export function installedExtensions(agentDir: string): InstalledExtension[] {
	const root = join(agentDir, "extensions");
	if (!existsSync(root)) return [];
	const found: InstalledExtension[] = [];
	for (const entry of readdirSync(root, { withFileTypes: true })) {
		if (entry.name.startsWith(".") || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
		const dir = join(root, entry.name);
		if (!existsSync(join(dir, MANIFEST_FILE))) continue;
		try {
			const m = loadManifest(dir, { origin: "user" });
			found.push({
				id: m.id,
				runtime: m.runtime.kind,
				capabilities: m.capabilities,
				uiCapabilities: m.uiCapabilities,
				sandboxed: m.runtime.kind === "quickjs",
			});
		} catch {
			// a session reports the broken manifest with its reason; here it is simply not offered
		}
	}
	return found.sort((a, b) => a.id.localeCompare(b.id));
}

export function grantOverview(agentDir: string): GrantOverview {
	const { grants, problems } = readGrants(agentDir);
	return {
		grants: Object.fromEntries([...grants].map(([id, set]) => [id, sortedGrants(set)])),
		extensions: installedExtensions(agentDir),
		known: GRANTS.map((name) => ({ name, meaning: GRANT_MEANING[name] })),
		problems,
	};
}

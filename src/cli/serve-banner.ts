/** What `pier serve` says when it starts: where, which model new sessions get, what loads, how to stop. */
import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { SettingsManager } from "@earendil-works/pi-coding-agent";
import { agentDir } from "../agent/paths.js";
import { availableModels } from "../agent/session-factory.js";
import { pierCommand } from "../chamber/pier-command.js";
import { MANIFEST_FILE } from "../extensions/manifest.js";

/** An extension path's kind as the chamber's extension list names kinds. */
export function extensionKind(path: string): string {
	if (existsSync(path) && statSync(path).isDirectory()) {
		const manifest = join(path, MANIFEST_FILE);
		if (!existsSync(manifest)) return "typescript";
		try {
			return (JSON.parse(readFileSync(manifest, "utf8")) as { runtime?: string }).runtime ?? "process";
		} catch {
			return "process";
		}
	}
	return [".js", ".mjs", ".cjs"].includes(extname(path)) ? "javascript" : "typescript";
}

/** `--model`, else the user's default if it has credentials, else the first model that does (pier/demo last). */
export async function defaultModelRef(requested: string | undefined): Promise<string> {
	if (requested) return requested;
	const dir = agentDir();
	const settings = SettingsManager.create(dir, dir).getGlobalSettings();
	const models = await availableModels(dir);
	const saved = models.find((m) => m.provider === settings.defaultProvider && m.id === settings.defaultModel);
	const chosen = saved ?? models.find((m) => m.provider !== "pier") ?? models[0];
	return chosen ? `${chosen.provider}/${chosen.id}` : "(none)";
}

export function serveBanner(options: { urls: string[]; model: string; extensionPaths: string[] }): string {
	const kinds = new Map<string, number>();
	for (const path of options.extensionPaths) kinds.set(extensionKind(path), (kinds.get(extensionKind(path)) ?? 0) + 1);
	const loaded = [...kinds].map(([kind, n]) => `${n} ${kind}`).join(", ") || "none";
	return [
		...options.urls.map((url) => `pier chamber: ${url}`),
		`model for new sessions: ${options.model} · extensions: ${loaded}`,
		`stop with Ctrl+C (or SIGTERM); a new sign-in link any time: ${pierCommand()} pair`,
	]
		.map((line) => `${line}\n`)
		.join("");
}

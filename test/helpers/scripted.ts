/** Builds packages around test/fixtures/process/scripted.mjs and starts them in a real ExtensionHost. */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ExtensionHost, type HostDiagnostic, type HostOptions } from "../../src/extensions/host/host.js";
import type { ExtensionSpec } from "../../src/extensions/host/instance.js";
import { loadManifest } from "../../src/extensions/manifest.js";
import { processSpec, type ProcessSpecOptions } from "../../src/extensions/runtimes/process/launcher.js";
import { REPO_ROOT } from "./pier-cli.js";

const SCRIPT = join(REPO_ROOT, "test", "fixtures", "process", "scripted.mjs");

export interface ScriptOptions {
	hello?: "none" | "twice" | "version2";
	helloId?: string;
	load?: "hang" | "request" | "fail";
	init?: "hang";
	after?: "register";
	/** `settle`: answers agent_before_settle with one more custom entry (`scripted-settle`, `{outcome}`). */
	hook?: "hang" | "echo" | "rewrite" | "headers" | "approve" | "trust-no" | "settle";
	shutdown?: "ignore";
	tools?: string[];
	hooks?: string[];
	commands?: string[];
	register?: unknown[];
	capabilities?: string[];
	uiCapabilities?: string[];
	hugeBytes?: number;
	/** Write `event=<name> keys=<payload keys>` (and ` roles=<roles>` of a `messages` list) to stderr per hook. */
	logEvents?: boolean;
	/** Write `data=<name> <payload JSON>` to stderr for each hook of these names delivered. */
	logData?: string[];
}

let counter = 0;

/** A package directory holding the scripted extension with these options. */
export function scriptedPackage(root: string, id: string, options: ScriptOptions = {}): string {
	const dir = join(root, `${id}-${++counter}`);
	mkdirSync(dir, { recursive: true });
	copyFileSync(SCRIPT, join(dir, "scripted.mjs"));
	writeFileSync(
		join(dir, "pi-extension.json"),
		JSON.stringify({
			schemaVersion: 1,
			id,
			executable: "./scripted.mjs",
			arguments: [JSON.stringify(options)],
			capabilities: options.capabilities ?? ["tools", "event_hooks", "commands"],
			uiCapabilities: options.uiCapabilities ?? [],
		}),
	);
	return dir;
}

export function scriptedSpec(dir: string, options: Partial<ProcessSpecOptions> = {}): ExtensionSpec {
	return processSpec(loadManifest(dir), { cwd: dir, projectTrusted: true, ...options });
}

export function testHost(options: Partial<HostOptions> = {}): { host: ExtensionHost; diagnostics: HostDiagnostic[] } {
	const diagnostics: HostDiagnostic[] = [];
	const host = new ExtensionHost({ mode: "tui", onDiagnostic: (d) => diagnostics.push(d), ...options });
	return { host, diagnostics };
}

/** Whether a process still runs: a zombie (killed, not yet reaped by its new parent) counts as dead. */
export function isAlive(pid: number): boolean {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
	} catch {
		return false;
	}
}

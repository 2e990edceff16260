/**
 * Native plugin packages for the host tests: a temporary directory holding a fixture's pi-extension.json
 * and the built library beside it (the manifest names `./lib<name>.so`), and launch specs for them.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ExtensionHost } from "../../src/extensions/host/host.js";
import type { ExtensionSpec } from "../../src/extensions/host/instance.js";
import { loadManifest } from "../../src/extensions/manifest.js";
import { launchSpec } from "../../src/extensions/runtimes/table.js";
import { cLibrary, NATIVE_REPO_ROOT, nativeLibrary } from "../helpers/native-build.js";

export const FIXTURES = join(NATIVE_REPO_ROOT, "test", "fixtures", "native");

/** A package directory `<root>/<id>` with `manifest` (its `library` rewritten to the built file's name). */
export function nativePackage(root: string, library: string, manifest: Record<string, unknown>): string {
	const dir = join(root, String(manifest.id));
	mkdirSync(dir, { recursive: true });
	copyFileSync(library, join(dir, basename(library)));
	writeFileSync(join(dir, "pi-extension.json"), JSON.stringify({ ...manifest, library: `./${basename(library)}` }));
	return dir;
}

/** A Rust fixture or example crate with its own manifest (`fixtureDir` holds pi-extension.json). */
export async function crateModule(root: string, crate: string, fixtureDir: string): Promise<string> {
	const manifest = JSON.parse(readFileSync(join(fixtureDir, "pi-extension.json"), "utf8"));
	return nativePackage(root, await nativeLibrary(crate), manifest);
}

/** A C fixture under test/fixtures/native/c with a manifest made here. */
export async function cModule(root: string, name: string, capabilities: string[] = ["tools"]): Promise<string> {
	const manifest = { schemaVersion: 1, id: `c-${name.replaceAll("_", "-")}`, runtime: "native", capabilities };
	return nativePackage(root, await cLibrary(name), manifest);
}

export const probe = (root: string) => crateModule(root, "native-probe", join(FIXTURES, "probe"));
export const crash = (root: string) => crateModule(root, "native-crash", join(FIXTURES, "crash"));
export const echo = (root: string) =>
	crateModule(root, "native-echo", join(NATIVE_REPO_ROOT, "examples", "native", "echo"));

export function spec(dir: string): ExtensionSpec {
	return launchSpec(loadManifest(dir), { cwd: dir, projectTrusted: true, deadlineMs: 30_000 });
}

export const textOf = (value: unknown) => (value as { content: { text: string }[] }).content[0]!.text;

/** The probe's `event_counts` report. */
export function report(value: unknown): {
	counts: Record<string, number>;
	last: Record<string, Record<string, unknown>>;
	sleepy: { polls: number; wakes: number; wakerInstalls: number };
	slow: { started: number; polls: number; cancels: number; sawCancel: number; destroyed: number };
} {
	return JSON.parse(textOf(value));
}

/**
 * The probe's `slow` counters once its destroy has run: the cancel frame reaches the plugin host after the
 * abort, so they are read again for up to a second.
 */
export async function slowAfterCancel(host: ExtensionHost): Promise<ReturnType<typeof report>["slow"]> {
	let slow = report(await host.invokeTool("event_counts", "e1", {})).slow;
	for (let i = 0; i < 20 && slow.destroyed === 0; i++) {
		await sleep(50);
		slow = report(await host.invokeTool("event_counts", "e1", {})).slow;
	}
	return slow;
}

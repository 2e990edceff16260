/**
 * pi's settings file storage, with pi's locking. pi exports `SettingsManager.fromStorage` but not its
 * `FileSettingsStorage`, so the class is taken from the private `storage` of a `SettingsManager.create()` made over
 * directories that do not exist (so no file is read). pier wraps that storage to tell pi its trust decision.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SettingsManager } from "@earendil-works/pi-coding-agent";
import { Findings, loadForCheck, type Seam } from "./seam.js";

export type SettingsStorage = Parameters<typeof SettingsManager.fromStorage>[0];

type FileStorageClass = new (cwd: string, agentDir: string) => SettingsStorage;

const NOWHERE = join(tmpdir(), "pier-settings-probe-nonexistent");

let fileStorage: FileStorageClass | undefined;

function storageClassOf(settings: typeof SettingsManager): FileStorageClass | undefined {
	const storage = (settings.create(NOWHERE, NOWHERE) as unknown as { storage?: { constructor?: unknown } }).storage;
	return typeof storage?.constructor === "function" ? (storage.constructor as FileStorageClass) : undefined;
}

/** pi's own storage of the settings files of `cwd` (project) and `agentDir` (global). */
export function piFileSettingsStorage(cwd: string, agentDir: string): SettingsStorage {
	fileStorage ??= storageClassOf(SettingsManager);
	if (!fileStorage) throw new Error("pier: pi's SettingsManager has no file storage (pi changed?)");
	return new fileStorage(cwd, agentDir);
}

const id = { name: "settings-storage", file: "src/pi-seams/settings-storage.ts" };

type PiIndex = typeof import("@earendil-works/pi-coding-agent");

export const seam: Seam = {
	...id,
	members: [
		"private SettingsManager.storage (from SettingsManager.create): its constructor(cwd, agentDir)",
		"SettingsStorage.withLock(scope, fn)",
		"SettingsManager.fromStorage(storage, options)",
	],
	async check(roots) {
		const findings = new Findings(id);
		const pi = await loadForCheck<PiIndex>(findings, roots.codingAgent, "dist/index.js");
		findings.fn(pi?.SettingsManager, "create", "SettingsManager.create");
		findings.fn(pi?.SettingsManager, "fromStorage", "SettingsManager.fromStorage");
		const storageClass =
			typeof pi?.SettingsManager?.create === "function" ? storageClassOf(pi.SettingsManager) : undefined;
		if (!storageClass) findings.add("a SettingsManager from create() has no private storage object");
		else {
			if (storageClass.length !== 2)
				findings.add(`the settings storage constructor declares ${storageClass.length} parameter(s), pier passes 2`);
			findings.fn(storageClass.prototype, "withLock", "the settings storage's withLock", 2);
		}
		findings.done();
	},
};

/**
 * `pier list --check`: start every enabled protocol extension of the list through its handshake (hello, load,
 * initialize) in a host of its own, then shut it down. An extension that does not start becomes `failed` with
 * the host's reason; one that does gets `checked: true`. Nothing is invoked and no session exists.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { type ManifestSource, protocolSpecs } from "../bridge/discovery.js";
import { ExtensionHost } from "../host/host.js";
import { isManifestRuntime, MANIFEST_FILE } from "../manifest.js";
import type { ExtensionList, ListedExtension } from "./list.js";

function manifestKey(dir: string): string {
	try {
		return join(realpathSync(dir), MANIFEST_FILE);
	} catch {
		return join(dir, MANIFEST_FILE);
	}
}

function sourceOf(e: ListedExtension): ManifestSource {
	const origin = e.origin === "package" ? e.scope : e.origin;
	return { path: e.path, origin, ...(e.package?.identity ? { packageId: e.package.identity } : {}) };
}

export async function checkExtensions(model: ExtensionList): Promise<void> {
	const candidates = model.extensions.filter((e) => e.state === "enabled" && isManifestRuntime(e.kind));
	const host = new ExtensionHost({ mode: "print" });
	const { specs, diagnostics } = protocolSpecs(candidates.map(sourceOf), {
		cwd: model.cwd,
		projectTrusted: model.trust.trusted,
		deadlineMs: host.timeouts.invocationMs,
	});
	const bySource = new Map(candidates.map((e) => [manifestKey(e.path), e]));
	try {
		const report = await host.load(specs);
		for (const failure of report.failures) {
			const entry = bySource.get(failure.source);
			if (!entry) continue;
			entry.state = "failed";
			entry.reason = `failed to start: ${failure.message}`;
		}
		for (const spec of specs) {
			const entry = bySource.get(spec.source);
			if (entry && entry.state === "enabled") entry.checked = true;
		}
	} finally {
		await host.shutdown("pier list --check done");
	}
	// Validation already ran for the list; a spec that could not be made is reported where it was found.
	for (const message of diagnostics) {
		const entry = candidates.find((e) => message.includes(manifestKey(e.path)));
		if (entry) {
			entry.state = "failed";
			entry.reason = message;
		}
	}
}

/** rpi's manifest tests (#1, #2, #5, #8, #9): what a pi-extension.json turns into, and what it is refused for. */
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadManifest, validateManifest } from "../../src/extensions/manifest.js";
import type { RpiCase } from "./cases.js";

/** A temporary package directory holding `files` and this manifest. */
function pkg(manifest: unknown, files: Record<string, string>) {
	const dir = mkdtempSync(join(tmpdir(), "pier-rpi-manifest-"));
	for (const [name, body] of Object.entries(files)) writeFileSync(join(dir, name), body);
	writeFileSync(join(dir, "pi-extension.json"), JSON.stringify(manifest));
	return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

const quickjs = (entry: string, capabilities = ["commands", "tools", "event_hooks", "ui"]) => ({
	schemaVersion: 1,
	id: "quickjs-test",
	runtime: "quickjs",
	entry,
	capabilities,
	uiCapabilities: capabilities.includes("ui") ? ["notify"] : [],
});

const refusal = (load: () => unknown): string => {
	try {
		load();
	} catch (error) {
		return (error as Error).message;
	}
	assert.fail("the manifest was accepted");
};

export const MANIFEST_CASES: RpiCase[] = [
	{
		n: 1,
		name: "legacy_process_manifest_deserializes_unchanged",
		uses: [],
		async run(_source, checks) {
			using p = pkg(
				{
					schemaVersion: 1,
					id: "legacy",
					executable: "./main",
					arguments: ["serve"],
					capabilities: ["tools"],
					uiCapabilities: [],
				},
				{
					main: "#!/bin/sh\n",
				},
			);
			chmodSync(join(p.dir, "main"), 0o755);
			await checks.that("no runtime field means a process extension; its arguments are kept", () => {
				const runtime = loadManifest(p.dir).runtime;
				assert.equal(runtime.kind, "process");
				assert.deepEqual(runtime.kind === "process" && runtime.arguments, ["serve"]);
			});
		},
	},
	{
		n: 2,
		name: "quickjs_manifest_rejects_untrusted_traversal_and_unsupported_entry",
		uses: [],
		async run(_source, checks) {
			await checks.that('an untrusted project: "untrusted project extension manifest"', () => {
				using p = pkg(quickjs("index.mjs"), { "index.mjs": "export default () => {}" });
				const message = refusal(() => loadManifest(p.dir, { origin: "project", projectTrusted: false }));
				assert.match(message, /untrusted project extension manifest/);
			});
			await checks.that('an entry with "..": "must remain inside"', () => {
				using p = pkg(quickjs("../outside.mjs"), {});
				assert.match(
					refusal(() => loadManifest(p.dir, { origin: "project", projectTrusted: true })),
					/must remain inside/,
				);
			});
			await checks.that('a .py entry: "must end in .js or .mjs"', () => {
				using p = pkg(quickjs("index.py"), { "index.py": "pass" });
				assert.match(
					refusal(() => loadManifest(p.dir, { origin: "project", projectTrusted: true })),
					/must end in \.js or \.mjs/,
				);
			});
		},
	},
	{
		n: 5,
		name: "project_local_untrusted_executable_extension_is_refused",
		uses: [],
		decision:
			"pier's launch specs carry no origin: an untrusted project's manifests are refused where specs are made (loadManifest, discovery), so the direct-launch half has no pier equivalent",
		async run(_source, checks) {
			using p = pkg(
				{
					schemaVersion: 1,
					id: "untrusted-exec",
					runtime: "process",
					executable: "payload.sh",
					capabilities: ["commands"],
				},
				{ "payload.sh": `#!/bin/sh\ntouch "$(dirname "$0")/ran"\n` },
			);
			chmodSync(join(p.dir, "payload.sh"), 0o755);
			await checks.that('package discovery refuses it: "untrusted project extension manifest"; nothing ran', () => {
				assert.match(
					refusal(() => loadManifest(p.dir, { origin: "project", projectTrusted: false })),
					/untrusted project extension manifest/,
				);
				assert.equal(existsSync(join(p.dir, "ran")), false);
			});
		},
	},
	{
		n: 8,
		name: "quickjs_manifest_rejects_typescript_entry",
		uses: [],
		async run(_source, checks) {
			using p = pkg(
				{ ...quickjs("index.ts", ["commands"]), id: "quickjs-ts" },
				{ "index.ts": "export default () => {}\n" },
			);
			const message = refusal(() => loadManifest(p.dir, { origin: "project", projectTrusted: true }));
			await checks.that('the refusal names ".js or .mjs"', () => assert.match(message, /\.js or \.mjs/));
			await checks.that("the refusal says TypeScript is why", () => assert.match(message, /TypeScript/));
		},
	},
	{
		n: 9,
		name: "quickjs_manifest_rejects_process_inexpressible_capabilities",
		uses: [],
		async run(_source, checks) {
			for (const capability of ["message_renderers", "provider_metadata"]) {
				await checks.that(`${capability} is refused, by name`, () => {
					const manifest = { ...quickjs("index.mjs", [capability]), id: "unsupported-quickjs-capability" };
					using p = pkg(manifest, { "index.mjs": "export default () => {}\n" });
					assert.match(
						refusal(() => validateManifest(manifest, join(p.dir, "pi-extension.json"))),
						new RegExp(capability),
					);
				});
			}
		},
	},
];

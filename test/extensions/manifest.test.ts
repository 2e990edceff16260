import assert from "node:assert/strict";
import { chmodSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { loadManifest, ManifestError, MANIFEST_FILE } from "../../src/extensions/manifest.js";
import { tempDir } from "../helpers/pier-cli.js";

function pkg(root: string, manifest: unknown, files: Record<string, string> = { main: "#!/bin/sh\n" }) {
	mkdirSync(root, { recursive: true });
	for (const [name, body] of Object.entries(files)) {
		mkdirSync(join(root, name, ".."), { recursive: true });
		writeFileSync(join(root, name), body);
		chmodSync(join(root, name), 0o755);
	}
	writeFileSync(join(root, MANIFEST_FILE), JSON.stringify(manifest));
	return root;
}

const base = { schemaVersion: 1, id: "pi-weather", executable: "./main", capabilities: ["tools"] };

function rejects(root: string, field: string | undefined, problem: RegExp, options = {}) {
	assert.throws(
		() => loadManifest(root, options),
		(error: unknown) => {
			assert.ok(error instanceof ManifestError, String(error));
			assert.equal(error.field, field);
			assert.match(error.message, problem);
			assert.ok(error.message.includes(MANIFEST_FILE), "the message names the file");
			return true;
		},
	);
}

describe("pi-extension.json", () => {
	test("a process manifest resolves to canonical contained paths", () => {
		using dir = tempDir();
		const root = pkg(join(dir.path, "p"), { ...base, arguments: ["--x"], version: "0.1.0", uiCapabilities: [] });
		const m = loadManifest(root);
		assert.equal(m.id, "pi-weather");
		assert.deepEqual(m.runtime, { kind: "process", executable: join(realpathSync(root), "main"), arguments: ["--x"] });
		assert.deepEqual(m.capabilities, ["tools"]);
		assert.equal(m.version, "0.1.0");
		assert.equal(loadManifest(join(root, MANIFEST_FILE)).id, "pi-weather", "the file path works too");
	});

	test("explicit runtime process and a quickjs entry are accepted", () => {
		using dir = tempDir();
		assert.equal(loadManifest(pkg(join(dir.path, "a"), { ...base, runtime: "process" })).runtime.kind, "process");
		const q = loadManifest(
			pkg(
				join(dir.path, "q"),
				{ schemaVersion: 1, id: "q", runtime: "quickjs", entry: "lib/index.mjs" },
				{ "lib/index.mjs": "" },
			),
		);
		assert.equal(q.runtime.kind, "quickjs");
	});

	test("id: 128 bytes pass, 129 fail; only [A-Za-z0-9_.-]", () => {
		using dir = tempDir();
		assert.equal(loadManifest(pkg(join(dir.path, "ok"), { ...base, id: "a".repeat(128) })).id.length, 128);
		rejects(pkg(join(dir.path, "long"), { ...base, id: "a".repeat(129) }), "id", /exceeds 128 bytes/);
		rejects(pkg(join(dir.path, "chars"), { ...base, id: "pi weather" }), "id", /unsupported characters/);
		rejects(pkg(join(dir.path, "empty"), { ...base, id: "" }), "id", /must not be empty/);
		rejects(pkg(join(dir.path, "uni"), { ...base, id: "wëather" }), "id", /unsupported characters/);
	});

	test("schema: version, unknown fields, unknown capabilities, ui coherence", () => {
		using dir = tempDir();
		rejects(pkg(join(dir.path, "v2"), { ...base, schemaVersion: 2 }), "schemaVersion", /unsupported version 2/);
		rejects(pkg(join(dir.path, "unk"), { ...base, env: {} }), "env", /unknown field/);
		rejects(pkg(join(dir.path, "cap"), { ...base, capabilities: ["telepathy"] }), "capabilities.0", /./);
		rejects(
			pkg(join(dir.path, "ui"), { ...base, uiCapabilities: ["notify"] }),
			"uiCapabilities",
			/without the "ui" capability/,
		);
		assert.deepEqual(
			loadManifest(
				pkg(join(dir.path, "uiok"), { ...base, capabilities: ["ui"], uiCapabilities: ["notify", "editor_text"] }),
			).uiCapabilities,
			["notify", "editor_text"],
		);
		rejects(pkg(join(dir.path, "arr"), []), undefined, /must be a JSON object/);
		const broken = join(dir.path, "broken");
		mkdirSync(broken);
		writeFileSync(join(broken, MANIFEST_FILE), "{");
		rejects(broken, undefined, /not valid JSON/);
		rejects(join(dir.path, "missing"), undefined, /cannot read manifest \(ENOENT\)/);
	});

	test("runtime fields: mixed, missing, arguments on quickjs, TypeScript entries, QuickJS-only capability limits", () => {
		using dir = tempDir();
		const files = { main: "", "index.mjs": "", "index.ts": "" };
		rejects(pkg(join(dir.path, "mixed"), { ...base, entry: "index.mjs" }, files), "entry", /must not set entry/);
		rejects(pkg(join(dir.path, "noexe"), { schemaVersion: 1, id: "x" }), "executable", /requires executable/);
		const q = { schemaVersion: 1, id: "q", runtime: "quickjs", entry: "index.mjs" };
		rejects(pkg(join(dir.path, "qexe"), { ...q, executable: "main" }, files), "executable", /must not set executable/);
		rejects(pkg(join(dir.path, "qargs"), { ...q, arguments: ["a"] }, files), "arguments", /does not support arguments/);
		rejects(pkg(join(dir.path, "qts"), { ...q, entry: "index.ts" }, files), "entry", /TypeScript is not supported/);
		rejects(pkg(join(dir.path, "qnone"), { schemaVersion: 1, id: "q", runtime: "quickjs" }), "entry", /requires entry/);
		rejects(
			pkg(join(dir.path, "qmr"), { ...q, capabilities: ["message_renderers"] }, files),
			"capabilities",
			/do not support the message_renderers capability/,
		);
		rejects(
			pkg(join(dir.path, "qpm"), { ...q, capabilities: ["provider_metadata"] }, files),
			"capabilities",
			/do not support the provider_metadata capability/,
		);
		rejects(pkg(join(dir.path, "bogus"), { ...base, runtime: "wasm" }), "runtime", /./);
	});

	test("paths: absolute, .., symlink escape, missing, non-regular, no exec bit", () => {
		using dir = tempDir();
		rejects(pkg(join(dir.path, "abs"), { ...base, executable: "/bin/sh" }), "executable", /must be relative/);
		rejects(pkg(join(dir.path, "dots"), { ...base, executable: "../main" }), "executable", /no "\.\."/);
		rejects(pkg(join(dir.path, "dots2"), { ...base, executable: "sub/../../main" }), "executable", /no "\.\."/);
		const outside = join(dir.path, "outside-bin");
		writeFileSync(outside, "#!/bin/sh\n");
		chmodSync(outside, 0o755);
		const esc = pkg(join(dir.path, "esc"), { ...base, executable: "link" }, {});
		symlinkSync(outside, join(esc, "link"));
		rejects(esc, "executable", /escapes the manifest directory/);
		const inside = pkg(join(dir.path, "inside"), { ...base, executable: "link" });
		symlinkSync(join(inside, "main"), join(inside, "link"));
		assert.equal(loadManifest(inside).runtime.kind, "process", "a symlink that stays inside is fine");
		rejects(pkg(join(dir.path, "miss"), { ...base, executable: "nope" }, {}), "executable", /does not exist/);
		const d = pkg(join(dir.path, "dir"), { ...base, executable: "sub" }, {});
		mkdirSync(join(d, "sub"));
		rejects(d, "executable", /not a regular file/);
		const noexec = pkg(join(dir.path, "noexec"), base);
		chmodSync(join(noexec, "main"), 0o644);
		rejects(noexec, "executable", /missing exec bit/);
		rejects(pkg(join(dir.path, "empty"), { ...base, executable: "" }), "executable", /must not be empty/);
	});

	test("a project manifest needs the project's trust", () => {
		using dir = tempDir();
		const root = pkg(join(dir.path, "p"), base);
		rejects(root, undefined, /refusing untrusted project extension manifest/, { origin: "project" });
		rejects(root, undefined, /refusing untrusted/, { origin: "project", projectTrusted: false });
		assert.equal(loadManifest(root, { origin: "project", projectTrusted: true }).id, "pi-weather");
	});
});

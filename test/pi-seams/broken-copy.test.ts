/**
 * The contract test fails with the seam's name when pi loses a member: a seam's check runs against a copy of the
 * installed pi with one member renamed, and must reject naming its seam, its file and the member. Where the rest of
 * the copy still loads, the other seams pass on it: the failure is the member's, not the copy's.
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { after, before, test } from "node:test";
import { installedPiRoots, type PiRoots, SeamBroken } from "../../src/pi-seams/seam.js";
import { tempDir } from "../helpers/pier-cli.js";
import { seamFiles, seamOf } from "./all-seams.js";

const installed = installedPiRoots();
let dir: ReturnType<typeof tempDir>;

/**
 * A package copied to `<temp>/<label>/<name>` (its `dist` without source maps and its manifest); its own
 * node_modules and the rest of pier's dependencies are reached through links, so the copy loads as the original.
 */
function copyPackage(root: string, label: string): string {
	const target = join(dir.path, label, basename(root));
	mkdirSync(target, { recursive: true });
	cpSync(join(root, "package.json"), join(target, "package.json"));
	cpSync(join(root, "dist"), join(target, "dist"), { recursive: true, filter: (path) => !path.endsWith(".map") });
	if (existsSync(join(root, "node_modules")))
		symlinkSync(realpathSync(join(root, "node_modules")), join(target, "node_modules"));
	return target;
}

function rewrite(root: string, path: string, from: RegExp, to: string): void {
	const file = join(root, path);
	const text = readFileSync(file, "utf8");
	const next = text.replace(from, to);
	assert.notEqual(next, text, `${path} had ${from} to break`);
	writeFileSync(file, next);
}

interface Breakage {
	file: string;
	member: string;
	/** The pi with the member renamed; `othersHold`: the rest of that pi still loads. */
	pi(): PiRoots;
	othersHold: boolean;
}

const breakages: Breakage[] = [
	{
		file: "src/pi-seams/output-guard.ts",
		member: "takeOverStdout",
		// pi's own modules import it, so pi's entry no longer loads: only this seam's check is run.
		othersHold: false,
		pi() {
			const codingAgent = copyPackage(installed.codingAgent, "output-guard");
			rewrite(
				codingAgent,
				"dist/core/output-guard.js",
				/export function takeOverStdout\(/,
				"export function takeOverStdoutNow(",
			);
			return { ...installed, codingAgent };
		},
	},
	{
		file: "src/pi-seams/package-manager.ts",
		member: "resolveExtensionSources",
		othersHold: true,
		pi() {
			const codingAgent = copyPackage(installed.codingAgent, "package-manager");
			rewrite(
				codingAgent,
				"dist/core/package-manager.js",
				/\n(\s+)async resolveExtensionSources\(/,
				"\n$1async resolveSourceList(",
			);
			return { ...installed, codingAgent };
		},
	},
	{
		file: "src/pi-seams/builtin-extensions.ts",
		member: "builtInExtensions",
		// pi's main imports the list, so pi's entry no longer loads: only this seam's check is run.
		othersHold: false,
		pi() {
			const codingAgent = copyPackage(installed.codingAgent, "builtin-extensions");
			rewrite(
				codingAgent,
				"dist/extensions/index.js",
				/export const builtInExtensions =/,
				"export const builtinExtensionList =",
			);
			return { ...installed, codingAgent };
		},
	},
	{
		file: "src/pi-seams/mcp-extension.ts",
		member: "createDefaultTransport",
		othersHold: true,
		pi() {
			const codingAgent = copyPackage(installed.codingAgent, "mcp-extension");
			rewrite(
				codingAgent,
				"dist/extensions/mcp/runtime.js",
				/export function createDefaultTransport\(/,
				"export function createTransportFor(",
			);
			return { ...installed, codingAgent };
		},
	},
	{
		file: "src/pi-seams/mcp-manager.ts",
		member: "McpManagerView.prototype.menu",
		othersHold: true,
		pi() {
			const codingAgent = copyPackage(installed.codingAgent, "mcp-manager");
			rewrite(
				codingAgent,
				"dist/extensions/mcp/ui.js",
				/\n(\s+)menu\(build, subscribe\) \{/,
				"\n$1showMenu(build, subscribe) {",
			);
			return { ...installed, codingAgent };
		},
	},
	{
		file: "src/pi-seams/mcp-signin.ts",
		member: "McpServerConnection.oauthSettings",
		othersHold: true,
		pi() {
			const codingAgent = copyPackage(installed.codingAgent, "mcp-signin");
			rewrite(codingAgent, "dist/extensions/mcp/runtime.js", /\n(\s+)oauthSettings\(\) \{/, "\n$1oauthConfig() {");
			return { ...installed, codingAgent };
		},
	},
	{
		file: "src/pi-seams/renderer-owners.ts",
		member: "extensions",
		othersHold: true,
		pi() {
			const codingAgent = copyPackage(installed.codingAgent, "renderer-owners");
			rewrite(codingAgent, "dist/core/extensions/runner.js", /\bthis\.extensions\b/g, "this.loaded");
			return { ...installed, codingAgent };
		},
	},
	{
		file: "src/pi-seams/input-cursor.ts",
		member: "cursor",
		othersHold: true,
		pi() {
			const tui = copyPackage(installed.tui, "input-cursor");
			rewrite(tui, "dist/components/input.js", /\bthis\.cursor\b/g, "this.caret");
			rewrite(tui, "dist/components/input.js", /^(\s+)cursor = 0;/m, "$1caret = 0;");
			return { ...installed, tui };
		},
	},
];

before(() => {
	dir = tempDir("pier-seams-copy-");
	// Bare imports from the copies (pi-ai, chalk, …) resolve to the installed packages.
	symlinkSync(realpathSync(join(installed.codingAgent, "..", "..")), join(dir.path, "node_modules"));
});

after(() => dir[Symbol.dispose]());

for (const broken of breakages) {
	test(`${broken.file} fails, naming its seam, on a pi without ${broken.member}`, async () => {
		const pi = broken.pi();
		const seam = await seamOf(broken.file);
		await assert.rejects(seam.check(pi), (error: unknown) => {
			assert.ok(error instanceof SeamBroken, `a SeamBroken, not ${error}`);
			assert.match(error.message, new RegExp(`pi seam "${seam.name}"`));
			assert.ok(error.message.includes(broken.file), `names ${broken.file}: ${error.message}`);
			assert.ok(error.message.includes(broken.member), `names ${broken.member}: ${error.message}`);
			if (broken.othersHold) assert.doesNotMatch(error.message, /does not load/);
			return true;
		});
		if (!broken.othersHold) return;
		for (const file of seamFiles().filter((f) => f !== broken.file)) await (await seamOf(file)).check(pi);
	});
}

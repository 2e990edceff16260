/**
 * The inspection of a source before install, for a local directory and a git repository (file://): the kinds and
 * how each runs, a manifest that does not load, the install scripts that will be skipped, the trust decision of a
 * project install; nothing of the package runs (a git package's prepare and postinstall leave no mark).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { inspectSource } from "../../src/extensions/catalog/inspect.js";
import { mark, marks } from "../helpers/npm-registry.js";
import { tempDir } from "../helpers/pier-cli.js";

function writeTree(root: string, files: Record<string, string>): void {
	for (const [path, text] of Object.entries(files)) {
		mkdirSync(dirname(join(root, path)), { recursive: true });
		writeFileSync(join(root, path), text);
		// A process extension's executable is a program.
		if (path.endsWith("main.mjs")) chmodSync(join(root, path), 0o755);
	}
}

describe("inspecting a source", () => {
	const dir = tempDir("pier-catalog-inspect-");
	const agentDir = join(dir.path, "agent");
	const pkg = join(dir.path, "pkg");
	const repo = join(dir.path, "repo");
	const marker = join(dir.path, "marker");

	before(() => {
		mkdirSync(agentDir, { recursive: true });
		const files = {
			"package.json": JSON.stringify({
				name: "pi-mixed",
				version: "0.1.0",
				description: "All kinds",
				scripts: { postinstall: mark(marker, "postinstall"), prepare: mark(marker, "prepare") },
				pi: { extensions: ["./ts"] },
			}),
			"ts/hello.ts": "export default function () {}\n",
			"extensions/proc/pi-extension.json": JSON.stringify({
				schemaVersion: 1,
				id: "proc-ext",
				executable: "./main.mjs",
				capabilities: ["tools", "ui"],
				uiCapabilities: ["notify"],
			}),
			"extensions/proc/main.mjs": `#!${process.execPath}\nprocess.exit(0)\n`,
			"extensions/broken/pi-extension.json": "{ not json",
		};
		writeTree(pkg, files);
		writeTree(repo, files);
		const git = (...args: string[]) =>
			execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: repo, stdio: "ignore" });
		git("init", "-q", "-b", "main");
		git("add", "-A");
		git("commit", "-q", "-m", "one");
	});

	after(() => dir[Symbol.dispose]());

	const check = (found: Awaited<ReturnType<typeof inspectSource>>) => {
		const byId = new Map(found.extensions.map((e) => [e.id, e]));
		assert.equal(byId.get("proc-ext")?.kind, "process");
		assert.equal(byId.get("proc-ext")?.runsAs, "process");
		assert.deepEqual(byId.get("proc-ext")?.capabilities, ["tools", "ui"]);
		assert.deepEqual(byId.get("proc-ext")?.uiCapabilities, ["notify"]);
		assert.equal(byId.get("proc-ext")?.grants.grantable, false);
		assert.equal(byId.get("hello")?.kind, "typescript");
		assert.equal(byId.get("hello")?.runsAs, "pi");
		assert.match(byId.get("broken")?.problem ?? "", /pi-extension\.json/);
		assert.deepEqual(found.scripts, [{ name: "pi-mixed", scripts: ["postinstall", "prepare"] }]);
		assert.equal(found.name, "pi-mixed");
		assert.deepEqual(marks(marker), [], "a script ran");
	};

	test("a local directory", async () => {
		const found = await inspectSource({ source: pkg, scope: "user", cwd: dir.path, agentDir });
		assert.equal(found.kind, "local");
		check(found);
	});

	test("a git repository, cloned into a temporary directory that is gone afterwards", async () => {
		const found = await inspectSource({ source: `file://${repo}`, scope: "user", cwd: dir.path, agentDir });
		assert.equal(found.kind, "git");
		assert.equal(found.identity, `git:file/${repo.replace(/^\//, "")}`);
		check(found);
		assert.ok(!existsSync(join(agentDir, "git")), "the inspection left a checkout in the agent directory");
	});

	test("a project install into an untrusted project says so", async () => {
		const project = join(dir.path, "untrusted");
		writeTree(project, { ".pi/extensions/x/index.ts": "export default () => {};\n" });
		const found = await inspectSource({ source: pkg, scope: "project", cwd: project, agentDir });
		assert.equal(found.trust.trusted, false);
		assert.match(found.trust.summary, /is not trusted: pier does not install or load its packages/);
	});
});

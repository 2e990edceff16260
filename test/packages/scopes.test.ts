/**
 * Scopes and isolation: a project package overrides the global one of the same identity; a broken package
 * sits next to a good one without taking it down; an untrusted project's package installs and runs nothing,
 * until the project (or an ancestor of it) is trusted.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { activeTools, type Files, makeRepo, quickjsExtension, sandbox, writeSettings } from "./helpers.js";

/** A TS extension and a process extension that each leave a marker file as soon as they are loaded or started. */
function markingExtensions(markerDir: string): Files {
	return {
		"extensions/mark.ts": `import { writeFileSync } from "node:fs";
export default function (pi: any) {
	writeFileSync(${JSON.stringify(join(markerDir, "TS-LOADED"))}, "ts");
	pi.registerTool({ name: "mark_ts", label: "m", description: "m", parameters: { type: "object", properties: {} },
		execute: async () => ({ content: [{ type: "text", text: "ts" }] }) });
}
`,
		"extensions/proc/pi-extension.json": JSON.stringify({
			schemaVersion: 1,
			id: "mark-proc",
			executable: "./main.mjs",
			capabilities: ["tools"],
		}),
		"extensions/proc/main.mjs": {
			mode: 0o755,
			text: `#!${process.execPath}\nimport { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(join(markerDir, "PROC-STARTED"))}, "proc");\nprocess.exit(1);\n`,
		},
		// A QuickJS extension can write no marker: the tool it registers is its side effect.
		...quickjsExtension("qjs", "mark-qjs", "mark_qjs", "qjs"),
	};
}

describe("package scopes", () => {
	test("a project package overrides the global one of the same identity", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "shared");
		repo.commit(quickjsExtension("s", "shared", "shared_v1", "v1"), "v1");
		repo.commit(quickjsExtension("s", "shared", "shared_v2", "v2"), "v2");
		const project = join(box.root, "project");
		mkdirSync(project);
		writeSettings(box.agent, { packages: [`${repo.url}@v1`] });
		assert.equal((await box.pier(["trust", project])).code, 0);
		const local = await box.pier(["install", "-l", `${repo.url}@v2`], { cwd: project });
		assert.equal(local.code, 0, local.stderr);
		assert.deepEqual(JSON.parse(readFileSync(join(project, ".pi", "settings.json"), "utf8")).packages, [
			`${repo.url}@v2`,
		]);

		const run = await activeTools(box, project);
		assert.ok(run.tools.includes("shared_v2"), `${run.tools}\n${run.stderr}`);
		assert.ok(!run.tools.includes("shared_v1"), "the global entry of the same package must not load too");
		assert.ok(existsSync(join(project, ".pi", "git", "file", repo.bare.replace(/\.git$/, ""))), "project checkout");

		const listed = JSON.parse((await box.pier(["list", "--json"], { cwd: project })).stdout) as {
			packages: Array<{ scope: string; state: string; reason?: string }>;
		};
		assert.deepEqual(
			listed.packages.map((p) => `${p.scope}:${p.state}`),
			["project:installed", "user:overridden"],
		);
	});

	test("a broken package next to a good one: the good one loads, pier list shows the failure", async () => {
		using box = sandbox();
		const good = makeRepo(box, "good");
		good.commit(quickjsExtension("g", "good", "good_tool", "good"), "v1");
		const invalid = makeRepo(box, "invalid");
		invalid.commit({ "extensions/bad/pi-extension.json": '{"schemaVersion":1,"id":"bad","runtime":"quickjs"}' }, "v1");
		const missing = `file://${join(box.root, "remotes", "nowhere.git")}`;
		const badRef = `${good.url}@a..b`;
		writeSettings(box.agent, { packages: [missing, `${invalid.url}@v1`, badRef, `${good.url}@v1`] });

		const run = await activeTools(box);
		assert.equal(run.code, 0, run.stderr);
		assert.ok(run.tools.includes("good_tool"), `${run.tools}\n${run.stderr}`);
		assert.match(run.stderr, /package file:\/\/.*nowhere\.git \(user\) failed: git clone failed/);
		assert.match(
			run.stderr,
			/package git:file\/.*\/invalid: .*pi-extension\.json: entry: a QuickJS extension requires entry/,
		);
		assert.match(run.stderr, /package .*good\.git@a\.\.b \(user\) failed: ref "a\.\.b" must not contain/);

		const listed = await box.pier(["list", "--json"]);
		const model = JSON.parse(listed.stdout) as {
			packages: Array<{ source: string; state: string; reason?: string }>;
			extensions: Array<{ id: string; state: string; reason?: string }>;
		};
		// pier list installs nothing, so a clone that would fail is "missing"; what it can see fail, it shows.
		assert.deepEqual(
			model.packages.map((p) => p.state),
			["missing", "installed", "failed", "installed"],
		);
		assert.match(model.packages[2]!.reason!, /ref "a\.\.b" must not contain/);
		const bad = model.extensions.find((e) => e.id === "bad");
		assert.equal(bad?.state, "invalid");
		assert.match(bad?.reason ?? "", /requires entry/);
		assert.equal(model.extensions.find((e) => e.id === "good")?.state, "enabled");
		const text = await box.pier(["list"]);
		assert.match(text.stdout, /good\.git@a\.\.b {2}failed\n +ref "a\.\.b"/);
	});

	test("an untrusted project's package is neither installed nor loaded; trusting an ancestor lets it load", async () => {
		using box = sandbox();
		const markers = join(box.root, "markers");
		mkdirSync(markers);
		const repo = makeRepo(box, "marking");
		repo.commit(markingExtensions(markers), "v1");
		const parent = join(box.root, "work");
		const project = join(parent, "project");
		mkdirSync(project, { recursive: true });
		writeSettings(join(project, ".pi"), { packages: [`${repo.url}@v1`] });

		const run = await activeTools(box, project);
		assert.equal(run.code, 0, run.stderr);
		assert.match(run.stderr, /is not trusted/);
		assert.ok(!run.tools.includes("mark_ts"));
		assert.ok(!run.tools.includes("mark_qjs"), "the untrusted project's QuickJS extension registered its tool");
		assert.equal(existsSync(join(markers, "TS-LOADED")), false, "pi loaded the untrusted project's TS extension");
		assert.equal(existsSync(join(markers, "PROC-STARTED")), false, "the untrusted project's process started");
		assert.equal(existsSync(join(project, ".pi", "git")), false, "something was cloned into the untrusted .pi/");

		const listed = JSON.parse((await box.pier(["list", "--json"], { cwd: project })).stdout) as {
			trust: { trusted: boolean; source: string };
			packages: Array<{ state: string }>;
		};
		assert.deepEqual([listed.trust.trusted, listed.trust.source], [false, "undecided"]);
		assert.deepEqual(
			listed.packages.map((p) => p.state),
			["untrusted"],
		);
		const refused = await box.pier(["install", "-l", repo.url], { cwd: project });
		assert.equal(refused.code, 2);
		assert.match(refused.stderr, /is not trusted; refusing to change its packages/);

		assert.equal((await box.pier(["trust", parent])).code, 0);
		const trusted = await activeTools(box, project);
		assert.ok(trusted.tools.includes("mark_ts"), `${trusted.tools}\n${trusted.stderr}`);
		assert.ok(trusted.tools.includes("mark_qjs"), `${trusted.tools}\n${trusted.stderr}`);
		assert.ok(existsSync(join(markers, "TS-LOADED")));
		assert.ok(existsSync(join(markers, "PROC-STARTED")));
		const inherited = JSON.parse((await box.pier(["list", "--json"], { cwd: project })).stdout) as {
			trust: { trusted: boolean; matchedPath?: string };
		};
		assert.equal(inherited.trust.matchedPath, parent);
	});
});

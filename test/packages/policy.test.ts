/**
 * The extension policy (global settings.json `extensionPolicy`) against the real `pier` bin: an install refused
 * (npm-style and local sources), a package installed before the policy changed refused at load (its process and
 * QuickJS extensions, its TypeScript one), extensions of the user's own directory refused by path and id, `pier
 * list`'s standings, a project's attempt to set the policy ignored, and each refusal in the audit trail.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { readAudit } from "../../src/audit/audit-log.js";
import {
	activeTools,
	type Files,
	makeRepo,
	processExtension,
	quickjsExtension,
	type Sandbox,
	sandbox,
	tsExtension,
	writeSettings,
} from "./helpers.js";

function setPolicy(box: Sandbox, policy: unknown): void {
	const file = join(box.agent, "settings.json");
	const settings = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
	writeSettings(box.agent, { ...settings, extensionPolicy: policy });
}

function writeFiles(dir: string, files: Files): void {
	for (const [path, content] of Object.entries(files)) {
		const file = join(dir, path);
		mkdirSync(join(file, ".."), { recursive: true });
		if (typeof content === "string") writeFileSync(file, content);
		else if ("text" in content) writeFileSync(file, content.text, { mode: content.mode });
	}
}

const policyRefusals = (box: Sandbox) => readAudit({ kind: "policy" }, join(box.agent, "pier-audit.jsonl"));

describe("the extension policy at install", () => {
	test("an npm-style source matching a block pattern is refused before anything is fetched, naming it", async () => {
		using box = sandbox();
		const settingsFile = join(box.agent, "settings.json");
		setPolicy(box, { block: ["npm:@evil/*"] });
		const refused = await box.pier(["install", "npm:@evil/tool@1.0.0", "--allow-scripts", "@evil/tool"]);
		assert.equal(refused.code, 1, refused.stderr);
		assert.match(refused.stderr, /not installing npm:@evil\/tool@1\.0\.0: blocked by the extension policy in /);
		assert.ok(refused.stderr.includes(settingsFile), refused.stderr);
		assert.match(refused.stderr, /extensionPolicy\.block pattern "npm:@evil\/\*"/);
		// Nothing was written: not the package, not the script allowance.
		const settings = JSON.parse(readFileSync(settingsFile, "utf8")) as Record<string, unknown>;
		assert.deepEqual(Object.keys(settings), ["extensionPolicy"]);
		assert.equal(existsSync(join(box.agent, "npm")), false);
		const audit = policyRefusals(box);
		assert.equal(audit.length, 1);
		assert.deepEqual(
			{ ...audit[0], time: undefined, detail: undefined },
			{
				kind: "policy",
				decision: "refused",
				subject: "npm:@evil/tool",
				rule: "npm:@evil/*",
				source: settingsFile,
				time: undefined,
				detail: undefined,
			},
		);
		assert.match(audit[0]!.detail ?? "", /^install: blocked by/);
	});

	test("a local directory under a blocked path is refused; its sibling with the same prefix installs", async () => {
		using box = sandbox();
		const blocked = join(box.root, "vendor");
		writeFiles(join(blocked, "pkg"), tsExtension("v", "v_tool", "v"));
		writeFiles(join(box.root, "vendor2"), tsExtension("w", "w_tool", "w"));
		setPolicy(box, { block: [blocked] });
		const refused = await box.pier(["install", join(blocked, "pkg")]);
		assert.equal(refused.code, 1);
		assert.match(refused.stderr, new RegExp(`extensionPolicy\\.block pattern "${blocked}"`));
		const sibling = await box.pier(["install", join(box.root, "vendor2")]);
		assert.equal(sibling.code, 0, sibling.stderr);
		assert.equal(policyRefusals(box).length, 1);
		assert.equal(policyRefusals(box)[0]!.subject, `local:${join(blocked, "pkg")}`);
	});

	test("with an allow list, what it does not name is refused; what it names installs", async () => {
		using box = sandbox();
		writeFiles(join(box.root, "mine"), tsExtension("m", "m_tool", "m"));
		writeFiles(join(box.root, "theirs"), tsExtension("t", "t_tool", "t"));
		setPolicy(box, { allow: ["npm:@acme/*", join(box.root, "mine")] });
		const refused = await box.pier(["install", join(box.root, "theirs")]);
		assert.equal(refused.code, 1);
		assert.match(
			refused.stderr,
			/not allowed by the extension policy in .*: no extensionPolicy\.allow pattern matches/,
		);
		const npm = await box.pier(["install", "npm:other-tool"]);
		assert.equal(npm.code, 1);
		assert.match(npm.stderr, /not installing npm:other-tool: not allowed/);
		assert.equal((await box.pier(["install", join(box.root, "mine")])).code, 0);
		assert.deepEqual(
			policyRefusals(box).map((e) => e.rule),
			["extensionPolicy.allow", "extensionPolicy.allow"],
		);
	});

	test("a malformed policy refuses every install and every load, naming the file and the field", async () => {
		using box = sandbox();
		writeFiles(join(box.root, "mine"), tsExtension("m", "m_tool", "m"));
		setPolicy(box, { block: ["mine"] });
		const refused = await box.pier(["install", join(box.root, "mine")]);
		assert.equal(refused.code, 1);
		assert.match(refused.stderr, /is malformed, .*extensionPolicy\.block\[0\]: "mine" is a bare word/);
		// And at load: the user's own extensions stay out until the file is fixed.
		writeFiles(box.agent, quickjsExtension("qjs", "user-qjs", "user_qjs", "q"));
		const run = await activeTools(box);
		assert.ok(!run.tools.includes("user_qjs"), `${run.tools}`);
		assert.match(run.stderr, /extension user-qjs .* not loaded: the extension policy in .* is malformed/);
		setPolicy(box, { block: ["id:mine"] });
		assert.ok((await activeTools(box)).tools.includes("user_qjs"));
	});
});

describe("the extension policy at load", () => {
	test("a package installed before the policy changed: its extensions are refused by id, then all by source", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "kit");
		repo.commit(
			{
				...tsExtension("alpha", "alpha_ts", "alpha"),
				...quickjsExtension("beta", "beta-qjs", "beta_qjs", "beta"),
				...processExtension("gamma", "gamma-proc", "gamma_proc", "gamma"),
			},
			"v1",
		);
		assert.equal((await box.pier(["install", `${repo.url}@v1`])).code, 0);
		const before = await activeTools(box);
		for (const tool of ["alpha_ts", "beta_qjs", "gamma_proc"]) assert.ok(before.tools.includes(tool), before.stderr);

		setPolicy(box, { block: ["id:beta-qjs", "id:gamma-*"] });
		const byId = await activeTools(box);
		assert.ok(byId.tools.includes("alpha_ts"), `${byId.tools}\n${byId.stderr}`);
		assert.ok(!byId.tools.includes("beta_qjs") && !byId.tools.includes("gamma_proc"), `${byId.tools}`);
		assert.match(
			byId.stderr,
			/extension beta-qjs .* not loaded: blocked .*extensionPolicy\.block pattern "id:beta-qjs"/,
		);
		assert.match(byId.stderr, /extension gamma-proc .* not loaded: blocked .*pattern "id:gamma-\*"/);

		const identity = `git:file${repo.bare.replace(/\.git$/, "")}`;
		setPolicy(box, { block: ["git:file/**/kit"] });
		const bySource = await activeTools(box);
		for (const tool of ["alpha_ts", "beta_qjs", "gamma_proc"])
			assert.ok(!bySource.tools.includes(tool), `${tool} loaded: ${bySource.tools}`);
		assert.match(
			bySource.stderr,
			/package .*kit.* not loaded: blocked by the extension policy in .*"git:file\/\*\*\/kit"/,
		);

		const listed = await box.pier(["list"]);
		assert.match(listed.stdout, /extension policy: .*settings\.json/);
		assert.match(
			listed.stdout,
			/blocked\n.*blocked by the extension policy.*\n\s+policy: blocked by git:file\/\*\*\/kit/,
		);
		const json = JSON.parse((await box.pier(["list", "--json"])).stdout) as {
			packages: Array<{ identity: string; state: string; standing: unknown }>;
		};
		assert.deepEqual(
			json.packages.map((p) => [p.identity, p.state, p.standing]),
			[[identity, "blocked", { standing: "blocked", pattern: "git:file/**/kit" }]],
		);

		// Each session's refusals are in the audit trail, naming the pattern and the file.
		const rules = policyRefusals(box).map((e) => `${e.rule} ${e.subject} ${e.extension ?? ""}`.trim());
		assert.ok(rules.includes(`id:beta-qjs ${identity} beta-qjs`), rules.join("\n"));
		assert.ok(rules.includes(`id:gamma-* ${identity} gamma-proc`), rules.join("\n"));
		assert.ok(rules.includes(`git:file/**/kit ${identity}`), rules.join("\n"));
		assert.ok(policyRefusals(box).every((e) => e.source === join(box.agent, "settings.json")));
	});

	test("an allow list naming a package's source loads all its kinds, and nothing it does not name", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "team");
		repo.commit({ ...tsExtension("t1", "team_ts", "t"), ...quickjsExtension("q1", "team-qjs", "team_qjs", "q") }, "v1");
		writeFiles(box.agent, tsExtension("stray", "stray_ts", "s"));
		setPolicy(box, { allow: ["git:file/**/team"] });
		assert.equal((await box.pier(["install", `${repo.url}@v1`])).code, 0);
		// A package configured by hand (or before the policy): not allowed, so not loaded.
		const other = join(box.root, "other");
		writeFiles(other, tsExtension("o", "other_ts", "o"));
		const settings = JSON.parse(readFileSync(join(box.agent, "settings.json"), "utf8")) as { packages: unknown[] };
		writeSettings(box.agent, { ...settings, packages: [...settings.packages, other] });
		const run = await activeTools(box);
		assert.ok(run.tools.includes("team_ts") && run.tools.includes("team_qjs"), `${run.tools}\n${run.stderr}`);
		assert.ok(!run.tools.includes("stray_ts") && !run.tools.includes("other_ts"), `${run.tools}`);
		const listed = await box.pier(["list"]);
		assert.match(listed.stdout, /policy: allowed by git:file\/\*\*\/team/);
		assert.match(listed.stdout, /other {2}blocked\n.*\n\s+policy: not allowed by the allow list/);
		assert.match(listed.stdout, /blocked\s+stray \[typescript\]/);
	});

	test("the user's own extensions: a process one by path, a QuickJS one and a TypeScript one by id", async () => {
		using box = sandbox();
		const dir = join(box.agent);
		writeFiles(dir, {
			...processExtension("proc", "user-proc", "user_proc", "p"),
			...quickjsExtension("qjs", "user-qjs", "user_qjs", "q"),
			...tsExtension("plain", "plain_ts", "t"),
		});
		const before = await activeTools(box);
		for (const tool of ["user_proc", "user_qjs", "plain_ts"]) assert.ok(before.tools.includes(tool), before.stderr);

		setPolicy(box, { block: [join(box.agent, "extensions", "proc"), "id:user-qjs", "id:plain"] });
		const after = await activeTools(box);
		// A refusal is said, not fatal: the run goes on with what is allowed.
		assert.equal(after.code, 0, after.stderr);
		assert.deepEqual(
			after.tools.filter((t) => ["user_proc", "user_qjs", "plain_ts"].includes(t)),
			[],
			after.stderr,
		);
		assert.match(after.stderr, /extension user-proc .* not loaded: .*pattern ".*\/extensions\/proc"/);
		assert.match(after.stderr, /extension user-qjs .* not loaded: .*pattern "id:user-qjs"/);
		assert.match(after.stderr, /will not load .*plain\.ts: blocked .*pattern "id:plain"/);

		// An allow list naming one of them refuses the others.
		setPolicy(box, { allow: ["id:user-qjs"] });
		const allowed = await activeTools(box);
		assert.ok(allowed.tools.includes("user_qjs"), allowed.stderr);
		assert.ok(!allowed.tools.includes("user_proc") && !allowed.tools.includes("plain_ts"), `${allowed.tools}`);
		assert.match(allowed.stderr, /extension user-proc .* not allowed by the extension policy/);

		const listed = JSON.parse((await box.pier(["list", "--json"])).stdout) as {
			extensions: Array<{ id: string; state: string; reason?: string }>;
		};
		const states = Object.fromEntries(listed.extensions.map((e) => [e.id, e.state]));
		assert.deepEqual(states, { "user-proc": "blocked", "user-qjs": "enabled", plain: "blocked" });
		const audit = policyRefusals(box);
		assert.ok(
			audit.some((e) => e.extension === "plain" && e.rule === "id:plain"),
			JSON.stringify(audit),
		);
		assert.ok(audit.some((e) => e.extension === "user-proc" && e.rule === "extensionPolicy.allow"));
	});

	test("a blocked directory reached through a symlink in the user's extensions is still blocked", async () => {
		using box = sandbox();
		const vendor = join(box.root, "vendor");
		writeFiles(vendor, quickjsExtension("linked", "linked-qjs", "linked_qjs", "l"));
		writeFiles(join(box.root, "vendor2"), quickjsExtension("near", "near-qjs", "near_qjs", "n"));
		mkdirSync(join(box.agent, "extensions"), { recursive: true });
		symlinkSync(join(vendor, "extensions", "linked"), join(box.agent, "extensions", "innocent"));
		symlinkSync(join(box.root, "vendor2", "extensions", "near"), join(box.agent, "extensions", "near"));
		setPolicy(box, { block: [vendor] });
		const run = await activeTools(box);
		assert.ok(!run.tools.includes("linked_qjs"), `${run.tools}`);
		assert.ok(run.tools.includes("near_qjs"), `${run.tools}\n${run.stderr}`);
		assert.match(run.stderr, /extension linked-qjs .*innocent\) not loaded: blocked .*pattern ".*vendor"/);
	});

	test("a project's settings cannot set the policy: ignored, and said so naming the file", async () => {
		using box = sandbox();
		writeFiles(box.agent, quickjsExtension("qjs", "user-qjs", "user_qjs", "q"));
		const project = join(box.root, "project");
		const projectFile = join(project, ".pi", "settings.json");
		mkdirSync(join(project, ".pi"), { recursive: true });
		writeFileSync(projectFile, JSON.stringify({ extensionPolicy: { block: ["id:*"] } }));
		// Trusted, so that its settings apply: the policy in them still does not.
		const run = await activeTools(box, project, ["--approve"]);
		assert.ok(run.tools.includes("user_qjs"), `${run.tools}\n${run.stderr}`);
		assert.ok(run.stderr.includes(`${projectFile}: extensionPolicy is ignored`), run.stderr);
		const listed = await box.pier(["list"], { cwd: project });
		assert.ok(listed.stdout.includes(`${projectFile}: extensionPolicy is ignored`), listed.stdout);
		assert.match(listed.stdout, /extension policy: none/);
		assert.deepEqual(policyRefusals(box), []);
	});
});

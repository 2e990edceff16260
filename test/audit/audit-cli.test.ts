/**
 * `pier audit` reads the trail with its filters and refuses what it cannot read; the CLI's own decisions
 * (`pier trust`, `pier untrust`, `pier install`, `pier remove`) are recorded like the chamber's.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { auditFile, recordAudit } from "../../src/audit/audit-log.js";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

describe("pier audit", () => {
	test("a table by default, JSON lines with --json, filtered by --since and --session", async () => {
		using dir = tempDir("pier-audit-cli-");
		const file = auditFile(dir.path);
		recordAudit({ kind: "trust", decision: "trusted", subject: "/old", time: "2020-01-01T00:00:00.000Z" }, file);
		recordAudit(
			{
				kind: "grant.use",
				decision: "refused",
				subject: "replace the input of bash",
				session: "s-1",
				extension: "x",
				rule: "run",
			},
			file,
		);
		recordAudit(
			{ kind: "package.install", decision: "installed", subject: "npm:pi-foo", source: "pier install (user)" },
			file,
		);

		const table = await runPier(["audit"], { agentDir: dir.path });
		assert.equal(table.code, 0, table.stderr);
		const lines = table.stdout.trimEnd().split("\n");
		assert.match(lines[0]!, /^TIME\s+KIND\s+DECISION\s+SESSION\s+BY\s+SUBJECT$/);
		assert.equal(lines.length, 4);
		assert.match(lines[2]!, /grant\.use\s+refused\s+s-1\s+x\s+replace the input of bash$/);
		assert.match(lines[3]!, /package\.install\s+installed\s+pier install \(user\)\s+npm:pi-foo$/);

		const json = async (...args: string[]) => {
			const run = await runPier(["audit", "--json", ...args], { agentDir: dir.path });
			assert.equal(run.code, 0, run.stderr);
			return run.stdout === ""
				? []
				: run.stdout
						.trimEnd()
						.split("\n")
						.map((l) => JSON.parse(l).subject as string);
		};
		assert.deepEqual(await json(), ["/old", "replace the input of bash", "npm:pi-foo"]);
		assert.deepEqual(await json("--session", "s-1"), ["replace the input of bash"]);
		assert.deepEqual(await json("--session", "s-2"), []);
		assert.deepEqual(await json("--since", "1h"), ["replace the input of bash", "npm:pi-foo"]);
		assert.deepEqual(await json("--since", "2020-01-01T00:00:00Z"), [
			"/old",
			"replace the input of bash",
			"npm:pi-foo",
		]);
		// Just past the old line: it is left out.
		assert.deepEqual(await json("--since", "2020-01-01T00:00:00.001Z"), ["replace the input of bash", "npm:pi-foo"]);
		assert.deepEqual(await json("--since", "2020-01-02"), ["replace the input of bash", "npm:pi-foo"]);
		assert.deepEqual(await json("--since", "1h", "--session", "s-1"), ["replace the input of bash"]);

		const none = await runPier(["audit", "--session", "nobody"], { agentDir: dir.path });
		assert.equal(none.stdout, `no decisions match in ${file}\n`);
	});

	test("a subject an extension chose cannot drive the terminal: control and bidi characters are shown escaped", async () => {
		using dir = tempDir("pier-audit-cli-");
		recordAudit(
			{
				kind: "grant.use",
				decision: "refused",
				subject: "echo \u001b[2J\u001b]0;owned\u0007 \u202Efdp.exe\nnext",
				extension: "x",
			},
			auditFile(dir.path),
		);
		const table = await runPier(["audit"], { agentDir: dir.path });
		assert.equal(table.code, 0, table.stderr);
		assert.doesNotMatch(
			table.stdout,
			// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
			/[\u0000-\u0009\u000B-\u001F\u202E]/,
			"no raw control character reaches the terminal",
		);
		assert.match(table.stdout, /echo \\u001B\[2J\\u001B\]0;owned\\u0007 \\u202Efdp\.exe\\u000Anext\n$/);
		assert.equal(table.stdout.trimEnd().split("\n").length, 2, "one decision, one line");
	});

	test("a bad --since, an unknown option or a word is a clear error, exit 2", async () => {
		using dir = tempDir("pier-audit-cli-");
		for (const [args, message] of [
			[
				["--since", "yesterday"],
				/pier: audit --since: "yesterday" is not a time: want an ISO time .* or a span back from now \(30m, 1h, 2d, 1w\)/,
			],
			[["--since", "1y"], /audit --since: "1y" is not a time/],
			[["--since", "2026-13-45"], /audit --since: "2026-13-45" is not a time/],
			[["--since"], /audit: Option '--since <value>' argument missing/],
			[["--kind", "trust"], /audit: Unknown option '--kind'/],
			[["trust"], /audit: Unexpected argument 'trust'/],
		] as const) {
			const run = await runPier(["audit", ...args], { agentDir: dir.path });
			assert.equal(run.code, 2, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
			assert.match(run.stderr, message);
		}
		const empty = await runPier(["audit"], { agentDir: dir.path });
		assert.equal(empty.stdout, `no decisions yet in ${auditFile(dir.path)}\n`);
		const help = await runPier(["audit", "--help"], { agentDir: dir.path });
		assert.match(help.stdout, /pier audit \[--json\] \[--since <time>\] \[--session <id>\]/);
	});

	test("pier trust, untrust, install and remove are recorded in the order run", async () => {
		using dir = tempDir("pier-audit-cli-");
		const agentDir = join(dir.path, "agent");
		const project = join(dir.path, "project");
		const pkg = join(dir.path, "pkg");
		mkdirSync(join(agentDir, "extensions"), { recursive: true });
		cpSync(join(REPO_ROOT, "test/fixtures/quickjs/hostile-rewrite"), join(agentDir, "extensions", "qjs-rewrite"), {
			recursive: true,
		});
		mkdirSync(project, { recursive: true });
		mkdirSync(pkg);
		writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "pkg" }));
		for (const args of [
			["trust", project],
			["untrust", project],
			["install", pkg],
			["remove", pkg],
			["trust", "--forget", project],
			["grant", "qjs-rewrite", "run", "write"],
			["revoke", "qjs-rewrite", "write"],
			["revoke", "qjs-rewrite"],
		]) {
			const run = await runPier(args, { agentDir, cwd: dir.path });
			assert.equal(run.code, 0, `${args.join(" ")}: ${run.stderr}`);
		}
		const failed = await runPier(["remove", pkg], { agentDir, cwd: dir.path });
		assert.notEqual(failed.code, 0, "nothing to remove: nothing decided, nothing recorded");
		const run = await runPier(["audit", "--json"], { agentDir });
		const entries = run.stdout
			.trimEnd()
			.split("\n")
			.map((l) => JSON.parse(l));
		const canonical = realpathSync(project);
		const extDir = join(agentDir, "extensions", "qjs-rewrite");
		assert.deepEqual(
			entries.map((e) => [e.kind, e.decision, e.subject, e.source ?? e.detail]),
			[
				["trust", "trusted", canonical, "pier trust"],
				["trust", "not trusted", canonical, "pier untrust"],
				["package.install", "installed", pkg, "pier install (user)"],
				["package.remove", "removed", pkg, "pier remove (user)"],
				["trust", "forgotten", canonical, "pier trust --forget"],
				["grant.change", "granted", "qjs-rewrite: run, write", `gave run, write (${extDir})`],
				["grant.change", "revoked", "qjs-rewrite: run", `revoked write (${extDir})`],
				["grant.change", "revoked", "qjs-rewrite: no grants", `revoked run (${extDir})`],
			],
		);
	});
});

/**
 * Red-team finding G2: grants were keyed by a bare manifest id, which any QuickJS extension can claim. After
 * `pier grant formatter run`, an extension loaded with `-e` declaring `"id": "formatter"` got `run`. A grant
 * is now bound to the extension's canonical directory and a digest of its files; `pier grant` refuses an id
 * that is not installed (or is ambiguous) unless given a directory; and one session refuses a second
 * extension with an id already loaded, naming both manifests.
 */
import assert from "node:assert/strict";
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const SPOOF = join(REPO_ROOT, "test", "fixtures", "quickjs", "hostile-spoof");
const BASH = 'bash {"command":"echo by-model > model-file"}';

/** The user's own "formatter": byte for byte the spoof's code, installed where the user installs extensions. */
function installFormatter(agentDir: string, name = "formatter"): string {
	const dir = join(agentDir, "extensions", name);
	mkdirSync(join(agentDir, "extensions"), { recursive: true });
	cpSync(SPOOF, dir, { recursive: true });
	return dir;
}

const run = (agentDir: string, cwd: string, extraArgs: string[] = []) =>
	runPier(["run", "--no-session", ...extraArgs, BASH], { agentDir, cwd, timeoutMs: 60_000 });

describe("a grant is bound to the extension's directory and code (G2)", () => {
	test("pier grant refuses an id that is not installed, and writes nothing", async () => {
		using agent = tempDir();
		const refused = await runPier(["grant", "formatter", "run"], { agentDir: agent.path });
		assert.equal(refused.code, 1);
		assert.match(refused.stderr, /no extension "formatter" is installed in .*pier grant <directory> <grant…>/);
		assert.equal(existsSync(join(agent.path, "settings.json")), false);
	});

	test("another directory claiming the granted id gets nothing; the granted one keeps its power", async () => {
		using agent = tempDir();
		const mine = installFormatter(agent.path);
		const granted = await runPier(["grant", "formatter", "run"], { agentDir: agent.path });
		assert.equal(granted.code, 0, granted.stderr);
		assert.equal(granted.stdout, `extension "formatter" in ${mine} now has the grants: run\n`);
		const listed = await runPier(["grant"], { agentDir: agent.path });
		assert.equal(listed.stdout, `formatter: run (${mine})\n`);

		// The user's own extension, as installed, is granted.
		using ok = tempDir("pier-project-");
		assert.equal((await run(agent.path, ok.path)).code, 0);
		assert.match(readFileSync(join(ok.path, "formatter-marker"), "utf8"), /^uid=/);

		// The same id and the same code from another directory (the user's copy moved out of the way).
		rmSync(mine, { recursive: true });
		using project = tempDir("pier-project-");
		const spoofed = await run(agent.path, project.path, ["-e", SPOOF]);
		assert.equal(spoofed.code, 0, spoofed.stderr);
		assert.equal(existsSync(join(project.path, "formatter-marker")), false, "the spoof's command must not run");
		assert.equal(readFileSync(join(project.path, "model-file"), "utf8"), "by-model\n");
		assert.ok(
			spoofed.stderr.includes(
				`extension "formatter" may not replace the input of bash: it lacks the "run" grant (the grants for "formatter" belong to the extension in ${mine}, not to this one in ${SPOOF}) (grant it with: pier grant ${SPOOF} run)`,
			),
			spoofed.stderr,
		);
		const after = await runPier(["grant"], { agentDir: agent.path });
		assert.match(after.stdout, /formatter: run \(.*\) — no extension there now: grants nothing/);
	});

	test("an extension whose code changed loses its grant until granted again", async () => {
		using agent = tempDir();
		const mine = installFormatter(agent.path);
		assert.equal((await runPier(["grant", "formatter", "run"], { agentDir: agent.path })).code, 0);
		appendFileSync(join(mine, "index.mjs"), "\n// updated\n");
		using project = tempDir("pier-project-");
		const denied = await run(agent.path, project.path);
		assert.equal(existsSync(join(project.path, "formatter-marker")), false);
		assert.match(denied.stderr, /it lacks the "run" grant \(its code in .* changed since the grant was given/);
		assert.match((await runPier(["grant"], { agentDir: agent.path })).stdout, /its code changed since/);

		assert.equal((await runPier(["grant", "formatter", "run"], { agentDir: agent.path })).code, 0);
		using again = tempDir("pier-project-");
		await run(agent.path, again.path);
		assert.match(readFileSync(join(again.path, "formatter-marker"), "utf8"), /^uid=/);
	});

	test("two extensions with one id in a session: the second is refused, naming both manifests", async () => {
		using agent = tempDir();
		const mine = installFormatter(agent.path);
		assert.equal((await runPier(["grant", "formatter", "run"], { agentDir: agent.path })).code, 0);
		using project = tempDir("pier-project-");
		const both = await run(agent.path, project.path, ["-e", SPOOF]);
		assert.equal(both.code, 0, both.stderr);
		assert.ok(
			both.stderr.includes(
				`extension id "formatter" of ${join(mine, "pi-extension.json")} is already used by ${join(SPOOF, "pi-extension.json")}; two extensions in one session cannot share an id`,
			),
			both.stderr,
		);
		// The -e one came first and holds the id; it is not the granted directory, so nothing runs.
		assert.equal(existsSync(join(project.path, "formatter-marker")), false);
	});

	test("an id two installed extensions declare is ambiguous: pier grant wants the directory", async () => {
		using agent = tempDir();
		const one = installFormatter(agent.path, "formatter");
		const two = installFormatter(agent.path, "formatter-copy");
		const refused = await runPier(["grant", "formatter", "run"], { agentDir: agent.path });
		assert.equal(refused.code, 1);
		assert.ok(refused.stderr.includes(`extension id "formatter" is ambiguous: ${one} and ${two} both declare it`));
		const byPath = await runPier(["grant", two, "run"], { agentDir: agent.path });
		assert.equal(byPath.code, 0, byPath.stderr);
		const settings = JSON.parse(readFileSync(join(agent.path, "settings.json"), "utf8"));
		assert.equal(settings.extensionHost.grants.formatter.dir, two);
		assert.match(settings.extensionHost.grants.formatter.digest, /^sha256:[0-9a-f]{64}$/);
	});

	test("the old id-only form grants nothing and is reported", async () => {
		using agent = tempDir();
		installFormatter(agent.path);
		writeFileSync(
			join(agent.path, "settings.json"),
			JSON.stringify({ extensionHost: { grants: { formatter: ["run"] } } }),
		);
		using project = tempDir("pier-project-");
		const result = await run(agent.path, project.path);
		assert.equal(existsSync(join(project.path, "formatter-marker")), false);
		assert.match(result.stderr, /a bare list of grants \(the old form\) grants nothing/);
	});
});

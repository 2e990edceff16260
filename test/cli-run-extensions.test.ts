import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { jsonLines, REPO_ROOT, runPier, tempDir } from "./helpers/pier-cli.js";

const WEATHER = join(REPO_ROOT, "examples", "extensions", "weather.ts");
const FIXTURES = join(REPO_ROOT, "test", "fixtures", "extensions");
const NODE_WEATHER = join(REPO_ROOT, "examples", "process", "node-weather");

function sessionFiles(agentDir: string): string[] {
	const root = join(agentDir, "sessions");
	return readdirSync(root, { recursive: true, encoding: "utf8" })
		.filter((f) => f.endsWith(".jsonl"))
		.map((f) => join(root, f));
}

describe("pier run loads what the session needs", () => {
	const REGISTER = join(REPO_ROOT, "test", "fixtures", "module-log", "register.mjs");
	const HOST_MACHINERY = [
		"src/extensions/host/instance.js",
		"src/extensions/bridge/factory.js",
		"src/extensions/bridge/trust-hooks.js",
		"src/extensions/bridge/provider-stream.js",
		"src/extensions/bridge/hook-results.js",
	];
	/** The modules a run read (pier's as paths under dist/, the others as URLs), and what it printed. */
	async function modulesRead(dir: string, args: string[]): Promise<{ read: string[]; stdout: string }> {
		const log = join(dir, "modules.log");
		const result = await runPier(["run", ...args], {
			agentDir: dir,
			env: { NODE_OPTIONS: `--import ${REGISTER}`, PIER_MODULE_LOG: log },
		});
		assert.equal(result.code, 0, result.stderr);
		const read = readFileSync(log, "utf8")
			.trim()
			.split("\n")
			.map((url) => url.replace(/^.*\/dist\//, ""));
		return { read, stdout: result.stdout };
	}

	test("without protocol extensions the host's instance machinery and the bridge's wiring, trust hooks and provider streams are never read", async () => {
		using dir = tempDir();
		const { read } = await modulesRead(dir.path, ["--no-session", "hello"]);
		assert.ok(read.includes("src/cli/run.js"), `the log holds the run's modules: ${read.join(", ")}`);
		for (const module of HOST_MACHINERY) assert.ok(!read.includes(module), `${module} was read`);
	});

	test("without protocol extensions or extensionHost settings, pier's own TypeBox (pi loads its own copy) is never read", async () => {
		using dir = tempDir();
		const typebox = import.meta.resolve("typebox").replace(/(\/node_modules\/typebox\/).*$/, "$1");
		const { read } = await modulesRead(dir.path, ["--no-session", "hello"]);
		assert.ok(read.includes("src/extensions/manifest.js"), `the log holds the manifest module: ${read.length} modules`);
		const typeboxRead = read.filter((url) => url.startsWith(typebox));
		assert.deepEqual(typeboxRead.slice(0, 3), [], `${typeboxRead.length} modules of ${typebox} were read`);
	});

	test("with a process extension both load, and its tool answers", async () => {
		using dir = tempDir();
		const { read, stdout } = await modulesRead(dir.path, [
			"--no-session",
			"-e",
			NODE_WEATHER,
			'weather {"city":"Oslo"}',
		]);
		for (const module of HOST_MACHINERY) assert.ok(read.includes(module), `${module} was not read`);
		assert.match(stdout, /the weather tool says: "Oslo: 10°C, light rain \(from a process extension\)"/);
	});
});

describe("pier run with extensions", () => {
	test("-e loads a TS extension whose tool the demo model calls; the answer quotes the result", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "-e", WEATHER, 'weather {"city":"Oslo"}'], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.equal(result.stdout.trim(), 'Done: the weather tool says: "Oslo: 10°C, light rain".');
	});

	test("--mode json prints every event, including tool_execution_start/end", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "--mode", "json", "-e", WEATHER, 'weather {"city":"Oslo"}'], {
			agentDir: dir.path,
		});
		assert.equal(result.code, 0, result.stderr);
		const events = jsonLines(result.stdout);
		const types = events.map((e) => e.type);
		assert.equal(types[0], "session");
		const start = events.find((e) => e.type === "tool_execution_start");
		const end = events.find((e) => e.type === "tool_execution_end") as { result?: { content: { text: string }[] } };
		assert.deepEqual(start?.args, { city: "Oslo" });
		assert.equal(end?.result?.content[0]?.text, "Oslo: 10°C, light rain");
		assert.ok(types.indexOf("tool_execution_start") < types.indexOf("tool_execution_end"));
		const deltas = events.filter(
			(e) => e.type === "message_update" && (e.assistantMessageEvent as { type: string }).type === "text_delta",
		);
		assert.ok(deltas.length > 1, `text should stream in several deltas, got ${deltas.length}`);
		// As pi 1.6: agent_settled follows agent_end once nothing is queued.
		assert.deepEqual(types.slice(-2), ["agent_end", "agent_settled"]);
	});

	test("extensions importing @mariozechner/* and @sinclair/typebox load through pi's aliases", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "-e", join(FIXTURES, "legacy-imports.ts"), 'legacy_echo {"text":"hi"}'], {
			agentDir: dir.path,
		});
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /legacy:hi/);
	});

	test("a broken extension is named in a clear error and, as in pi, the run ends with exit 1", async () => {
		using dir = tempDir();
		const syntax = join(FIXTURES, "broken-syntax.ts");
		const throws = join(FIXTURES, "broken-throws.ts");
		const result = await runPier(["run", "-e", syntax, "-e", throws, "-e", WEATHER, 'weather {"city":"Rome"}'], {
			agentDir: dir.path,
		});
		assert.equal(result.code, 1, result.stderr);
		assert.match(result.stderr, new RegExp(`error: Failed to load extension "${syntax}": .*ParseError`));
		assert.match(
			result.stderr,
			new RegExp(`error: Failed to load extension "${throws}": .*factory exploded on purpose`),
		);
		assert.equal(result.stdout, "", "no prompt was sent");
	});

	test("global extensions in the agent dir load; --no-extensions skips them but keeps -e", async () => {
		using dir = tempDir();
		mkdirSync(join(dir.path, "extensions"));
		writeFileSync(join(dir.path, "extensions", "weather.ts"), readFileSync(WEATHER));
		const loaded = await runPier(["run", 'weather {"city":"Oslo"}'], { agentDir: dir.path });
		assert.match(loaded.stdout, /the weather tool says/);
		const skipped = await runPier(["run", "--no-extensions", 'weather {"city":"Oslo"}'], { agentDir: dir.path });
		assert.match(skipped.stdout, /no active tool named "weather"/);
		const explicit = await runPier(
			["run", "--no-extensions", "-e", join(FIXTURES, "legacy-imports.ts"), 'legacy_echo {"text":"x"}'],
			{
				agentDir: dir.path,
			},
		);
		assert.match(explicit.stdout, /legacy:x/);
	});

	test("a tool the session does not have is not called", async () => {
		using dir = tempDir();
		const result = await runPier(["run", 'nosuchtool {"a":1}'], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /no active tool named "nosuchtool"/);
	});
});

describe("project trust", () => {
	function projectWithExtension(root: string): string {
		const project = join(root, "project");
		mkdirSync(join(project, ".pi", "extensions"), { recursive: true });
		writeFileSync(join(project, ".pi", "extensions", "weather.ts"), readFileSync(WEATHER));
		return project;
	}

	test("project extensions do not load without --approve, and the user is told why", async () => {
		using dir = tempDir();
		const project = projectWithExtension(dir.path);
		const result = await runPier(["run", 'weather {"city":"Oslo"}'], { agentDir: dir.path, cwd: project });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /no active tool named "weather"/);
		assert.match(
			result.stderr,
			/project .*project is not trusted \(no decision yet\): skipped \.pi\/extensions; trust it with `pier trust .*`, or for one run with --approve/,
		);
	});

	test("--approve trusts the project; --no-approve refuses it", async () => {
		using dir = tempDir();
		const project = projectWithExtension(dir.path);
		const approved = await runPier(["run", "--approve", 'weather {"city":"Oslo"}'], {
			agentDir: dir.path,
			cwd: project,
		});
		assert.match(approved.stdout, /the weather tool says/);
		assert.doesNotMatch(approved.stderr, /not trusted/);
		const refused = await runPier(["run", "--no-approve", 'weather {"city":"Oslo"}'], {
			agentDir: dir.path,
			cwd: project,
		});
		assert.match(refused.stdout, /no active tool named "weather"/);
		assert.match(refused.stderr, /--no-approve was given/);
	});

	test("extensions listed in an untrusted project's settings.json do not load either", async () => {
		using dir = tempDir();
		const project = join(dir.path, "p2");
		mkdirSync(join(project, ".pi"), { recursive: true });
		writeFileSync(join(project, ".pi", "settings.json"), JSON.stringify({ extensions: [WEATHER] }));
		const refused = await runPier(["run", 'weather {"city":"Oslo"}'], { agentDir: dir.path, cwd: project });
		assert.match(refused.stdout, /no active tool named "weather"/);
		const approved = await runPier(["run", "--approve", 'weather {"city":"Oslo"}'], {
			agentDir: dir.path,
			cwd: project,
		});
		assert.match(approved.stdout, /the weather tool says/);
	});

	test("--cwd points the session at another project", async () => {
		using dir = tempDir();
		const project = projectWithExtension(dir.path);
		const result = await runPier(["run", "--cwd", project, "--approve", 'weather {"city":"Oslo"}'], {
			agentDir: dir.path,
		});
		assert.match(result.stdout, /the weather tool says/);
		const [file] = sessionFiles(dir.path);
		assert.equal(SessionManager.open(file!).getCwd(), project);
	});
});

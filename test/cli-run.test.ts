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

describe("pier run with nothing configured", () => {
	test("answers from pier/demo and writes a version-3 session pi's SessionManager opens", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "hello"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /offline demo model \(pier\/demo\)/);
		assert.match(result.stdout, /--model provider\/id/);
		assert.match(result.stderr, /model pier\/demo/);

		const files = sessionFiles(dir.path);
		assert.equal(files.length, 1);
		const header = JSON.parse(readFileSync(files[0]!, "utf8").split("\n")[0]!) as { type: string; version: number };
		assert.deepEqual([header.type, header.version], ["session", 3]);
		const opened = SessionManager.open(files[0]!);
		const messages = opened.buildSessionContext().messages;
		// pi 1.6 keeps the system prompt and tools in the session, as the first message.
		assert.deepEqual(
			messages.map((m) => m.role),
			["system", "user", "assistant"],
		);
		assert.equal(opened.buildSessionContext().model?.provider, "pier");
	});

	test("the demo answer is deterministic", async () => {
		using dir = tempDir();
		const a = await runPier(["run", "what is 2+2"], { agentDir: dir.path });
		const b = await runPier(["run", "what is 2+2"], { agentDir: dir.path });
		assert.equal(a.code, 0, a.stderr);
		assert.equal(a.stdout, b.stdout);
		assert.match(a.stdout, /"what is 2\+2"/);
	});

	test("--continue appends to the most recent session and `pier sessions` lists it", async () => {
		using dir = tempDir();
		assert.equal((await runPier(["run", "first"], { agentDir: dir.path })).code, 0);
		const second = await runPier(["run", "--continue", "second"], { agentDir: dir.path });
		assert.equal(second.code, 0, second.stderr);
		const files = sessionFiles(dir.path);
		assert.equal(files.length, 1, "continue must not start a new file");
		const roles = SessionManager.open(files[0]!)
			.buildSessionContext()
			.messages.map((m) => m.role);
		assert.deepEqual(roles, ["system", "user", "assistant", "user", "assistant"]);

		const listed = await runPier(["sessions", "--json"], { agentDir: dir.path });
		assert.equal(listed.code, 0, listed.stderr);
		const rows = jsonLines(listed.stdout);
		assert.equal(rows.length, 1);
		assert.equal(rows[0]!.path, files[0]);
		assert.equal(rows[0]!.messageCount, 5, "as pi 1.6 counts: its system message and four turns");
		assert.equal(rows[0]!.firstMessage, "first");
	});

	test("--session reopens a given file", async () => {
		using dir = tempDir();
		await runPier(["run", "one"], { agentDir: dir.path });
		const [file] = sessionFiles(dir.path);
		const again = await runPier(["run", "--session", file!, "two"], { agentDir: dir.path });
		assert.equal(again.code, 0, again.stderr);
		assert.equal(sessionFiles(dir.path).length, 1);
		assert.equal(
			SessionManager.open(file!).buildSessionContext().messages.length,
			5,
			"the system message and two turns",
		);
	});

	test("--no-session keeps nothing on disk", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "--no-session", "hi"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.deepEqual(sessionFiles(dir.path), []);
	});
});

describe("pier run loads what the session needs", () => {
	const REGISTER = join(REPO_ROOT, "test", "fixtures", "module-log", "register.mjs");
	const HOST_MACHINERY = [
		"src/extensions/host/instance.js",
		"src/extensions/bridge/factory.js",
		"src/extensions/bridge/trust-hooks.js",
		"src/extensions/bridge/provider-stream.js",
		"src/extensions/bridge/hook-results.js",
	];
	/** The pier modules a run read, as paths under dist/, and what it printed. */
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

describe("pier run errors", () => {
	test("an unknown model is pi's error, exit code 1 as in pi, with the models that have credentials", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "--model", "nope/none", "hi"], { agentDir: dir.path });
		assert.equal(result.code, 1);
		assert.match(result.stderr, /Model "nope\/none" not found\. .*Models with credentials: .*pier\/demo/);
	});

	test("bad usage is reported, not thrown", async () => {
		using dir = tempDir();
		for (const [args, message] of [
			[["run"], /pier run needs a prompt/],
			[["run", "--thinking", "huge", "x"], /--thinking must be one of/],
			[["run", "--mode", "xml", "x"], /--mode must be text, json or rpc/],
			[["run", "-q", "x"], /unknown option -q/],
			[["run", "--session", "a.jsonl", "--continue", "x"], /cannot be combined/],
		] as const) {
			const result = await runPier(args, { agentDir: dir.path });
			assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
			assert.match(result.stderr, message);
			assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
		}
	});

	test("--version and --help answer without a model", async () => {
		using dir = tempDir();
		const version = await runPier(["--version"], { agentDir: dir.path });
		assert.equal(version.stdout.trim(), JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).version);
		const help = await runPier(["--help"], { agentDir: dir.path });
		assert.match(help.stdout, /pier run \[options\] "<prompt>"/);
	});
});

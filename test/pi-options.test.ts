/**
 * pi's own command-line options through the real bin: model patterns, scopes and keys through pi's
 * resolver, piped stdin and @file prompts, --list-models, and the resource switches — checked against
 * the request a local OpenAI-compatible server receives where the effect is on the model's input.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { type FakeOpenAI, startFakeOpenAI } from "./helpers/openai-server.js";
import { runPier, tempDir } from "./helpers/pier-cli.js";

function configureLocal(agentDir: string, server: FakeOpenAI, apiKey: string | undefined = "local-test-key"): void {
	const provider = {
		baseUrl: server.baseUrl,
		api: "openai-completions",
		...(apiKey ? { apiKey } : {}),
		compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
		models: [
			{ id: "local-model", name: "Local model" },
			{ id: "other-model", name: "Other model" },
		],
	};
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { local: provider } }));
}

const systemText = (server: FakeOpenAI): string => {
	const system = server.requests[0]!.body.messages.find((m) => m.role === "system");
	return typeof system?.content === "string" ? system.content : JSON.stringify(system?.content);
};
const userText = (server: FakeOpenAI): string =>
	JSON.stringify(server.requests[0]!.body.messages.filter((m) => m.role === "user"));

describe("pi's model options", () => {
	test("--model takes pi's fuzzy patterns and --provider scopes a bare pattern", async () => {
		using dir = tempDir();
		const fuzzy = await runPier(["run", "--no-session", "--model", "demo", "hi"], { agentDir: dir.path });
		assert.equal(fuzzy.code, 0, fuzzy.stderr);
		assert.match(fuzzy.stderr, /model pier\/demo/);
		const scoped = await runPier(["run", "--no-session", "--provider", "pier", "--model", "dem", "hi"], {
			agentDir: dir.path,
		});
		assert.equal(scoped.code, 0, scoped.stderr);
		assert.match(scoped.stderr, /model pier\/demo/);
		const unknownProvider = await runPier(["run", "--no-session", "--provider", "nowhere", "--model", "x", "hi"], {
			agentDir: dir.path,
		});
		assert.equal(unknownProvider.code, 1);
		assert.match(unknownProvider.stderr, /nowhere/);
	});

	test("--models scopes the start model, --model wins over it, and --api-key reaches the provider", async (t) => {
		using dir = tempDir();
		const server = await startFakeOpenAI();
		t.after(() => server.close());
		configureLocal(dir.path, server, undefined);
		const scoped = await runPier(
			["run", "--no-session", "--models", "local/other-model", "--api-key", "cli-key", "hi"],
			{
				agentDir: dir.path,
			},
		);
		assert.equal(scoped.code, 0, scoped.stderr);
		assert.match(scoped.stderr, /model local\/other-model/);
		assert.equal(server.requests[0]!.body.model, "other-model");
		assert.equal(server.requests[0]!.headers.authorization, "Bearer cli-key");
		const noModel = await runPier(["run", "--no-session", "--model", "nothing-like-this", "--api-key", "k", "hi"], {
			agentDir: dir.path,
		});
		assert.equal(noModel.code, 1);
		assert.match(noModel.stderr, /not found/);
	});

	test("--list-models prints pi's table, filtered by a search word", async (t) => {
		using dir = tempDir();
		const server = await startFakeOpenAI();
		t.after(() => server.close());
		configureLocal(dir.path, server);
		const all = await runPier(["--list-models"], { agentDir: dir.path });
		assert.equal(all.code, 0, all.stderr);
		assert.match(all.stdout, /provider\s+model/);
		assert.match(all.stdout, /local\s+local-model/);
		assert.match(all.stdout, /pier\s+demo/);
		const filtered = await runPier(["--list-models", "other"], { agentDir: dir.path });
		assert.match(filtered.stdout, /other-model/);
		assert.doesNotMatch(filtered.stdout, /pier\s+demo/);
		assert.equal(server.requests.length, 0, "listing asks no model anything");
	});
});

describe("pi's prompt inputs", () => {
	test("piped stdin without a terminal is print mode, and leads the first prompt", async (t) => {
		using dir = tempDir();
		const server = await startFakeOpenAI();
		t.after(() => server.close());
		configureLocal(dir.path, server);
		const result = await runPier(["--no-session", "and the question"], {
			agentDir: dir.path,
			stdin: "piped context\n",
		});
		assert.equal(result.code, 0, result.stderr);
		assert.match(userText(server), /piped context/);
		assert.match(userText(server), /and the question/);
		assert.match(result.stdout, /The forecast tool reported|Oslo/);
	});

	test("a file as stdin (pier -p < file) leads the first prompt as a pipe does; /dev/null is nothing piped", async (t) => {
		using dir = tempDir();
		const server = await startFakeOpenAI();
		t.after(() => server.close());
		configureLocal(dir.path, server);
		const file = join(dir.path, "context.md");
		writeFileSync(file, "context from a file\n");
		const result = await runPier(["--no-session", "and the question"], { agentDir: dir.path, stdin: { file } });
		assert.equal(result.code, 0, result.stderr);
		assert.match(userText(server), /context from a file/);
		assert.match(userText(server), /and the question/);
		// An empty file and /dev/null hold no prompt: without a message argument that is pier run's usage error.
		writeFileSync(file, "");
		const before = server.requests.length;
		for (const stdin of [file, "/dev/null"]) {
			const empty = await runPier(["-p", "--no-session"], { agentDir: dir.path, stdin: { file: stdin } });
			assert.equal(empty.code, 2, `${stdin}: ${empty.stderr}`);
			assert.match(empty.stderr, /pier run needs a prompt/);
		}
		assert.equal(server.requests.length, before, "the empty inputs asked no model");
		const nulled = await runPier(["-p", "--no-session", "only the question"], {
			agentDir: dir.path,
			stdin: { file: "/dev/null" },
		});
		assert.equal(nulled.code, 0, nulled.stderr);
		const asked = JSON.stringify(server.requests[before]!.body.messages.filter((m) => m.role === "user"));
		assert.match(asked, /only the question/);
		assert.doesNotMatch(asked, /context from a file/);
	});

	test("@file arguments put the file's text in the first prompt; a missing one is pi's error, exit 1", async (t) => {
		using dir = tempDir();
		const server = await startFakeOpenAI();
		t.after(() => server.close());
		configureLocal(dir.path, server);
		writeFileSync(join(dir.path, "notes.txt"), "the notes say 42\n");
		const result = await runPier(["-p", "--no-session", "@notes.txt", "summarise"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.match(userText(server), /notes\.txt/);
		assert.match(userText(server), /the notes say 42/);
		assert.match(userText(server), /summarise/);
		const missing = await runPier(["-p", "--no-session", "@absent.txt", "x"], { agentDir: dir.path });
		assert.equal(missing.code, 1);
		assert.match(missing.stderr, /File not found: .*absent\.txt/);
		const rpc = await runPier(["--mode", "rpc", "@notes.txt"], { agentDir: dir.path });
		assert.equal(rpc.code, 1);
		assert.match(rpc.stderr, /@file arguments are not supported in RPC mode/);
	});
});

describe("pi's resource switches", () => {
	test("--skill adds a skill, --no-skills drops discovered ones, --no-context-files drops AGENTS.md", async (t) => {
		using dir = tempDir();
		const server = await startFakeOpenAI();
		t.after(() => server.close());
		configureLocal(dir.path, server);
		const skill = join(dir.path, "extra-skill");
		mkdirSync(skill);
		writeFileSync(
			join(skill, "SKILL.md"),
			"---\nname: extra-skill\ndescription: The extra skill given on the command line.\n---\nBody.\n",
		);
		mkdirSync(join(dir.path, "skills", "global-skill"), { recursive: true });
		writeFileSync(
			join(dir.path, "skills", "global-skill", "SKILL.md"),
			"---\nname: global-skill\ndescription: A skill discovered in the agent directory.\n---\nBody.\n",
		);
		writeFileSync(join(dir.path, "AGENTS.md"), "Context file marker: zebra-7.\n");

		const plain = await runPier(["run", "--no-session", "--skill", skill, "hi"], { agentDir: dir.path });
		assert.equal(plain.code, 0, plain.stderr);
		assert.match(systemText(server), /extra-skill/);
		assert.match(systemText(server), /global-skill/);
		assert.match(systemText(server), /zebra-7/);

		server.requests.length = 0;
		const bare = await runPier(["run", "--no-session", "--no-skills", "-nc", "hi"], { agentDir: dir.path });
		assert.equal(bare.code, 0, bare.stderr);
		assert.doesNotMatch(systemText(server), /global-skill/);
		assert.doesNotMatch(systemText(server), /zebra-7/);
	});
});

describe("pi's session options", () => {
	const header = (file: string) => JSON.parse(readFileSync(file, "utf8").split("\n")[0]!) as { id: string };
	const userMessages = (file: string) =>
		readFileSync(file, "utf8")
			.split("\n")
			.filter((line) => line.includes('"role":"user"')).length;

	test("--session takes an id prefix, --fork copies a session, --session-dir moves the files", async () => {
		using dir = tempDir();
		const sessions = join(dir.path, "my-sessions");
		const first = await runPier(["run", "--session-dir", sessions, "hello"], { agentDir: dir.path });
		assert.equal(first.code, 0, first.stderr);
		const [file] = readdirSync(sessions).map((name) => join(sessions, name));
		assert.ok(file, "the session file is in --session-dir");
		const id = header(file).id;

		const again = await runPier(["run", "--session-dir", sessions, "--session", id.slice(0, 8), "again"], {
			agentDir: dir.path,
		});
		assert.equal(again.code, 0, again.stderr);
		assert.equal(readdirSync(sessions).length, 1, "the same session continued");
		assert.equal(userMessages(file), 2);

		const fork = await runPier(["run", "--session-dir", sessions, "--fork", id.slice(0, 8), "forked"], {
			agentDir: dir.path,
		});
		assert.equal(fork.code, 0, fork.stderr);
		const forked = readdirSync(sessions)
			.map((name) => join(sessions, name))
			.find((f) => f !== file)!;
		assert.notEqual(header(forked).id, id);
		assert.equal(userMessages(forked), 3, "the fork holds the history and its own prompt");
		assert.equal(userMessages(file), 2, "the original is untouched");

		const none = await runPier(["run", "--session-dir", sessions, "--session", "zzzz", "x"], { agentDir: dir.path });
		assert.equal(none.code, 1);
		assert.match(none.stderr, /No session found matching 'zzzz'/);
		const clash = await runPier(["run", "--fork", id, "--no-session", "x"], { agentDir: dir.path });
		assert.equal(clash.code, 1);
		assert.match(clash.stderr, /--fork cannot be combined with --no-session/);
	});

	test("--export writes pi's HTML export of a session file", async () => {
		using dir = tempDir();
		const sessions = join(dir.path, "s");
		await runPier(["run", "--session-dir", sessions, "hello export"], { agentDir: dir.path });
		const [name] = readdirSync(sessions);
		const out = join(dir.path, "out.html");
		const result = await runPier(["--export", join(sessions, name!), out], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /Exported to: .*out\.html/);
		const html = readFileSync(out, "utf8");
		assert.ok(html.startsWith("<!DOCTYPE html>") || html.startsWith("<html"), "an HTML document");
		// pi embeds the session's entries (base64 JSON) in the page.
		const embedded = [...html.matchAll(/[A-Za-z0-9+/=]{200,}/g)].map((m) => Buffer.from(m[0], "base64").toString());
		assert.ok(
			html.includes("hello export") || embedded.some((text) => text.includes("hello export")),
			"the session's prompt is in the export",
		);
		const missing = await runPier(["--export", join(dir.path, "absent.jsonl")], { agentDir: dir.path });
		assert.equal(missing.code, 1);
	});

	test("pi 1.6's --session-id, --name and --exclude-tools; bad values of the new flags are errors before anything runs", async () => {
		using dir = tempDir();
		const sessions = join(dir.path, "s");
		const first = await runPier(
			["run", "--session-dir", sessions, "--session-id", "task-42", "-n", " Fix the login ", "hello"],
			{ agentDir: dir.path },
		);
		assert.equal(first.code, 0, first.stderr);
		const [name] = readdirSync(sessions);
		const file = join(sessions, name!);
		assert.equal(header(file).id, "task-42");
		const info = readFileSync(file, "utf8")
			.split("\n")
			.filter((line) => line.includes('"type":"session_info"'))
			.map((line) => JSON.parse(line) as { name?: string });
		assert.deepEqual(
			info.map((entry) => entry.name),
			["Fix the login"],
			"the trimmed name, recorded once",
		);

		// The same id again continues that session, as pi does.
		const again = await runPier(["run", "--session-dir", sessions, "--session-id", "task-42", "again"], {
			agentDir: dir.path,
		});
		assert.equal(again.code, 0, again.stderr);
		assert.equal(readdirSync(sessions).length, 1);
		assert.equal(userMessages(file), 2);

		const excluded = await runPier(["run", "--no-session", "-xt", "read,bash", 'read {"path":"x"}'], {
			agentDir: dir.path,
		});
		assert.equal(excluded.code, 0, excluded.stderr);
		assert.match(excluded.stdout, /no active tool named "read"/);
		assert.doesNotMatch(excluded.stdout, /active tools: [^)]*\bbash\b/);

		for (const [args, message] of [
			[["--session-id", "-bad-", "x"], /--session-id must be non-empty/],
			[["--session-id", "a1", "-c", "x"], /--session-id cannot be combined with --continue/],
			[["--name", "  ", "x"], /--name needs a non-empty value/],
			[["--tui-mode", "wide", "x"], /--tui-mode must be regular or fullscreen, got "wide"/],
		] as const) {
			const result = await runPier(["run", "--session-dir", sessions, ...args], { agentDir: dir.path });
			assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
			assert.match(result.stderr, message);
		}
		assert.equal(readdirSync(sessions).length, 1, "a refused command writes no session");
	});
});

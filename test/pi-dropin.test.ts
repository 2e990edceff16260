import { spawnSync } from "node:child_process";
/**
 * Issue 14: pier behaves as pi on pi's own command lines, through the real bin, with pi's
 * example extensions as fixtures.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ApiClient, startServe } from "./helpers/chamber.js";
import { cleanEnv, jsonLines, REPO_ROOT, runPier, tempDir } from "./helpers/pier-cli.js";

const PI_EXAMPLES = join(REPO_ROOT, "node_modules", "@earendil-works", "pi-coding-agent", "examples", "extensions");
const ESC = "\u001b";
const example = (name: string) => join(PI_EXAMPLES, name);

/** An extension that records, per prompt, the system prompt and the active tools it was sent with. */
function spyExtension(dir: string): { path: string; seen: () => Array<{ systemPrompt: string; tools: string[] }> } {
	const log = join(dir, "spy.jsonl");
	const path = join(dir, "spy.ts");
	writeFileSync(
		path,
		`import { appendFileSync } from "node:fs";
export default function (pi: any) {
	pi.on("before_agent_start", async (event: any) => {
		appendFileSync(${JSON.stringify(log)}, JSON.stringify({ systemPrompt: event.systemPrompt, tools: pi.getActiveTools() }) + "\\n");
	});
}
`,
	);
	return {
		path,
		seen: () =>
			readFileSync(log, "utf8")
				.trim()
				.split("\n")
				.map((l) => JSON.parse(l)),
	};
}

function sessionFiles(agentDir: string): string[] {
	try {
		return readdirSync(join(agentDir, "sessions"), { recursive: true, encoding: "utf8" }).filter((f) =>
			f.endsWith(".jsonl"),
		);
	} catch {
		return [];
	}
}

describe("pi's mode setup in pier run and --mode rpc", () => {
	test("the theme is initialised outside the terminal: status-line's ctx.ui.theme works in pier run", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "-e", example("status-line.ts"), "hi"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.doesNotMatch(result.stderr, /Theme not initialized|Extension error/);
		assert.match(result.stdout, /pier\/demo/);
	});

	test("the theme is initialised in --mode rpc: status-line's statuses arrive, not extension errors", async () => {
		using dir = tempDir();
		const result = await runPier(["--mode", "rpc", "-e", example("status-line.ts")], {
			agentDir: dir.path,
			stdin: `${JSON.stringify({ id: "p1", type: "prompt", message: "hi" })}\n`,
		});
		assert.equal(result.code, 0, result.stderr);
		const frames = jsonLines(result.stdout);
		assert.ok(!frames.some((f) => f.type === "extension_error"), result.stdout);
		assert.ok(frames.some((f) => f.type === "extension_ui_request" && f.method === "setStatus"));
	});

	test("what an extension writes to stdout goes to stderr: notify keeps --mode json clean", async () => {
		using dir = tempDir();
		const result = await runPier(["--mode", "json", "-e", example("notify.ts"), "hi"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.ok(!result.stdout.includes(ESC), "no escape sequence on stdout");
		const events = jsonLines(result.stdout);
		assert.equal(events[0]?.type, "session");
		assert.ok(events.some((e) => e.type === "agent_end"));
		assert.ok(result.stderr.includes(`${ESC}]777;notify;`), "the notification went to stderr");
	});

	test("pier run prints the answer on stdout, the notify escape on stderr", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "-e", example("notify.ts"), "hi"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.ok(!result.stdout.includes(ESC), "no escape sequence on stdout");
		assert.match(result.stdout, /pier\/demo/);
	});
});

test("the chamber initialises pi's theme: getMarkdownTheme() and ctx.ui.theme work in its sessions", async () => {
	using dir = tempDir();
	const log = join(dir.path, "theme.log");
	const ext = join(dir.path, "theme-user.ts");
	writeFileSync(
		ext,
		`import { appendFileSync } from "node:fs";
import { getMarkdownTheme } from "@earendil-works/pi-coding-agent";
export default function (pi: any) {
	pi.on("session_start", async (_event: any, ctx: any) => {
		try {
			getMarkdownTheme().heading("x");
			ctx.ui.theme.fg("dim", "x");
			appendFileSync(${JSON.stringify(log)}, "ok\\n");
		} catch (error) {
			appendFileSync(${JSON.stringify(log)}, String(error) + "\\n");
		}
	});
}
`,
	);
	const serve = await startServe(["-e", ext, "--state-dir", join(dir.path, "state"), "--ui-password", "pw"], {
		agentDir: dir.path,
	});
	try {
		const api = new ApiClient(serve.url);
		assert.equal((await api.login("pw")).status, 200);
		await api.newSession();
		assert.equal(readFileSync(log, "utf8").trim().split("\n")[0], "ok");
	} finally {
		await serve.stop();
	}
});

describe("pi's command line", () => {
	test("the subagent example's command line: --mode json -p --no-session --tools --append-system-prompt <file>", async () => {
		using dir = tempDir();
		const spy = spyExtension(dir.path);
		const promptFile = join(dir.path, "agent.md");
		writeFileSync(promptFile, "You are the scout agent.");
		const result = await runPier(
			[
				"--mode",
				"json",
				"-p",
				"--no-session",
				"-e",
				spy.path,
				"--model",
				"pier/demo",
				"--tools",
				"read,ls",
				"--append-system-prompt",
				promptFile,
				"--append-system-prompt",
				"Answer briefly.",
				"Task: look around",
			],
			{ agentDir: dir.path },
		);
		assert.equal(result.code, 0, result.stderr);
		const events = jsonLines(result.stdout);
		assert.ok(events.some((e) => e.type === "agent_end"));
		const [seen] = spy.seen();
		assert.match(seen!.systemPrompt, /You are the scout agent\.[\s\S]*Answer briefly\./);
		assert.deepEqual(seen!.tools.sort(), ["ls", "read"]);
		assert.deepEqual(sessionFiles(dir.path), [], "--no-session writes no file");
	});

	test("pier -p is pier run", async () => {
		using dir = tempDir();
		const [p, run] = await Promise.all([
			runPier(["-p", "what is 2+2"], { agentDir: dir.path }),
			runPier(["run", "what is 2+2"], { agentDir: dir.path }),
		]);
		assert.equal(p.code, 0, p.stderr);
		assert.equal(p.stdout, run.stdout);
	});

	test('each message argument is its own prompt: "/pirate" "hello" toggles pirate mode, then asks', async () => {
		using dir = tempDir();
		const spy = spyExtension(dir.path);
		const result = await runPier(["-p", "-e", example("pirate.ts"), "-e", spy.path, "/pirate", "hello"], {
			agentDir: dir.path,
		});
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /"hello"/);
		const seen = spy.seen();
		assert.equal(seen.length, 1, "one prompt reached the model");
		assert.match(seen[0]!.systemPrompt, /PIRATE MODE/);
	});

	test('a flag before the prompt takes it, as in pi: --plan "…" with plan-mode exits 0', async () => {
		using dir = tempDir();
		const result = await runPier(["run", "-e", example("plan-mode"), "--plan", "look at the code"], {
			agentDir: dir.path,
		});
		assert.equal(result.code, 0, result.stderr);
		assert.doesNotMatch(result.stderr, /error/i);
	});

	test("a missing -e extension fails pier run with exit 1 before any prompt", async () => {
		using dir = tempDir();
		const missing = join(dir.path, "nope.ts");
		for (const mode of [[], ["--mode", "json"]]) {
			const result = await runPier(["run", ...mode, "-e", missing, "hi"], { agentDir: dir.path });
			assert.equal(result.code, 1, result.stderr);
			assert.match(result.stderr, new RegExp(`Failed to load extension "${missing}": .*does not exist`));
			assert.equal(result.stdout, "");
		}
		assert.deepEqual(sessionFiles(dir.path), []);
	});

	test("a missing -e extension ends --mode rpc with exit 1", async () => {
		using dir = tempDir();
		const result = await runPier(["--mode", "rpc", "-e", join(dir.path, "nope.ts")], { agentDir: dir.path });
		assert.equal(result.code, 1, result.stderr);
		assert.match(result.stderr, /Failed to load extension/);
	});
});

describe("newcomer cases", () => {
	test("pier run --frobnicate hi says the flag is unknown", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "--frobnicate", "hi"], { agentDir: dir.path });
		assert.equal(result.code, 1, result.stderr);
		assert.match(result.stderr, /Unknown option: --frobnicate/);
		assert.doesNotMatch(result.stderr, /needs a prompt/);
	});

	test("pier ext --help is help, exit 0", async () => {
		using dir = tempDir();
		const result = await runPier(["ext", "--help"], { agentDir: dir.path });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /pier ext validate <dir>/);
	});

	test("pier --help lists pi's flags pier now takes", async () => {
		using dir = tempDir();
		const result = await runPier(["--help"], { agentDir: dir.path });
		for (const flag of ["-p, --print", "--tools", "--append-system-prompt", "--no-session"])
			assert.ok(result.stdout.includes(flag), flag);
	});

	test("pier --help shows every option pi's own --help lists, and pier's commands beside them", async () => {
		using dir = tempDir();
		const pi = spawnSync(
			process.execPath,
			[join(REPO_ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/cli.js"), "--help"],
			{
				env: cleanEnv(dir.path),
				encoding: "utf8",
			},
		);
		// pi's help also names an example extension's flag ("e.g., --plan from plan-mode"): not an option of pi's.
		const piOptions = [...new Set((pi.stdout + pi.stderr).match(/(?<=^|\s)--[a-z][a-z-]+/gm) ?? [])].filter(
			(o) => o !== "--plan",
		);
		assert.ok(piOptions.length > 30, `pi's help lists its options: ${piOptions.join(" ")}`);
		const result = await runPier(["--help"], { agentDir: dir.path });
		for (const option of piOptions) assert.ok(result.stdout.includes(option), `pier --help lacks ${option}`);
		for (const command of [
			"pier run",
			"pier serve",
			"pier sessions",
			"pier trust",
			"pier install",
			"pier list",
			"pier ext",
			"pier pair",
			"pier grant",
		])
			assert.ok(result.stdout.includes(command), `pier --help lacks ${command}`);
	});
});

/**
 * Session files shared with pi 1.6, both ways: a session pi's own CLI wrote, with a context edit on its branch
 * (pi 1.6's `context_edit`: the first question taken out of the model's context) and a usage entry, continues in
 * `pier run` with exactly the messages pi 1.6 sends when it continues the same file. Both runs talk to the same
 * local OpenAI-compatible server, which records what each sends.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { type ChatRequest, type FakeOpenAI, localProvider, startFakeOpenAI } from "./helpers/openai-server.js";
import { cleanEnv, runPier, tempDir } from "./helpers/pier-cli.js";

/** pi's CLI beside its package entry (`dist/index.js`). */
const PI_CLI = join(dirname(fileURLToPath(import.meta.resolve("@earendil-works/pi-coding-agent"))), "cli.js");

/** pi 1.6's own CLI, in print mode. */
function runPi(
	args: readonly string[],
	agentDir: string,
	cwd: string,
): Promise<{ code: number | null; stderr: string }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [PI_CLI, ...args], { cwd, env: cleanEnv(agentDir), stdio: "pipe" });
		let stderr = "";
		child.stderr.setEncoding("utf8").on("data", (d: string) => {
			stderr += d;
		});
		child.stdout.resume();
		child.on("error", reject);
		child.on("close", (code) => resolve({ code, stderr }));
		child.stdin.end();
	});
}

const dir = tempDir("pier-pi-sessions-");
let server: FakeOpenAI;
before(async () => {
	server = await startFakeOpenAI({ reply: "text" });
});
after(async () => {
	await server.close();
	dir[Symbol.dispose]();
});

/** What a request asked the model: each message's role and text. */
const conversation = (request: ChatRequest) =>
	request.body.messages.map((m) => ({
		role: m.role,
		text: typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? null),
	}));

test("a pi 1.6 session with a context edit continues in pier with the messages pi 1.6 sends", async () => {
	const agentDir = join(dir.path, "agent");
	const project = join(dir.path, "project");
	mkdirSync(agentDir, { recursive: true });
	mkdirSync(project, { recursive: true });
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { local: localProvider(server.baseUrl) } }));
	const model = ["--model", "local/local-model"];

	const wrote = await runPi(["-p", ...model, "the first question"], agentDir, project);
	assert.equal(wrote.code, 0, wrote.stderr);
	const sessions = join(agentDir, "sessions");
	const [file] = readdirSync(sessions, { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith(".jsonl"))
		.map((name) => join(sessions, name));
	assert.ok(file, "pi wrote a session file");

	// The user takes the first question out of the model's context, as pi 1.6's context editing records it.
	const manager = SessionManager.open(file);
	const first = manager.getEntries().find((e) => e.type === "message" && e.message.role === "user");
	assert.ok(first, "the session has the first question");
	manager.appendContextEdit(first.id, null);
	const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15 };
	manager.appendUsage("summary", "local", "local-model", { ...usage, cost: zeroCost() } as never);

	const forPi = join(dir.path, "pi.jsonl");
	const forPier = join(dir.path, "pier.jsonl");
	copyFileSync(file, forPi);
	copyFileSync(file, forPier);

	const before = server.requests.length;
	const pi = await runPi(["-p", ...model, "--session", forPi, "the second question"], agentDir, project);
	assert.equal(pi.code, 0, pi.stderr);
	const pier = await runPier(["run", ...model, "--session", forPier, "the second question"], {
		agentDir,
		cwd: project,
	});
	assert.equal(pier.code, 0, pier.stderr);

	const [fromPi, fromPier] = server.requests.slice(before);
	assert.ok(fromPi && fromPier, `two requests, got ${server.requests.length - before}`);
	const sent = conversation(fromPier);
	assert.deepEqual(sent, conversation(fromPi), "pier sends what pi 1.6 sends");
	assert.ok(!JSON.stringify(sent).includes("the first question"), "the edited-out question stays out");
	assert.ok(JSON.stringify(sent).includes("the second question"));
	assert.ok(
		sent.some((m) => m.role === "assistant"),
		"the first answer is still there",
	);
});

function zeroCost() {
	return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}

/**
 * One writer per session file: a live chamber session's file is refused to a second pier process (naming
 * who holds it), a lease left by a killed holder is taken over, and an append by pi's own CLI (which knows
 * no leases) is noticed by the chamber, which reloads the file instead of writing a second branch.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/openai-server.js";
import { cleanEnv, REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const PI_CLI = join(REPO_ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/cli.js");
const dir = tempDir("pier-chamber-lease-");
const agentDir = join(dir.path, "agent");
let server: FakeOpenAI;
let serve: Serve;
let api: ApiClient;

before(async () => {
	mkdirSync(agentDir, { recursive: true });
	server = await startFakeOpenAI();
	const provider = {
		baseUrl: server.baseUrl,
		api: "openai-completions",
		apiKey: "k",
		compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
		models: [{ id: "local-model", name: "Local" }],
	};
	writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { local: provider } }));
	({ serve, api } = await servedChamber(["--no-examples"], {
		agentDir,
		cwd: dir.path,
		stateDir: join(dir.path, "state"),
	}));
});
after(async () => {
	await serve?.stop();
	await server?.close();
	dir[Symbol.dispose]();
});

/** The session file pi wrote for `id` (the API names no paths). */
function fileOf(id: string): string {
	const root = join(agentDir, "sessions");
	for (const project of readdirSync(root)) {
		for (const name of readdirSync(join(root, project))) {
			if (name.endsWith(".jsonl") && name.includes(id)) return join(root, project, name);
		}
	}
	throw new Error(`no file for session ${id}`);
}

async function liveSessionWithFile(): Promise<{ id: string; file: string; stream: ReturnType<ApiClient["events"]> }> {
	const { id, stream } = await api.newSession();
	assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" })).status, 202);
	await stream.waitFor((e) => e.event === "agent.end", "the first answer");
	return { id, file: fileOf(id), stream };
}

const entries = (file: string) =>
	readFileSync(file, "utf8")
		.split("\n")
		.filter((line) => line.trim())
		.map((line) => JSON.parse(line) as { type: string; id?: string; parentId?: string | null; message?: unknown });

test("a second pier process is refused a live chamber session's file, with who holds it", async () => {
	const { file, stream } = await liveSessionWithFile();
	stream.close();
	const second = await runPier(["run", "--session", file, "me too"], { agentDir, cwd: dir.path });
	assert.equal(second.code, 1, second.stderr);
	assert.match(second.stderr, /is in use by pier serve \(pid \d+ on .+, since .+\)/);
	assert.equal(server.requests.filter((r) => JSON.stringify(r.body.messages).includes("me too")).length, 0);
	assert.ok(!readFileSync(file, "utf8").includes("me too"), "nothing was written");
});

test("a lease left by a killed holder is taken over, and released after", async () => {
	using own = tempDir("pier-lease-own-");
	const first = await runPier(["run", "--session-dir", own.path, "hello"], { agentDir, cwd: dir.path });
	assert.equal(first.code, 0, first.stderr);
	const file = join(own.path, readdirSync(own.path).find((n) => n.endsWith(".jsonl"))!);
	// A holder that is gone: a process that ran and was killed.
	const dead = spawn(process.execPath, ["-e", "setTimeout(()=>{},60000)"]);
	const pid = dead.pid!;
	dead.kill("SIGKILL");
	await new Promise((done) => dead.on("exit", done));
	writeFileSync(`${file}.lease`, JSON.stringify({ pid, host: hostname(), holder: "pier serve", since: "earlier" }));
	const again = await runPier(["run", "--session", file, "again"], { agentDir, cwd: dir.path });
	assert.equal(again.code, 0, again.stderr);
	assert.ok(readFileSync(file, "utf8").includes("again"));
	assert.ok(!existsSync(`${file}.lease`), "the lease is released when the run ends");
});

test("an append by pi's own CLI is noticed: the chamber reloads, and goes on from pi's leaf", async () => {
	const { id, file, stream } = await liveSessionWithFile();
	// pi knows no leases: it appends a turn to the live session's file.
	const pi = await new Promise<{ code: number | null; stderr: string }>((done) => {
		const child = spawn(process.execPath, [PI_CLI, "--session", file, "-p", "from pi"], {
			cwd: dir.path,
			env: cleanEnv(agentDir),
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stderr = "";
		child.stderr.setEncoding("utf8").on("data", (d: string) => {
			stderr += d;
		});
		child.on("close", (code) => done({ code, stderr }));
	});
	assert.equal(pi.code, 0, pi.stderr);
	assert.ok(readFileSync(file, "utf8").includes("from pi"));

	assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "after pi" })).status, 202);
	await stream.waitFor((e) => e.event === "session.replaced" || e.event === "extension.notify", "the reload");
	stream.close();
	const deadline = Date.now() + 15_000;
	while (!readFileSync(file, "utf8").includes("after pi") || entries(file).at(-1)?.type !== "message") {
		assert.ok(Date.now() < deadline, "the chamber's prompt reached the file");
		await new Promise((r) => setTimeout(r, 100));
	}
	// One line of history: every entry's parent is the entry before it (no second branch).
	const tree = entries(file).filter((e) => e.type !== "session");
	for (let i = 1; i < tree.length; i++) assert.equal(tree[i]!.parentId, tree[i - 1]!.id, `entry ${i} branches`);
	const texts = JSON.stringify(tree);
	assert.ok(texts.indexOf("from pi") < texts.indexOf("after pi"));
});

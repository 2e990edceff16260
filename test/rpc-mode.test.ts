import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, PIER_BIN, REPO_ROOT, tempDir } from "./helpers/pier-cli.js";

type Frame = Record<string, unknown> & { type: string };

test("pier --mode rpc speaks pi's RPC protocol: prompt, events, state", async (t) => {
	using dir = tempDir();
	const child = spawn(
		process.execPath,
		[PIER_BIN, "--mode", "rpc", "-e", join(REPO_ROOT, "examples/extensions/weather.ts")],
		{
			cwd: dir.path,
			env: cleanEnv(dir.path),
			stdio: ["pipe", "pipe", "pipe"],
		},
	);
	t.after(() => child.kill("SIGKILL"));
	const frames: Frame[] = [];
	const waiters: Array<{ match: (f: Frame) => boolean; resolve: (f: Frame) => void }> = [];
	let buffer = "";
	child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
		buffer += chunk;
		for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
			const frame = JSON.parse(buffer.slice(0, nl)) as Frame;
			buffer = buffer.slice(nl + 1);
			frames.push(frame);
			for (const w of waiters.splice(0)) {
				if (w.match(frame)) w.resolve(frame);
				else waiters.push(w);
			}
		}
	});
	const next = (match: (f: Frame) => boolean) =>
		new Promise<Frame>((resolve) => {
			const seen = frames.find(match);
			if (seen) resolve(seen);
			else waiters.push({ match, resolve });
		});
	const send = (command: Record<string, unknown>) => child.stdin.write(`${JSON.stringify(command)}\n`);

	send({ id: "p1", type: "prompt", message: 'weather {"city":"Oslo"}' });
	const accepted = await next((f) => f.type === "response" && f.id === "p1");
	assert.equal(accepted.success, true);
	const end = await next((f) => f.type === "agent_end");
	assert.ok(end);
	assert.ok(frames.some((f) => f.type === "tool_execution_end" && f.toolName === "weather"));

	send({ id: "s1", type: "get_state" });
	const state = (await next((f) => f.type === "response" && f.id === "s1")) as unknown as {
		data: { model: { provider: string; id: string }; messageCount: number };
	};
	assert.deepEqual([state.data.model.provider, state.data.model.id], ["pier", "demo"]);
	assert.equal(state.data.messageCount, 5, "pi 1.6's system message and two turns");

	send({ id: "bad", type: "no_such_command" });
	// pi answers an unknown command by name (it does not echo the id of a command it cannot parse).
	const bad = await next((f) => f.type === "response" && f.command === "no_such_command");
	assert.equal(bad.success, false);
	assert.match(String(bad.error), /Unknown command/);
});

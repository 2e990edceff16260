/**
 * An ask in RPC mode is pi's `extension_ui_request` of method `select` with the four choices; the client's
 * "Reject always" refuses the call (the model sees the rule and file) and writes the deny rule.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { cleanEnv, PIER_BIN, REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

type Frame = Record<string, unknown> & { type: string };

test("an ask over RPC is a select request; Reject always refuses and writes the deny rule", async (t) => {
	using dir = tempDir();
	const agent = join(dir.path, "agent");
	const project = join(dir.path, "project");
	mkdirSync(agent);
	mkdirSync(project);
	const file = join(agent, "settings.json");
	writeFileSync(file, JSON.stringify({ permissions: { ask: ["bash(touch *)"] } }));
	const child = spawn(
		process.execPath,
		[PIER_BIN, "--mode", "rpc", "--no-session", "-e", join(REPO_ROOT, "examples/extensions/weather.ts")],
		{ cwd: project, env: cleanEnv(agent), stdio: ["pipe", "pipe", "pipe"] },
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

	send({ id: "p1", type: "prompt", message: 'bash {"command":"touch by-rpc"}' });
	const ask = await next((f) => f.type === "extension_ui_request" && f.method === "select");
	assert.equal(ask.title, `Allow bash: touch by-rpc? (ask rule "bash(touch *)" in ${file})`);
	assert.deepEqual(ask.options, ["Allow once", "Allow always", "Reject once", "Reject always"]);
	send({ type: "extension_ui_response", id: ask.id, value: "Reject always" });
	const end = (await next((f) => f.type === "tool_execution_end")) as unknown as {
		isError: boolean;
		result: { content: { text: string }[] };
	};
	assert.equal(end.isError, true);
	assert.equal(
		end.result.content[0]!.text,
		`pier permissions: you rejected bash: touch by-rpc (it asks by the rule "bash(touch *)" in ${file})`,
	);
	await next((f) => f.type === "agent_end");
	assert.equal(existsSync(join(project, "by-rpc")), false);
	assert.deepEqual(JSON.parse(readFileSync(file, "utf8")).permissions, {
		ask: ["bash(touch *)"],
		deny: ["bash(touch by-rpc)"],
	});
});

/**
 * Issue 10 finding 1: a QuickJS extension declaring only `event_hooks` answered the model's `bash` call
 * with its own command and the host ran it. Now such an answer needs the user's grant: without it the call
 * runs as the model made it, the user is told which grant is missing and how to give it, and the extension
 * hears the same through its `permission_denied` hook. `pier grant` (the real CLI) makes the rewrite apply.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { type Gate, type PowerUse, toPiHookResult } from "../../src/extensions/bridge/hook-results.js";
import { jsonLines, REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "quickjs");
const EXTENSION = join(FIXTURES, "hostile-rewrite");
const ID = "qjs-rewrite";

// Loaded with -e, not installed: `pier grant` names it by its directory (a grant binds to that directory).
const denial = (what: string, grant: string, id = ID, dir = EXTENSION) =>
	`extension "${id}" may not ${what}: it lacks the "${grant}" grant (grant it with: pier grant ${dir} ${grant})`;

async function run(agentDir: string, cwd: string, prompt: string, extension = EXTENSION) {
	const result = await runPier(["run", "--mode", "json", "--no-session", "-e", extension, prompt], {
		agentDir,
		cwd,
		timeoutMs: 60_000,
	});
	assert.equal(result.code, 0, result.stderr);
	const events = jsonLines(result.stdout);
	const start = events.find((e) => e.type === "tool_execution_start") as { args?: Record<string, unknown> };
	const end = events.find((e) => e.type === "tool_execution_end") as {
		result?: { content: { text: string }[] };
		isError?: boolean;
	};
	return { ...result, args: start?.args, output: end?.result?.content.map((c) => c.text).join("") ?? "", end };
}

describe("a QuickJS extension's tool_call answer (finding 1)", () => {
	test("rewriting a bash command needs the run grant; pier grant gives it", async () => {
		using agent = tempDir();
		using before = tempDir("pier-project-");
		const denied = await run(agent.path, before.path, 'bash {"command":"echo made-by-model > model-file"}');
		assert.equal(existsSync(join(before.path, "hostile-marker")), false, "the extension's command must not run");
		assert.equal(readFileSync(join(before.path, "model-file"), "utf8"), "made-by-model\n");
		assert.deepEqual(denied.args, { command: "echo made-by-model > model-file" });
		const message = denial("replace the input of bash", "run");
		assert.ok(denied.stderr.includes(message), denied.stderr);

		const granted = await runPier(["grant", EXTENSION, "run"], { agentDir: agent.path });
		assert.equal(granted.code, 0, granted.stderr);
		assert.match(granted.stdout, /extension "qjs-rewrite" in .* now has the grants: run/);

		using after = tempDir("pier-project-");
		const applied = await run(agent.path, after.path, 'bash {"command":"echo made-by-model > model-file"}');
		assert.match(readFileSync(join(after.path, "hostile-marker"), "utf8"), /^uid=/);
		assert.equal(existsSync(join(after.path, "model-file")), false);
		assert.doesNotMatch(applied.stderr, /may not replace/);

		const revoked = await runPier(["revoke", ID], { agentDir: agent.path });
		assert.equal(revoked.code, 0, revoked.stderr);
		assert.match(revoked.stdout, /extension "qjs-rewrite" now has no grants/);
		using again = tempDir("pier-project-");
		await run(agent.path, again.path, 'bash {"command":"echo made-by-model > model-file"}');
		assert.equal(existsSync(join(again.path, "hostile-marker")), false, "revoking takes the power back");
	});

	test("a process extension's rewrite needs no grant: it already runs as the user's code", async () => {
		using agent = tempDir();
		using project = tempDir("pier-project-");
		const processRewrite = join(REPO_ROOT, "test", "fixtures", "process", "rewrite");
		const result = await run(agent.path, project.path, 'bash {"command":"echo by-model > model-file"}', processRewrite);
		assert.match(readFileSync(join(project.path, "process-marker"), "utf8"), /^uid=/);
		assert.doesNotMatch(result.stderr, /may not/);
	});

	test("the denied extension hears of it through its permission_denied hook", async () => {
		using agent = tempDir();
		using project = tempDir("pier-project-");
		const listener = join(FIXTURES, "hostile-listener");
		const denied = await run(agent.path, project.path, 'bash {"command":"echo made-by-model"}', listener);
		assert.equal(existsSync(join(project.path, "hostile-marker")), false);
		const message = denial("replace the input of bash", "run", "qjs-listener", listener);
		assert.ok(denied.stderr.includes(message), denied.stderr);
		assert.equal(denied.output, `made-by-model | heard: tool_call/bash/run: ${message}`);
	});

	test("rewriting a write needs the write grant (run is not enough)", async () => {
		using agent = tempDir();
		assert.equal((await runPier(["grant", EXTENSION, "run"], { agentDir: agent.path })).code, 0);
		using before = tempDir("pier-project-");
		const denied = await run(agent.path, before.path, 'write {"path":"model-file","content":"by the model"}');
		assert.equal(existsSync(join(before.path, "hostile-marker")), false);
		assert.equal(readFileSync(join(before.path, "model-file"), "utf8"), "by the model");
		assert.ok(denied.stderr.includes(denial("replace the input of write", "write")), denied.stderr);

		assert.equal((await runPier(["grant", EXTENSION, "write"], { agentDir: agent.path })).code, 0);
		using after = tempDir("pier-project-");
		await run(agent.path, after.path, 'write {"path":"model-file","content":"by the model"}');
		assert.equal(readFileSync(join(after.path, "hostile-marker"), "utf8"), "written by the extension");
		assert.equal(existsSync(join(after.path, "model-file")), false);
	});

	test("rewriting an edit needs the write grant", async () => {
		using agent = tempDir();
		const prompt = 'edit {"path":"notes.txt","edits":[{"oldText":"one","newText":"two"}]}';
		using before = tempDir("pier-project-");
		writeFileSync(join(before.path, "notes.txt"), "one\n");
		writeFileSync(join(before.path, "victim.txt"), "safe\n");
		const denied = await run(agent.path, before.path, prompt);
		assert.equal(readFileSync(join(before.path, "victim.txt"), "utf8"), "safe\n");
		assert.equal(readFileSync(join(before.path, "notes.txt"), "utf8"), "two\n", "the model's edit runs as made");
		assert.ok(denied.stderr.includes(denial("replace the input of edit", "write")), denied.stderr);

		assert.equal((await runPier(["grant", EXTENSION, "write"], { agentDir: agent.path })).code, 0);
		using after = tempDir("pier-project-");
		writeFileSync(join(after.path, "notes.txt"), "one\n");
		writeFileSync(join(after.path, "victim.txt"), "safe\n");
		await run(agent.path, after.path, prompt);
		assert.equal(readFileSync(join(after.path, "victim.txt"), "utf8"), "edited by the extension\n");
		assert.equal(readFileSync(join(after.path, "notes.txt"), "utf8"), "one\n");
	});

	test("an answer with a __proto__ key is refused, even with the grant", async () => {
		using agent = tempDir();
		assert.equal((await runPier(["grant", EXTENSION, "run"], { agentDir: agent.path })).code, 0);
		using project = tempDir("pier-project-");
		const refused = await run(agent.path, project.path, 'bash {"command":"echo proto-test > model-file"}');
		assert.equal(refused.end?.isError, true);
		assert.match(
			refused.output,
			/invalid tool_call result: a "__proto__" key \(at \/input\/__proto__\) is not allowed/,
		);
		assert.equal(existsSync(join(project.path, "model-file")), false, "a refused answer blocks the call");
	});
});

describe("hook answers merge without prototype effects", () => {
	const allow: Gate = () => true;
	const event = (input: Record<string, unknown>) => ({
		type: "tool_call",
		toolName: "custom",
		toolCallId: "c1",
		input,
	});

	test("a __proto__ key anywhere in an answer is refused and the live input keeps its prototype", () => {
		const live = event({ command: "echo model" });
		// As the answer arrives: JSON.parse makes "__proto__" an own key, which Object.assign would set as the prototype.
		const answer = JSON.parse('{"input":{"command":"echo x","__proto__":{"polluted":"yes"}}}');
		assert.throws(() => toPiHookResult("tool_call", answer, live, allow), /"__proto__" key \(at \/input\/__proto__\)/);
		assert.equal(Object.getPrototypeOf(live.input), Object.prototype);
		assert.equal((live.input as { polluted?: unknown }).polluted, undefined);
		assert.deepEqual(live.input, { command: "echo model" });
		const nested = JSON.parse('{"input":{"a":[{"b":{"__proto__":{"polluted":"yes"}}}]}}');
		assert.throws(() => toPiHookResult("tool_call", nested, live, allow), /at \/input\/a\/0\/b\/__proto__/);
		const message = JSON.parse('{"message":{"role":"assistant","content":[],"__proto__":{"polluted":"yes"}}}');
		assert.throws(() => toPiHookResult("message_end", message, { message: { role: "assistant", content: [] } }, allow));
		assert.equal(({} as { polluted?: unknown }).polluted, undefined);
	});

	test("constructor and prototype keys are plain data on the live input", () => {
		const live = event({ old: 1 });
		const answer = JSON.parse('{"input":{"constructor":{"name":"x"},"prototype":{"polluted":"yes"},"k":"v"}}');
		toPiHookResult("tool_call", answer, live, allow);
		assert.equal(Object.getPrototypeOf(live.input), Object.prototype);
		assert.deepEqual(Object.keys(live.input), ["constructor", "prototype", "k"]);
		assert.deepEqual(live.input.constructor, { name: "x" });
		assert.equal(Object.hasOwn(live.input, "old"), false);
		assert.equal(({} as { polluted?: unknown }).polluted, undefined);
		assert.equal(Object.prototype.constructor, Object);
	});

	test("a denied replacement leaves the input as the model made it; an unchanged one asks nothing", () => {
		const asked: PowerUse[] = [];
		const deny: Gate = (use) => {
			asked.push(use);
			return false;
		};
		const live = event({ command: "echo model" });
		assert.equal(toPiHookResult("tool_call", { input: { command: "id > marker" } }, live, deny), undefined);
		assert.deepEqual(live.input, { command: "echo model" });
		assert.deepEqual(asked, [{ kind: "tool_input", tool: "custom", toolCallId: "c1" }]);
		// A block in the same answer still applies: it only takes power away.
		assert.deepEqual(toPiHookResult("tool_call", { block: true, input: { command: "x" } }, live, deny), {
			block: true,
		});
		asked.length = 0;
		toPiHookResult("tool_call", { input: { command: "echo model" } }, live, deny);
		assert.deepEqual(asked, []);
	});

	test("a message_end answer adding or changing a tool call goes through the gate", () => {
		const asked: PowerUse[] = [];
		const deny: Gate = (use) => {
			asked.push(use);
			return false;
		};
		const made = { type: "toolCall", id: "t1", name: "read", arguments: { path: "a" } };
		const live = { type: "message_end", message: { role: "assistant", content: [made] } };
		const injected = { type: "toolCall", id: "t2", name: "bash", arguments: { command: "id > marker" } };
		const answer = { message: { role: "assistant", content: [made, injected] } };
		assert.equal(toPiHookResult("message_end", answer, live, deny), undefined);
		assert.deepEqual(asked, [{ kind: "tool_call", tool: "bash", toolCallId: "t2" }]);
		const changed = { message: { role: "assistant", content: [{ ...made, arguments: { path: "/etc/shadow" } }] } };
		assert.equal(toPiHookResult("message_end", changed, live, deny), undefined);
		const textOnly = { message: { role: "assistant", content: [made, { type: "text", text: "hi" }] } };
		assert.deepEqual(toPiHookResult("message_end", textOnly, live, deny), textOnly);
	});

	test("user_bash results and resource paths go through the gate", () => {
		const deny: Gate = () => false;
		const bash = { type: "user_bash", command: "ls", excludeFromContext: false, cwd: "/" };
		assert.equal(toPiHookResult("user_bash", { result: { output: "fake", exitCode: 0 } }, bash, deny), undefined);
		// pi 1.6 takes only a whole result: the fields an answer leaves out are filled in.
		assert.deepEqual(toPiHookResult("user_bash", { result: { output: "ok" } }, bash, allow), {
			result: { output: "ok", exitCode: undefined, cancelled: false, truncated: false },
		});
		assert.equal(toPiHookResult("user_bash", {}, bash, allow), undefined, "no result: pi runs the command");
		assert.equal(toPiHookResult("resources_discover", { skillPaths: ["/etc"] }, {}, deny), undefined);
		assert.deepEqual(toPiHookResult("resources_discover", { skillPaths: [] }, {}, deny), { skillPaths: [] });
	});
});

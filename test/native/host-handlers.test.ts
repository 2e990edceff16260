/**
 * The string handlers of the ABI through pier: resources_discover into the hook's answer, before_agent_start
 * replacing the system prompt once per prompt (cached), a command with its selector follow-up shown through
 * pier's UI and the plugin re-invoked with the choice, and a native provider answering `pier run --model`.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RuntimeHost } from "../../src/extensions/host/instance.js";
import type { UiRequest } from "../../src/extensions/protocol/frames.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";
import { echo, probe, spec } from "./host-helpers.js";

describe("native string handlers", () => {
	test("the echo stub: discovery, the cached system prompt transform, MessageEnd, and its stats command", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		await host.load([spec(await echo(dir.path))]);
		const [found] = await host.emit("resources_discover", { cwd: dir.path, reason: "startup" });
		assert.deepEqual(found!.result, { ok: true, value: { skillPaths: ["plugin-stub-discovered/SKILL.md"] } });
		const event = { prompt: "hello", images: [], systemPrompt: "BASE PROMPT" };
		const [first] = await host.emit("before_agent_start", event);
		const value = (first!.result as { value: { systemPrompt: string } }).value;
		assert.match(value.systemPrompt, /^\[plugin-stub says: /);
		assert.match(value.systemPrompt, /BASE PROMPT/);
		const [again] = await host.emit("before_agent_start", event);
		assert.deepEqual(again!.result, first!.result);
		await host.emit("message_end", { message: { role: "assistant", content: [] } });
		const stats = String(await host.invokeCommand("echo-stats", ""));
		assert.match(stats, /message ends: 1/);
		assert.match(stats, /discovers: 1/);
		assert.match(stats, /prompt transforms: 1/, "the second identical prompt came from the cache");
	});

	test("a command's selector is shown through pier's UI and the plugin is re-invoked with the choice", async (t) => {
		using dir = tempDir();
		const { host } = testHost({ mode: "tui" });
		t.after(() => host.shutdown("test end"));
		const asked: UiRequest[] = [];
		const ui: RuntimeHost = {
			hasUi: true,
			ui: async (request) => {
				asked.push(request);
				return request.type === "select"
					? { type: "selected", value: request.options[1]!.value }
					: ({ type: "ack" } as never);
			},
			action: async () => null,
		};
		host.setRuntimeHost(ui);
		await host.load([spec(await probe(dir.path))]);
		assert.equal(await host.invokeCommand("probe", ""), 'probe selected "beta"');
		const select = asked.find((r) => r.type === "select") as Extract<UiRequest, { type: "select" }>;
		assert.deepEqual(
			select.options.map((o) => o.value),
			["alpha", "beta"],
		);
	});

	test("a native provider answers a pier run --model prompt", async () => {
		using dir = tempDir();
		const pkg = await echo(dir.path);
		const result = await runPier(["run", "-e", pkg, "--model", "stub-provider/stub-model", "hi there"], {
			agentDir: dir.path,
		});
		assert.equal(result.code, 0, result.stderr);
		assert.equal(result.stdout.trim(), "from-stub-provider");
	});
});

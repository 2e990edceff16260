/**
 * Protocol providers end to end: a Node kit process extension registers model providers, and the real
 * `pier run --model <provider>/<model>` is answered by it (bridge/providers.ts).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { jsonLines, REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const KIT_PROVIDER = join(REPO_ROOT, "test", "fixtures", "process", "kit-provider");

describe("protocol providers in pier run", () => {
	test("--model names a listed model of an extension's provider and its answer is printed", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "-e", KIT_PROVIDER, "--model", "echo-llm/small", "hi"], {
			agentDir: dir.path,
		});
		assert.equal(result.code, 0, result.stderr);
		assert.equal(result.stdout.trim(), "echo-llm/small heard: hi");
	});

	test("the assistant message keeps pi's model fields and the extension's usage", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "--mode", "json", "-e", KIT_PROVIDER, "--model", "echo-llm/large", "hey"], {
			agentDir: dir.path,
		});
		assert.equal(result.code, 0, result.stderr);
		const end = jsonLines(result.stdout).findLast(
			(e) => e.type === "message_end" && (e.message as { role: string }).role === "assistant",
		) as unknown as { message: Record<string, unknown> & { usage: Record<string, number> } };
		assert.equal(end.message.provider, "echo-llm");
		assert.equal(end.message.model, "large");
		assert.equal(end.message.api, "pier-extension/kit-provider/echo-llm");
		assert.equal(end.message.stopReason, "stop");
		assert.equal(end.message.usage.input, 3);
		assert.equal(end.message.usage.totalTokens, 8);
	});

	test("an unlisted model of a provider with a model list is refused, with the known models", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "-e", KIT_PROVIDER, "--model", "echo-llm/huge", "hi"], {
			agentDir: dir.path,
		});
		assert.notEqual(result.code, 0);
		assert.match(result.stderr, /unknown model "echo-llm\/huge"/);
		assert.match(result.stderr, /echo-llm\/small/);
		assert.match(result.stderr, /any-llm\/default/);
	});

	test("a provider without models answers its default and any model --model asks for", async () => {
		using dir = tempDir();
		for (const model of ["default", "whatever-7b"]) {
			const result = await runPier(["run", "-e", KIT_PROVIDER, "--model", `any-llm/${model}`, "ping"], {
				agentDir: dir.path,
			});
			assert.equal(result.code, 0, result.stderr);
			assert.equal(result.stdout.trim(), `any-llm/${model} heard: ping`);
		}
	});

	test("streamed deltas arrive as message updates before the answer", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "--mode", "json", "-e", KIT_PROVIDER, "--model", "echo-llm/small", "stream"], {
			agentDir: dir.path,
		});
		assert.equal(result.code, 0, result.stderr);
		const deltas = jsonLines(result.stdout)
			.filter((e) => e.type === "message_update")
			.map((e) => e.assistantMessageEvent as { type: string; delta?: string })
			.filter((e) => e.type === "text_delta")
			.map((e) => e.delta);
		assert.deepEqual(deltas, ["streamed ", "reply"]);
	});

	test("a malformed answer is an error naming the extension and the field", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "-e", KIT_PROVIDER, "--model", "echo-llm/small", "malformed"], {
			agentDir: dir.path,
		});
		assert.notEqual(result.code, 0);
		assert.match(
			result.stdout + result.stderr,
			/extension kit-provider provider "echo-llm" answered with an invalid assistant message: content\[0\]\.text must be a string/,
		);
	});

	test("a failing provider is an error naming the extension and its message", async () => {
		using dir = tempDir();
		const result = await runPier(["run", "-e", KIT_PROVIDER, "--model", "echo-llm/small", "throw"], {
			agentDir: dir.path,
		});
		assert.notEqual(result.code, 0);
		assert.match(
			result.stdout + result.stderr,
			/extension kit-provider provider "echo-llm" failed: the fixture provider refuses/,
		);
	});
});

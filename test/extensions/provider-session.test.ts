/**
 * Protocol providers in a library session: a turn the user aborts, and one the extension never answers, end as
 * pi's aborted / error assistant messages naming the extension, and the session goes on.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { AssistantMessage } from "@earendil-works/pi-ai";
import { createPierSession } from "../../src/index.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const KIT_PROVIDER = join(REPO_ROOT, "test", "fixtures", "process", "kit-provider");

const session = (dir: string, invocationMs?: number) =>
	createPierSession({
		cwd: dir,
		agentDir: dir,
		session: { kind: "memory" },
		extensionPaths: [KIT_PROVIDER],
		model: "echo-llm/small",
		...(invocationMs ? { extensionHost: { timeouts: { invocationMs } } } : {}),
	});

const lastAssistant = (messages: unknown[]) =>
	messages.findLast((m) => (m as { role: string }).role === "assistant") as AssistantMessage;

describe("protocol providers in a session", () => {
	test("an abort cancels the provider invocation; the next turn is answered", async () => {
		using dir = tempDir();
		const pier = await session(dir.path);
		try {
			const turn = pier.session.prompt("hang");
			for (let i = 0; i < 200 && pier.session.isStreaming === false; i++) await new Promise((r) => setTimeout(r, 10));
			await new Promise((r) => setTimeout(r, 100));
			await pier.session.abort();
			await turn;
			const aborted = lastAssistant(pier.session.messages);
			assert.equal(aborted.stopReason, "aborted");
			assert.match(aborted.errorMessage ?? "", /extension kit-provider provider "echo-llm" failed/);
			await pier.session.prompt("again");
			assert.deepEqual(lastAssistant(pier.session.messages).content, [
				{ type: "text", text: "echo-llm/small heard: again" },
			]);
		} finally {
			await pier.dispose();
		}
	});

	test("an unanswered turn times out with the invocation timeout", async () => {
		using dir = tempDir();
		const pier = await session(dir.path, 300);
		try {
			await pier.session.prompt("hang");
			const failed = lastAssistant(pier.session.messages);
			assert.equal(failed.stopReason, "error");
			assert.match(
				failed.errorMessage ?? "",
				/extension kit-provider provider "echo-llm" failed: extension kit-provider did not answer within 300 ms/,
			);
		} finally {
			await pier.dispose();
		}
	});
});

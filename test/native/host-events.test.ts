/**
 * Native event handlers: pier's hooks reach the probe's handlers with the payload arm of their tag, and the
 * codes are honoured: ABORT blocks a tool_call and cancels a compaction, CLAIMED handles an input, and
 * elsewhere they change nothing. The last test drives a real `pier run`, so the producers are pi's own.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { jsonLines, runPier, tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";
import { probe, report, spec } from "./host-helpers.js";

describe("native events through the host", () => {
	test("message_end arrives as MessageEnd with the message arm; the vetoes are honoured", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		await host.load([spec(await probe(dir.path))]);
		const message = { role: "assistant", content: [{ type: "text", text: "hello" }], stopReason: "stop" };
		const [end] = await host.emit("message_end", { message });
		assert.deepEqual(end!.result, { ok: true, value: null });

		const [blocked] = await host.emit("tool_call", { toolCallId: "t1", toolName: "forbidden", input: { a: 1 } });
		assert.deepEqual(blocked!.result, {
			ok: true,
			value: { block: true, reason: "blocked by native plugin native-probe" },
		});
		const [allowed] = await host.emit("tool_call", { toolCallId: "t2", toolName: "read", input: {} });
		assert.deepEqual(allowed!.result, { ok: true, value: null });
		const [compact] = await host.emit("session_before_compact", { preparation: {}, branchEntries: [] });
		assert.deepEqual(compact!.result, { ok: true, value: { cancel: true } });
		const [claimed] = await host.emit("input", { text: "probe-claim please", images: [], source: "interactive" });
		assert.deepEqual(claimed!.result, { ok: true, value: { action: "handled" } });
		const [plain] = await host.emit("input", { text: "hello", images: [], source: "interactive" });
		assert.deepEqual(plain!.result, { ok: true, value: null });
		await host.emit("tool_result", {
			toolCallId: "t3",
			toolName: "read",
			input: {},
			content: [{ type: "text", text: "r" }],
			isError: true,
		});

		const seen = report(await host.invokeTool("event_counts", "e1", {}));
		assert.equal(seen.counts.MessageEnd, 1);
		assert.deepEqual(JSON.parse(String(seen.last.MessageEnd!.message)), message);
		assert.equal(seen.counts.ToolCall, 2);
		assert.equal(seen.last.ToolCall!.toolName, "read");
		assert.equal(seen.last.ToolCall!.toolCallId, "t2");
		assert.equal(seen.counts.SessionBeforeCompact, 1);
		assert.equal(seen.counts.Input, 2);
		assert.match(String(seen.last.Input!.data), /"text":"hello"/);
		assert.equal(seen.last.ToolResult!.isError, true);
		assert.deepEqual(JSON.parse(String(seen.last.ToolResult!.result)).content, [{ type: "text", text: "r" }]);
	});

	test("in tui mode the first session_start also fires BeforeTuiStart, ahead of SessionStart", async (t) => {
		using dir = tempDir();
		const { host } = testHost({ mode: "tui" });
		t.after(() => host.shutdown("test end"));
		await host.load([spec(await probe(dir.path))]);
		await host.emit("session_start", { reason: "startup" });
		const seen = report(await host.invokeTool("event_counts", "e1", {}));
		assert.equal(seen.counts.SessionStart, 1);
		assert.equal(seen.counts.BeforeTuiStart, 1);
	});
});

describe("native events in a real pier run", () => {
	test("pi's own producers feed the handlers, and the ToolCall veto blocks the forbidden tool", async () => {
		using dir = tempDir();
		const pkg = await probe(dir.path);
		const blocked = await runPier(["run", "-e", pkg, "forbidden {}"], { agentDir: dir.path });
		assert.equal(blocked.code, 0, blocked.stderr);
		assert.doesNotMatch(blocked.stdout, /forbidden ran/);
		assert.match(blocked.stdout, /blocked by native plugin native-probe/);

		const counted = await runPier(["run", "--mode", "json", "-e", pkg, "event_counts {}"], { agentDir: dir.path });
		assert.equal(counted.code, 0, counted.stderr);
		const end = jsonLines(counted.stdout).find((e) => e.type === "tool_execution_end") as unknown as {
			result: { content: { text: string }[] };
		};
		const seen = JSON.parse(end.result.content[0]!.text) as { counts: Record<string, number> };
		for (const tag of [
			"SessionStart",
			"AgentStart",
			"TurnStart",
			"MessageStart",
			"MessageEnd",
			"ToolCall",
			"ToolExecutionStart",
		]) {
			assert.ok((seen.counts[tag] ?? 0) >= 1, `${tag} reached the plugin: ${JSON.stringify(seen.counts)}`);
		}
	});
});

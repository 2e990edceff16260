/**
 * Repeated native tool calls through one plugin host: every later call answers as the first did (partials
 * then the result, errors, a pending call's cancel and wake), and a runtime action reads its own call's context.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { RuntimeHost } from "../../src/extensions/host/instance.js";
import type { ContextSnapshot } from "../../src/extensions/protocol/frames.js";
import { tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";
import { crash, echo, probe, report, slowAfterCancel, spec, textOf } from "./host-helpers.js";

const quietSession: RuntimeHost = {
	hasUi: false,
	ui: async () => ({ type: "ack" }) as never,
	action: async () => null,
};

/** A context snapshot as pier sends one with an invocation, with `probe-flag` set to `value`. */
const withFlag = (value: boolean, sessionId: string) =>
	({
		sessionId,
		cwd: "/",
		projectTrusted: true,
		isIdle: true,
		hasPendingMessages: false,
		flagValues: { "probe-flag": value },
	}) as unknown as ContextSnapshot;

describe("repeated native tool calls", () => {
	test("echo: every later call still sends its partial before its result, and the same text", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		await host.load([spec(await echo(dir.path))]);
		for (let i = 0; i < 5; i++) {
			const seen: string[] = [];
			const result = await host.invokeTool(
				"echo",
				`c${i}`,
				{ text: `n${i}` },
				{ onUpdate: (update) => seen.push(textOf(update)) },
			);
			assert.equal(textOf(result), `echo: n${i}`);
			assert.deepEqual(seen, ["..."], `call ${i}: one partial, delivered before the result`);
		}
	});

	test("a failing first poll, a refused execute and a panic answer the same after the first call", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		await host.load([spec(await crash(dir.path))]);
		assert.equal(textOf(await host.invokeTool("ok", "warm", {})), "ok");
		for (let i = 0; i < 2; i++) {
			await assert.rejects(host.invokeTool("panic_poll", `p${i}`, {}), /poll panicked \(contained\)/);
			await assert.rejects(host.invokeTool("panic_execute", `e${i}`, {}), /null handle for 'panic_execute'/);
			assert.equal(textOf(await host.invokeTool("ok", `o${i}`, {})), "ok");
		}
	});

	test("a pending call: the agent's abort cancels it, destroy runs once", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		await host.load([spec(await probe(dir.path))]);
		await host.invokeTool("event_counts", "warm", {});
		const controller = new AbortController();
		const pending = host.invokeTool("slow", "s1", {}, { signal: controller.signal });
		await sleep(150);
		controller.abort();
		await assert.rejects(pending, /cancel/);
		const slow = await slowAfterCancel(host);
		assert.deepEqual([slow.started, slow.cancels, slow.destroyed], [1, 1, 1]);
		// And a wake-driven one finishes on its wake, polled once per wake.
		assert.match(JSON.stringify(await host.invokeTool("sleepy", "z1", { ms: 100 })), /sle|wok|100/i);
		const sleepy = report(await host.invokeTool("event_counts", "e2", {})).sleepy;
		assert.ok(sleepy.polls <= 4, `polled ${sleepy.polls} times`);
	});

	test("a runtime_action inside a call reads that call's context, not an earlier one's", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		host.setRuntimeHost(quietSession);
		await host.load([spec(await probe(dir.path))]);
		const flag = async (callId: string, context: ContextSnapshot) => {
			const answer = JSON.parse(
				textOf(await host.invokeTool("runtime_action", callId, { id: 16, args: { name: "probe-flag" } }, { context })),
			) as { code: number; out: string };
			assert.equal(answer.code, 0);
			return JSON.parse(answer.out).value;
		};
		assert.equal(await flag("f1", withFlag(false, "s-1")), false);
		assert.equal(await flag("f2", withFlag(true, "s-2")), true);
		assert.equal(await flag("f3", withFlag(false, "s-3")), false);
	});
});

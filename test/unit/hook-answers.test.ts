/**
 * The hook table's answer schemas (kit/core/hook-table.mjs) are the host's answer checks: a hook whose answers the
 * guests reduce has one, and an answer outside it is refused naming the field, for pi's hooks and pier's own.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { HOOK_NAME_LIST, HOOKS } from "../../kit/core/hook-table.mjs";
import { HookResultError, hookAnswerProblem, toPiHookResult } from "../../src/extensions/bridge/hook-results.js";

describe("hook answers, from the one table", () => {
	test("every hook whose answers feed forward, reduce or stop the chain declares its answer schema", () => {
		const reduced = HOOK_NAME_LIST.filter((n) => {
			const spec = HOOKS[n]!;
			return spec.feedForward || spec.reduce || spec.stops || spec.inPlace;
		});
		assert.deepEqual(
			reduced.filter((n) => !HOOKS[n]!.answer),
			[],
		);
	});

	test("an answer outside its schema is refused, naming where", () => {
		assert.equal(hookAnswerProblem("tool_call", { block: true, reason: "no" }), undefined);
		assert.match(hookAnswerProblem("tool_call", { block: "yes" }) ?? "", /^\/block /);
		assert.match(hookAnswerProblem("tool_call", { blocked: true }) ?? "", /blocked/);
		assert.match(hookAnswerProblem("input", { action: "transform" }) ?? "", /./, "transform needs its text");
		assert.equal(hookAnswerProblem("input", { action: "transform", text: "t" }), undefined);
		assert.throws(
			() => toPiHookResult("session_before_fork", { cancel: 1 }, {}),
			(e: unknown) => e instanceof HookResultError && /invalid session_before_fork result .*\/cancel/.test(e.message),
		);
	});

	test("pier's own hooks are held to the table too: headers map names to text or null, trust answers are booleans", () => {
		assert.equal(hookAnswerProblem("before_provider_headers", { headers: { "x-a": "1", "x-b": null } }), undefined);
		assert.ok(hookAnswerProblem("before_provider_headers", { headers: ["x-a"] }), "an array is not a header map");
		assert.ok(hookAnswerProblem("before_provider_headers", { headers: { "x-a": 1 } }));
		assert.ok(hookAnswerProblem("before_provider_headers", {}), "headers is required");
		assert.equal(hookAnswerProblem("trust_decision", { approve: false }), undefined);
		assert.ok(hookAnswerProblem("trust_decision", {}), "approve is required");
		assert.ok(hookAnswerProblem("project_trust", { trusted: "yes" }));
	});

	test("an advisory hook has no schema: its answers are ignored, whatever they are", () => {
		assert.equal(HOOKS.turn_end!.answer, undefined);
		assert.equal(hookAnswerProblem("turn_end", { anything: [1, 2] }), undefined);
		assert.equal(toPiHookResult("turn_end", { anything: true }, {}), undefined);
	});
});

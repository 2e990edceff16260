/**
 * A plugin's `runtime_action` is answered synchronously from inside its poll: the plugin host writes the
 * request and blocks on pier's answer (protocol-io.ts), while other frames wait their turn. Shown with the
 * probe's `runtime_action` tool against a session side that answers (and one that fails).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { RuntimeHost } from "../../src/extensions/host/instance.js";
import type { RuntimeAction } from "../../src/extensions/protocol/frames.js";
import { tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";
import { probe, spec, textOf } from "./host-helpers.js";

function session(actions: RuntimeAction[]): RuntimeHost {
	return {
		hasUi: false,
		ui: async () => ({ type: "ack" }) as never,
		action: async (action) => {
			actions.push(action);
			if (action.kind === "get_active_tools") return ["read", "echo"];
			if (action.kind === "set_session_name") throw new Error("names are frozen here");
			return null;
		},
	};
}

const answer = (value: unknown) => JSON.parse(textOf(value)) as { code: number; out: string };

describe("runtime actions from a native plugin", () => {
	test("answered synchronously inside poll with the documented codes; concurrent calls keep their frames", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const actions: RuntimeAction[] = [];
		host.setRuntimeHost(session(actions));
		await host.load([spec(await probe(dir.path))]);

		const tools = answer(await host.invokeTool("runtime_action", "a1", { id: 4 }));
		assert.equal(tools.code, 0);
		assert.deepEqual(JSON.parse(tools.out), { tools: ["read", "echo"] });
		const refused = answer(await host.invokeTool("runtime_action", "a2", { id: 3, args: { name: "x" } }));
		assert.equal(refused.code, 1);
		assert.match(JSON.parse(refused.out).error, /names are frozen here/);
		const unknown = answer(await host.invokeTool("runtime_action", "a3", { id: 23 }));
		assert.deepEqual(unknown, { code: 2, out: JSON.stringify({ error: "unknown runtime action id 23" }) });

		// While one call blocks on pier, the others' frames queue and are served after it, in order.
		const many = await Promise.all(
			Array.from({ length: 20 }, (_, i) => host.invokeTool("runtime_action", `m${i}`, { id: 4 })),
		);
		assert.ok(many.every((m) => answer(m).code === 0));
		assert.equal(actions.filter((a) => a.kind === "get_active_tools").length, 21);

		const rounds = 200;
		const timed = async (tool: string, args: unknown) => {
			const start = performance.now();
			for (let i = 0; i < rounds; i++) await host.invokeTool(tool, `t${i}`, args);
			return ((performance.now() - start) / rounds) * 1000;
		};
		const plain = await timed("forbidden", {});
		const withAction = await timed("runtime_action", { id: 4 });
		t.diagnostic(
			`tool call ${plain.toFixed(0)} µs; with one synchronous runtime_action ${withAction.toFixed(0)} µs (the round trip ≈ ${(withAction - plain).toFixed(0)} µs)`,
		);
	});
});

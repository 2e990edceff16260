/**
 * The plugin host's fast tool path (fast-tools.ts) on its own, with a scripted tool in place of a plugin:
 * which chunks it answers, which it leaves to the kit untouched, and that its response is the protocol's
 * frame byte for byte whether the plugin's text stands for the value or the value is rebuilt.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { FastTools } from "../../src/extensions/runtimes/native/fast-tools.js";
import type { NativeTool } from "../../src/extensions/runtimes/native/registry.js";
import type { FirstStep, ToolFns } from "../../src/extensions/runtimes/native/tool-ffi.js";
import { StepState } from "../../src/extensions/runtimes/native/tool-step.js";

/** A tool whose first step is Done with `text`, made through `first` as the C helper would; counts its calls. */
function scriptedTool(text: string): { tool: NativeTool; calls: string[] } {
	const calls: string[] = [];
	const unused = (name: string) => () => {
		throw new Error(`${name} should not be called`);
	};
	const fns: ToolFns = {
		first: (_callId, params): FirstStep => {
			calls.push(params);
			return { state: StepState.Done, handle: 1, tag: 1, text };
		},
		execute: unused("execute"),
		poll: unused("poll"),
		take: unused("take"),
		takeRaw: unused("takeRaw"),
		cancel: unused("cancel"),
		destroy: unused("destroy"),
	};
	return { tool: { name: "ok", description: "", parameters: {}, fns }, calls };
}

function fastPath(text = '{"content":[{"type":"text","text":"ok"}]}') {
	const { tool, calls } = scriptedTool(text);
	const written: string[] = [];
	const fast = new FastTools({
		tools: [tool],
		maxFrameBytes: 1024 * 1024,
		write: (lines) => written.push(lines),
		kit: () => assert.fail("nothing is handed over here"),
	});
	fast.seen("/work", undefined);
	return { fast, written, calls };
}

const invocation = (id: string, name = "ok") =>
	JSON.stringify({
		type: "request",
		id,
		generation: 1,
		request: { kind: "invoke", invocation: { kind: "tool", name, callId: "c1", arguments: { q: 1 } } },
	});

describe("the fast tool path", () => {
	test("answers a one-line tool invocation with the protocol's response frame", () => {
		const { fast, written, calls } = fastPath();
		assert.equal(fast.take(Buffer.from(`${invocation("h1")}\n`)), true);
		assert.deepEqual(written, [
			`${JSON.stringify({ type: "response", id: "h1", result: { status: "success", value: { content: [{ type: "text", text: "ok" }] } } })}\n`,
		]);
		assert.deepEqual(calls, ['{"q":1,"__rpi":{"cwd":"/work"}}']);
	});

	test("a result that cannot stand as it is is rebuilt into the same frame JSON.stringify makes", () => {
		const { fast, written } = fastPath('{"content":[{"type":"text","text":"ok"}],"details":{"n":1e400}}');
		const id = 'h"2\u2028';
		assert.equal(fast.take(Buffer.from(`${invocation(id)}\n`)), true);
		const value = { content: [{ type: "text", text: "ok" }], details: { n: Number.POSITIVE_INFINITY } };
		assert.deepEqual(written, [`${JSON.stringify({ type: "response", id, result: { status: "success", value } })}\n`]);
	});

	test("leaves to the kit, untouched, every chunk that is not exactly one such line", () => {
		const line = invocation("h3");
		const { fast, written, calls } = fastPath();
		// Not UTF-8, inside a string: decoded leniently it would be a valid frame.
		const notUtf8 = Buffer.from(`${line}\n`);
		notUtf8[notUtf8.indexOf('"c1"') + 1] = 0xff;
		const notMine = [
			notUtf8,
			Buffer.from(`\uFEFF${line}\n`), // a BOM the kit strips
			Buffer.from(`${line}\r\n`), // CRLF
			Buffer.from(`${line}\n${line}\n`), // two lines
			Buffer.from(line), // no LF yet
			Buffer.from(`${invocation("h4", "missing")}\n`), // a tool this plugin does not have
			Buffer.from(
				`${JSON.stringify({ type: "response", id: "x", result: { status: "success", value: '"kind":"tool"' } })}\n`,
			),
		];
		for (const chunk of notMine) assert.equal(fast.take(chunk), false, chunk.toString("latin1"));
		assert.deepEqual(written, []);
		assert.deepEqual(calls, []);
		const before = new FastTools({
			tools: [scriptedTool("{}").tool],
			maxFrameBytes: 1024,
			write: () => {},
			kit: () => {},
		});
		assert.equal(before.take(Buffer.from(`${line}\n`)), false, "before a kit invocation showed the cwd");
	});
});

/**
 * Native renderers and markdown transformers through pier's host (rpi's `RenderFn` shapes): the probe's message
 * and entry renderers answer `render_message` and `render_entry` with the input rpi gives them (plus `expanded`);
 * the C plugin's transformer answers `transform_markdown` for the assistant surface only, escapes intact; a
 * transformer that crashes its plugin host leaves the text as it was, names the extension once, and the other
 * plugin still draws; one that never returns costs the invocation timeout and is named the same way.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { renderEntry } from "../../src/extensions/bridge/entry-renderers.js";
import { markdownTransformsOf } from "../../src/extensions/bridge/markdown-transformers.js";
import { renderMessage } from "../../src/extensions/bridge/message-renderers.js";
import { tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";
import { cModule, probe, spec } from "./host-helpers.js";

const texts = (lines: { text: string }[][] | undefined) => lines?.map((line) => line.map((s) => s.text).join(""));

test("native renderers and a transformer answer pier's invocations; a crashing transformer costs its text only", async (t) => {
	using dir = tempDir();
	const { host, diagnostics } = testHost();
	t.after(() => host.shutdown("test end"));
	await host.load([spec(await probe(dir.path)), spec(await cModule(dir.path, "renderers", ["message_renderers"]))]);

	assert.equal(host.instances.filter((i) => i.isLive).length, 2, JSON.stringify(diagnostics));
	const message = await renderMessage(host, { customType: "probe-renderer", content: "hi", details: { a: 1 } });
	assert.deepEqual(texts(message), [
		'probe-renderer: {"customType":"probe-renderer","content":"hi","details":{"a":1},"expanded":false}',
	]);
	const entry = await renderEntry(host, { customType: "probe-entry", data: { n: 2 } }, { expanded: true });
	assert.deepEqual(texts(entry), ["probe-entry", '{"customType":"probe-entry","data":{"n":2},"expanded":true}']);
	const note = await renderMessage(host, { customType: "native-note", content: "x" });
	assert.equal(texts(note)?.[0], "[native-note] drawn by a C plugin");

	const transforms = markdownTransformsOf(host);
	const failures: string[] = [];
	transforms.onFailure((message) => failures.push(message));
	assert.deepEqual([...transforms.messageTypes], ["assistant"]);
	assert.equal(
		await transforms.transform('hello *world* "quoted"\nnext é', { messageType: "assistant" }),
		'HELLO *WORLD* "QUOTED"\nNEXT é',
	);
	assert.equal(await transforms.transform("hello", { messageType: "user" }), "hello");
	assert.equal(transforms.peek('hello *world* "quoted"\nnext é', "assistant"), 'HELLO *WORLD* "QUOTED"\nNEXT é');

	assert.equal(await transforms.transform("please CRASH-NOW", { messageType: "assistant" }), "please CRASH-NOW");
	assert.equal(failures.length, 1, failures.join("\n"));
	assert.match(
		failures[0]!,
		/^markdown transformer of extension c-renderers failed: .+; its text is shown untransformed$/,
	);
	assert.equal(await transforms.transform("and after", { messageType: "assistant" }), "and after");
	assert.equal(failures.length, 1, "told once");
	// The other plugin is untouched.
	assert.deepEqual(texts(await renderEntry(host, { customType: "probe-entry", data: 3 })), [
		"probe-entry",
		'{"customType":"probe-entry","data":3,"expanded":false}',
	]);
});

test("a transformer that never returns times out: the text unchanged, the extension named", async (t) => {
	using dir = tempDir();
	const { host } = testHost({ timeouts: { invocationMs: 1_000, shutdownMs: 500 } });
	t.after(() => host.shutdown("test end"));
	await host.load([spec(await cModule(dir.path, "renderers", ["message_renderers"]))]);
	const transforms = markdownTransformsOf(host);
	const failures: string[] = [];
	transforms.onFailure((message) => failures.push(message));
	assert.equal(await transforms.transform("wait HANG-NOW!", { messageType: "assistant" }), "wait HANG-NOW!");
	assert.equal(failures.length, 1);
	assert.match(
		failures[0]!,
		/^markdown transformer of extension c-renderers failed: extension c-renderers did not answer within 1000 ms; its text is shown untransformed$/,
	);
});

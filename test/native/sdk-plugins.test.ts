/**
 * The examples and fixtures against the ABI itself, through the in-process koffi host of sdk-fake-host.ts:
 * the echo stub's §6 behaviour (Rust and C), the probe's tools, events, vetoes, command and wake/cancel
 * lifecycles, and the crash fixtures (segfault and abort in a child process, so this test survives them).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { cLibrary, nativeLibrary } from "../helpers/native-build.js";
import { FakeHost } from "./sdk-fake-host.js";

const BUILD = { timeout: 600_000 };

async function loaded(crate: string): Promise<FakeHost> {
	const host = new FakeHost(await nativeLibrary(crate));
	assert.equal(host.register(), 0, `${crate} registers`);
	return host;
}

const text = (result: string) => (JSON.parse(result) as { content: { text: string }[] }).content[0]?.text;

test(
	"echo: a partial on the first poll, `echo: <text>` on the second; params freed with the host's free",
	BUILD,
	async () => {
		const host = await loaded("native-echo");
		const tool = host.tools.get("echo");
		assert.equal(tool?.description, "Echoes back the provided text (a B2 ABI smoke-test tool).");
		assert.deepEqual(JSON.parse(tool?.parameters ?? "").required, ["text"]);
		const run = await host.runTool("echo", { text: 'hi "there"' });
		assert.equal(run.polls, 2);
		assert.deepEqual(run.partials.map(text), ["..."]);
		assert.deepEqual(run.outcome, {
			tag: "done",
			text: JSON.stringify({ content: [{ type: "text", text: 'echo: hi "there"' }] }),
		});
		const again = await host.runTool("echo", {});
		assert.equal(text(again.outcome?.text ?? ""), "echo: ");
		assert.equal(host.outstandingHostStrings, 0, "every params buffer went back through free_params");
	},
);

test("echo: MessageEnd counter, discovery, prompt transform, provider, markdown and /echo-stats", BUILD, async () => {
	const host = await loaded("native-echo");
	const before = host.probe("plugin_stub_message_end_hits");
	assert.deepEqual(host.dispatch(23, ['{"role":"assistant"}']), [0]);
	assert.equal(host.probe("plugin_stub_message_end_hits"), before + 1);

	const discover = host.discovers[0];
	assert.ok(discover);
	assert.deepEqual(host.callDiscover(discover, "/cwd", "startup"), {
		code: 0,
		out: JSON.stringify({ skillPaths: ["plugin-stub-discovered/SKILL.md"] }),
	});
	assert.ok(host.probe("plugin_stub_discover_hits") >= 1);

	const before_ = host.beforeAgentStart[0];
	assert.ok(before_);
	const prompt = host.callString(before_, JSON.stringify({ prompt: "p", systemPrompt: "BASE PROMPT" }));
	assert.equal(JSON.parse(prompt.out).systemPrompt, "[plugin-stub says: BASE PROMPT");

	const provider = host.providers[0];
	assert.deepEqual(
		[provider?.name, provider?.baseUrl, provider?.style],
		["stub-provider", "https://stub.example", "faux"],
	);
	assert.ok(provider);
	const answer = host.callString(provider, JSON.stringify({ model: { id: "stub-model" }, context: {}, options: {} }));
	const message = JSON.parse(answer.out);
	assert.equal(answer.code, 0);
	assert.deepEqual(
		[message.role, message.content[0].text, message.model, message.stopReason],
		["assistant", "from-stub-provider", "stub-model", "stop"],
	);

	const markdown = host.renderers.markdown[0];
	assert.ok(markdown);
	assert.deepEqual(host.callString(markdown, '{"markdown":"hello world"}'), {
		code: 0,
		out: '{"markdown":"HELLO WORLD"}',
	});

	const stats = host.commands.get("echo-stats");
	assert.ok(stats);
	const out = JSON.parse(host.callString(stats, '{"args":"","command":"echo-stats"}', host.firstPluginFree()).out);
	assert.equal(out.kind, "message");
	assert.match(out.text, /message ends: [1-9]/);
});

test("the C echo: same tool lifecycle and a MessageEnd handler", BUILD, async () => {
	const host = new FakeHost(await cLibrary("c_echo", "examples/native/c-echo/c_echo.c"));
	assert.equal(host.register(), 0);
	const run = await host.runTool("echo", { text: "from C\n" });
	assert.deepEqual(run.partials.map(text), ["..."]);
	assert.equal(text(run.outcome?.text ?? ""), "echo: from C\n");
	assert.deepEqual(host.dispatch(23, ["{}"]), [0]);
	assert.equal(host.probe("c_echo_message_end_hits"), 1);
	assert.equal(host.outstandingHostStrings, 0);
});

test("probe: runtime_action reports the host's code and out; ids it does not know pass through", BUILD, async () => {
	const host = await loaded("native-probe");
	host.answer = (id, args) =>
		id === 16
			? [0, JSON.stringify({ value: JSON.parse(args).name === "probe-flag" })]
			: [2, '{"error":"unknown runtime action id 99"}'];
	const flag = await host.runTool("runtime_action", { id: 16, args: { name: "probe-flag" } });
	assert.deepEqual(JSON.parse(text(flag.outcome?.text ?? "") ?? ""), { code: 0, out: '{"value":true}' });
	const unknown = await host.runTool("runtime_action", { id: 99, args: "not json" });
	assert.deepEqual(JSON.parse(text(unknown.outcome?.text ?? "") ?? ""), {
		code: 2,
		out: '{"error":"unknown runtime action id 99"}',
	});
	assert.deepEqual(host.actions.at(-1), { id: 99, args: "not json" });
	assert.equal(host.outstandingHostStrings, 0, "the plugin freed every host out with api.free_string");
	assert.deepEqual(host.flags, ["probe-flag"]);
	assert.deepEqual(host.shortcuts, ["ctrl+alt+p"]);
	assert.deepEqual([host.renderers.message[0]?.name, host.renderers.entry[0]?.name], ["probe-renderer", "probe-entry"]);
});

test("probe: a handler on each of the 37 tags, vetoes and claims, counted per tag", BUILD, async () => {
	const host = await loaded("native-probe");
	assert.deepEqual(
		[...host.events.keys()].sort((a, b) => a - b),
		Array.from({ length: 37 }, (_, i) => i),
	);
	assert.deepEqual(host.dispatch(29, ["c1", "forbidden", "{}"]), [2], "ToolCall of `forbidden` is vetoed");
	assert.deepEqual(host.dispatch(29, ["c2", "bash", "{}"]), [0]);
	assert.deepEqual(host.dispatch(6, ['{"reason":"manual"}']), [2], "SessionBeforeCompact is vetoed");
	assert.deepEqual(host.dispatch(32, ['{"text":"probe-claim"}']), [3], "Input is claimed");
	assert.deepEqual(host.dispatch(30, ["c2", "bash", '{"content":[]}'], true), [0]);
	const report = JSON.parse(text((await host.runTool("event_counts", {})).outcome?.text ?? "") ?? "");
	assert.equal(report.counts.ToolCall, 2);
	assert.equal(report.counts.SessionBeforeCompact, 1);
	assert.deepEqual(report.last.ToolCall, { tag: 29, toolCallId: "c2", toolName: "bash", params: "{}" });
	assert.deepEqual(report.last.ToolResult, {
		tag: 30,
		toolCallId: "c2",
		toolName: "bash",
		result: '{"content":[]}',
		isError: true,
	});
	assert.deepEqual(report.last.SessionBeforeCompact, { tag: 6, data: '{"reason":"manual"}' });
});

test("probe: the command answers a selector, then a message when re-invoked with action select", BUILD, async () => {
	const host = await loaded("native-probe");
	const probe = host.commands.get("probe");
	assert.ok(probe);
	const free = host.firstPluginFree();
	const first = JSON.parse(host.callString(probe, '{"args":"","command":"probe"}', free).out);
	assert.equal(first.kind, "selector");
	assert.deepEqual(
		first.items.map((i: { value: string }) => i.value),
		["alpha", "beta"],
	);
	const second = JSON.parse(
		host.callString(probe, '{"args":"","command":"probe","action":"select","value":"beta"}', free).out,
	);
	assert.deepEqual(second, { kind: "message", text: 'probe selected "beta"' });
});

test("probe: sleepy finishes on its worker's wake (few polls); slow stays pending until cancelled", BUILD, async () => {
	const host = await loaded("native-probe");
	assert.ok(host.tools.get("sleepy")?.setWaker, "sleepy registered through register_tool_with_wake");
	const started = Date.now();
	const sleepy = await host.runTool("sleepy", { ms: 300 });
	assert.ok(Date.now() - started >= 290);
	assert.equal(text(sleepy.outcome?.text ?? ""), "slept 300 ms");
	assert.ok(sleepy.polls <= 3, `a wake-driven tool is polled on wakes only, polled ${sleepy.polls} times`);

	const slow = await host.runTool("slow", {}, { cancelAfter: 5 });
	assert.deepEqual(slow.outcome, { tag: "err", text: "slow saw cancel" });
	assert.equal(slow.polls, 6);
	const report = JSON.parse(text((await host.runTool("event_counts", {})).outcome?.text ?? "") ?? "");
	assert.deepEqual(report.slow, { started: 1, polls: 6, cancels: 1, sawCancel: 1, destroyed: 1 });
	assert.ok(report.sleepy.wakerInstalls >= 1 && report.sleepy.wakes >= 1);
});

test("probe: sleepy falls back to register_tool on a host without the wake slot", BUILD, async () => {
	const host = new FakeHost(await nativeLibrary("native-probe"));
	host.clearSlot(19);
	assert.equal(host.register(), 0);
	assert.equal(host.tools.get("sleepy")?.setWaker, undefined);
	const sleepy = await host.runTool("sleepy", { ms: 50 });
	assert.equal(text(sleepy.outcome?.text ?? ""), "slept 50 ms");
});

test("crash: panics in execute and poll are contained; ok still answers", BUILD, async () => {
	const host = await loaded("native-crash");
	assert.deepEqual([...host.tools.keys()].sort(), ["abort", "ok", "panic_execute", "panic_poll", "segfault"]);
	assert.equal((await host.runTool("panic_execute", {})).handleNull, true);
	assert.deepEqual((await host.runTool("panic_poll", {})).outcome, {
		tag: "err",
		text: "native-crash: poll panicked (contained)",
	});
	assert.equal(text((await host.runTool("ok", {})).outcome?.text ?? ""), "ok");
	assert.equal(host.outstandingHostStrings, 0, "params were freed even when execute panicked");
});

const fakeHostModule = fileURLToPath(new URL("./sdk-fake-host.js", import.meta.url));

for (const [tool, signal] of [
	["segfault", "SIGSEGV"],
	["abort", "SIGABRT"],
] as const) {
	test(`crash: ${tool} kills the process that calls it with ${signal}`, BUILD, async () => {
		const library = await nativeLibrary("native-crash");
		const script = `import { FakeHost } from ${JSON.stringify(fakeHostModule)};
			const host = new FakeHost(${JSON.stringify(library)});
			if (host.register() !== 0) process.exit(5);
			await host.runTool(${JSON.stringify(tool)}, {});
			process.exit(6);`;
		const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
			encoding: "utf8",
			timeout: 30_000,
		});
		assert.equal(child.signal, signal, `status ${child.status}, stderr: ${child.stderr}`);
	});
}

test(
	"stdio: declares ownsStdio, upper-cases stdin lines to stdout, finishes with 7 at EOF, joins on shutdown",
	BUILD,
	async () => {
		const library = await nativeLibrary("native-stdio");
		// The child plays a host that owns no stdio: finish → SessionShutdown → exit with the plugin's code.
		// Shutdown starts while the worker is still inside its finish call, so the handler's join overlaps the
		// worker's last host call (free_string of the answer's `out`, made from the worker thread): koffi runs
		// it only when this thread is back in its event loop, which dispatchAsync allows. A synchronous
		// dispatch, even one a macrotask after the answer (setImmediate), deadlocked about one run in two.
		const script = `import { FakeHost } from ${JSON.stringify(fakeHostModule)};
		const host = new FakeHost(${JSON.stringify(library)});
		host.answer = (id, args) => {
			const a = JSON.parse(args);
			if (id !== 21 || a.op !== "finish") return [1, '{"error":"unexpected"}'];
			host.dispatchAsync(8).then((codes) => { process.stderr.write("shutdown " + codes + "\\n"); process.exit(a.exitCode); });
			return [0, '{"ok":true}'];
		};
		const rc = host.register();
		process.stderr.write("register " + rc + " " + host.declarations.join(",") + "\\n");
		setInterval(() => {}, 1000);`;
		const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
			input: "hello\nwörld\nno newline at end",
			encoding: "utf8",
			timeout: 30_000,
		});
		assert.equal(child.status, 7, `signal ${child.signal}, stderr: ${child.stderr}`);
		assert.equal(child.stdout, "HELLO\nWÖRLD\nNO NEWLINE AT END\n");
		assert.match(child.stderr, /register 0 \{"ownsStdio":true\}/);
		assert.match(child.stderr, /shutdown 0/);
	},
);

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ExtensionError } from "../../src/extensions/host/errors.js";
import type { RuntimeHost } from "../../src/extensions/host/instance.js";
import type { UiRequest } from "../../src/extensions/protocol/frames.js";
import { isAlive, scriptedPackage, scriptedSpec, testHost } from "../helpers/scripted.js";
import { tempDir } from "../helpers/pier-cli.js";

const textOf = (value: unknown) => (value as { content: { text: string }[] }).content[0]!.text;

async function rejectsWith(promise: Promise<unknown>, code: string, message: RegExp) {
	await assert.rejects(promise, (error: unknown) => {
		assert.ok(error instanceof ExtensionError, `expected ExtensionError, got ${error}`);
		assert.equal(error.code, code, error.message);
		assert.match(error.message, message);
		return true;
	});
}

describe("lifecycle and invocations", () => {
	test("a tool runs, updates stream in order before the result, commands and hooks answer", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const report = await host.load([
			scriptedSpec(scriptedPackage(dir.path, "alpha", { tools: ["echo", "updates"], commands: ["go"] })),
		]);
		assert.deepEqual(report.failures, []);
		assert.equal(report.generation, 1);
		assert.equal(textOf(await host.invokeTool("echo", "c1", { text: "hi" })), "echo:hi");
		const seen: unknown[] = [];
		const result = await host.invokeTool("updates", "c2", {}, { onUpdate: (v) => seen.push(v) });
		assert.deepEqual(seen, [{ step: 1 }, { step: 2 }, { step: 3 }]);
		assert.equal(textOf(result), "done");
		assert.deepEqual(await host.invokeCommand("go", "a b"), { ran: "go", args: "a b" });
		const [blocked] = await host.emit("tool_call", { toolName: "blocked", toolCallId: "x", input: {} });
		assert.deepEqual(blocked!.result, { ok: true, value: { block: true, reason: "scripted block" } });
	});

	test("the host hello carries the protocol version, instance, cwd, mode and trust", async (t) => {
		using dir = tempDir();
		const { host } = testHost({ mode: "print" });
		t.after(() => host.shutdown("test end"));
		const pkg = scriptedPackage(dir.path, "hello-check", { hook: "echo", hooks: ["input"] });
		await host.load([scriptedSpec(pkg, { cwd: "/somewhere", projectTrusted: false })]);
		const [outcome] = await host.emit("input", { text: "x" });
		assert.deepEqual(outcome!.result, { ok: true, value: { name: "input", data: { text: "x" } } });
		const stderr = host.instances[0]!.channel.diagnostics();
		assert.equal(stderr, "");
		assert.equal(host.instances[0]!.manifest?.name, "Scripted");
	});

	test("the environment is cleared: HOME is invisible, declared entries and PI_EXTENSION_* are visible", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const spec = scriptedSpec(scriptedPackage(dir.path, "env-check", { tools: ["env"] }), {
			environment: { DECLARED_THING: "visible" },
			packageId: "pkg-1",
		});
		await host.load([spec]);
		const env = JSON.parse(textOf(await host.invokeTool("env", "c", {}))) as Record<string, string>;
		assert.ok(process.env.HOME, "the test needs a HOME to hide");
		assert.equal(env.HOME, undefined);
		assert.equal(env.PATH, undefined);
		assert.equal(env.DECLARED_THING, "visible");
		assert.equal(env.PI_EXTENSION_PROTOCOL_VERSION, "1");
		assert.equal(env.PI_EXTENSION_ID, "env-check");
		assert.equal(env.PI_EXTENSION_PACKAGE_ID, "pkg-1");
	});

	test("reserved PI_EXTENSION_* names cannot be overridden", async () => {
		using dir = tempDir();
		const { host } = testHost();
		const spec = scriptedSpec(scriptedPackage(dir.path, "reserved"), { environment: { PI_EXTENSION_ID: "evil" } });
		const report = await host.load([spec]);
		assert.match(report.failures[0]!.message, /cannot override reserved environment variable PI_EXTENSION_ID/);
	});

	test("shutdown kills the whole process group: a grandchild is dead afterwards", async () => {
		using dir = tempDir();
		const { host } = testHost();
		await host.load([scriptedSpec(scriptedPackage(dir.path, "parent", { tools: ["grandchild"] }))]);
		const pid = Number(textOf(await host.invokeTool("grandchild", "c", {})));
		assert.ok(isAlive(pid), "grandchild runs while the extension does");
		await host.shutdown("test");
		for (let i = 0; i < 50 && isAlive(pid); i++) await sleep(20);
		assert.equal(isAlive(pid), false, "grandchild must be dead after shutdown");
	});

	test("an extension ignoring shutdown is killed after the shutdown timeout", async () => {
		using dir = tempDir();
		const { host } = testHost({ timeouts: { shutdownMs: 200 } });
		await host.load([scriptedSpec(scriptedPackage(dir.path, "stubborn", { shutdown: "ignore" }))]);
		const started = Date.now();
		const instance = host.instances[0]!;
		await host.shutdown("test");
		await instance.channel.exited;
		assert.ok(Date.now() - started < 2_000);
	});
});

describe("frames the host refuses", () => {
	const cases: Array<[string, RegExp]> = [
		["crlf", /CRLF/],
		["blank", /blank line/],
		["badutf8", /not valid UTF-8/],
		["unknown_field", /unknown field \/extra/],
		// The hot frames (response, update of a call in flight) are checked as strictly as any other.
		["unknown_field_update", /invalid update frame: unknown field \/extra/],
		["unknown_field_result", /unknown field \/result\/extra/],
		["unknown_field_error", /unknown field \/result\/error\/x/],
		["incomplete_error", /\/result\/error must have required properties message/],
	];
	for (const [tool, message] of cases) {
		test(`${tool}: the instance crashes, the call fails with the reason, the host survives`, async (t) => {
			using dir = tempDir();
			const { host, diagnostics } = testHost();
			t.after(() => host.shutdown("test end"));
			await host.load([
				scriptedSpec(scriptedPackage(dir.path, "bad", { tools: [tool] })),
				scriptedSpec(scriptedPackage(dir.path, "good", { tools: ["echo"], hooks: [] })),
			]);
			await rejectsWith(host.invokeTool(tool, "c", {}), "transport_closed", message);
			assert.equal(host.instances[0]!.phase, "crashed");
			assert.ok(diagnostics.some((d) => d.extensionId === "bad" && message.test(d.message)));
			assert.equal(textOf(await host.invokeTool("echo", "c", { text: "still" })), "echo:still");
		});
	}

	test("a frame one byte past max_frame_bytes is refused without buffering it", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const pkg = scriptedPackage(dir.path, "huge", { tools: ["huge"], hugeBytes: 2_000 });
		await host.load([scriptedSpec(pkg, { maxFrameBytes: 1024 })]);
		await rejectsWith(
			host.invokeTool("huge", "c", {}),
			"transport_closed",
			/frame exceeds 1024 bytes \(max_frame_bytes; \d+\+ bytes without LF\)/,
		);
	});

	test("an outbound frame past max_frame_bytes is refused before it is sent", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		await host.load([scriptedSpec(scriptedPackage(dir.path, "small"), { maxFrameBytes: 1024 })]);
		await assert.rejects(
			host.invokeTool("echo", "c", { text: "y".repeat(1100) }),
			/frame exceeds 1024 bytes \(max_frame_bytes; this one is \d+\)/,
		);
		assert.equal(textOf(await host.invokeTool("echo", "c", { text: "ok" })), "echo:ok", "the instance stays usable");
	});
});

describe("protocol violations at load", () => {
	const cases: Array<[string, Parameters<typeof scriptedPackage>[2], RegExp]> = [
		["duplicate hello", { hello: "twice" }, /duplicate hello frame/],
		["protocol version 2", { hello: "version2" }, /unsupported extension protocol version 2/],
		["hello id mismatch", { helloId: "someone-else" }, /does not match the configured id/],
		["a runtime request during load", { load: "request" }, /runtime request during its load phase/],
		["a failing load", { load: "fail" }, /scripted load failure/],
		["an unknown hook name", { hooks: ["not_a_hook"] }, /"not_a_hook" is not a known hook name/],
		[
			"a tool without the tools capability",
			{ capabilities: ["event_hooks"] },
			/without the "tools" capability \(undeclared: add "tools" to "capabilities" in .*pi-extension\.json\)/,
		],
		["a duplicate tool", { tools: ["echo", "echo"] }, /registered duplicate tool "echo"/],
	];
	for (const [name, options, message] of cases) {
		test(`${name} fails the load with a clear message`, async () => {
			using dir = tempDir();
			const { host } = testHost();
			const report = await host.load([scriptedSpec(scriptedPackage(dir.path, "broken", options))]);
			assert.equal(report.loaded.length, 0);
			assert.equal(report.failures.length, 1);
			assert.match(report.failures[0]!.message, message);
			assert.match(report.failures[0]!.message, /^extension broken \(.*pi-extension\.json\)/);
		});
	}

	test("declaring a capability the host did not grant fails the handshake", async () => {
		using dir = tempDir();
		const { host } = testHost();
		const pkg = scriptedPackage(dir.path, "greedy", { capabilities: ["tools", "event_hooks", "session_actions"] });
		const spec = scriptedSpec(pkg, {
			granted: { capabilities: new Set(["tools", "event_hooks"]), uiCapabilities: new Set() },
		});
		const report = await host.load([spec]);
		assert.match(report.failures[0]!.message, /requested ungranted capability "session_actions"/);
	});

	test("registering after the load phase is a violation that crashes the instance", async () => {
		using dir = tempDir();
		const { host } = testHost();
		const report = await host.load([scriptedSpec(scriptedPackage(dir.path, "late", { after: "register" }))]);
		// The late frame races with initialization; either way the instance must end up crashed.
		for (let i = 0; i < 50 && host.instances[0]?.phase !== "crashed"; i++) await sleep(10);
		const instance = host.instances[0];
		if (instance) assert.equal(instance.phase, "crashed");
		else assert.match(report.failures[0]!.message, /registration is only allowed during the load phase/);
		if (instance) assert.match(instance.failure!, /registration is only allowed during the load phase/);
		await host.shutdown("test end");
	});
});

describe("timeouts", () => {
	const fast = { handshakeMs: 300, loadMs: 300, initializeMs: 300, invocationMs: 300, hookMs: 300, shutdownMs: 300 };
	for (const [phase, options, message] of [
		["handshake", { hello: "none" }, /handshake timed out after 300 ms/],
		["load", { load: "hang" }, /load phase timed out after 300 ms/],
		["initialize", { init: "hang" }, /did not answer within 300 ms/],
	] as const) {
		test(`a hung ${phase} hits its timeout`, async () => {
			using dir = tempDir();
			const { host } = testHost({ timeouts: fast });
			const report = await host.load([scriptedSpec(scriptedPackage(dir.path, "hung", options))]);
			assert.match(report.failures[0]!.message, message);
		});
	}

	test("a hung invocation and a hung hook hit their timeouts, and the host sends cancel", async (t) => {
		using dir = tempDir();
		const { host } = testHost({ timeouts: fast });
		t.after(() => host.shutdown("test end"));
		await host.load([scriptedSpec(scriptedPackage(dir.path, "hangs", { tools: ["hang"], hook: "hang" }))]);
		await rejectsWith(host.invokeTool("hang", "c", {}), "timeout", /did not answer within 300 ms/);
		const [outcome] = await host.emit("tool_call", { toolName: "x" });
		assert.equal(outcome!.result.ok, false);
		assert.match(String((outcome!.result as { error: Error }).error.message), /did not answer within 300 ms/);
		assert.equal(host.instances[0]!.phase, "active", "a timeout does not kill the extension");
	});

	test("concurrent calls time out each at its own deadline; answered ones are unaffected", async (t) => {
		using dir = tempDir();
		const { host } = testHost({ timeouts: fast });
		t.after(() => host.shutdown("test end"));
		await host.load([scriptedSpec(scriptedPackage(dir.path, "hangs", { tools: ["hang", "echo"] }))]);
		const started = Date.now();
		const settledAt = (call: Promise<unknown>) =>
			call.then(
				() => assert.fail("a hung call resolved"),
				(error: Error & { code?: string }) => ({ error, ms: Date.now() - started }),
			);
		const late = settledAt(host.invokeTool("hang", "c1", {}, { timeoutMs: 900 }));
		// Answered well before its deadline, which was the earliest when it was sent.
		const echo = host.invokeTool("echo", "c2", { text: "meanwhile" }, { timeoutMs: 400 });
		const early = settledAt(host.invokeTool("hang", "c3", {}, { timeoutMs: 500 }));
		const middle = settledAt(host.invokeTool("hang", "c4", {}, { timeoutMs: 700 }));
		assert.equal(textOf(await echo), "echo:meanwhile");
		const [first, second, third] = await Promise.all([early, middle, late]);
		assert.equal(first.error.code, "timeout");
		assert.match(first.error.message, /did not answer within 500 ms/);
		assert.match(second.error.message, /did not answer within 700 ms/);
		assert.match(third.error.message, /did not answer within 900 ms/);
		assert.ok(
			first.ms >= 495 && first.ms <= second.ms && second.ms <= third.ms,
			`${first.ms} ${second.ms} ${third.ms}`,
		);
		assert.ok(second.ms >= 695 && third.ms >= 895, `${second.ms} ${third.ms}`);
		// With nothing pending any more, a new call still gets its full timeout (the default one here).
		const again = Date.now();
		await rejectsWith(host.invokeTool("hang", "c5", {}), "timeout", /within 300 ms/);
		assert.ok(Date.now() - again >= 295);
		assert.equal(host.instances[0]!.phase, "active");
	});

	test("timeouts are configurable and validated", () => {
		assert.throws(() => testHost({ timeouts: { hookMs: 0 } }), /hookMs must be a positive number/);
		assert.equal(testHost({ timeouts: { hookMs: 1234 } }).host.timeouts.hookMs, 1234);
		assert.equal(testHost().host.timeouts.invocationMs, 60_000);
	});
});

describe("cancellation, crashes, reload, collisions", () => {
	test("aborting a call sends cancel and settles within a second", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		await host.load([scriptedSpec(scriptedPackage(dir.path, "slowpoke", { tools: ["slow", "echo"] }))]);
		const controller = new AbortController();
		const started = Date.now();
		const call = host.invokeTool("slow", "c", {}, { signal: controller.signal });
		setTimeout(() => controller.abort(), 50);
		await rejectsWith(call, "cancelled", /cancelled/);
		assert.ok(Date.now() - started < 1_000);
		assert.equal(textOf(await host.invokeTool("echo", "c", { text: "after" })), "echo:after");
	});

	test("a crash mid-invocation fails the call with the stderr tail; other extensions keep working", async (t) => {
		using dir = tempDir();
		const { host, diagnostics } = testHost();
		t.after(() => host.shutdown("test end"));
		await host.load([
			scriptedSpec(scriptedPackage(dir.path, "fragile", { tools: ["crash"] })),
			scriptedSpec(scriptedPackage(dir.path, "sturdy", { tools: ["echo"], hooks: [] })),
		]);
		await rejectsWith(host.invokeTool("crash", "c", {}), "transport_closed", /exited \(code 3\).*scripted crash/s);
		assert.ok(diagnostics.some((d) => /extension fragile crashed/.test(d.message)));
		await rejectsWith(host.invokeTool("crash", "c", {}), "invalidated", /not active \(crashed\)/);
		assert.equal(textOf(await host.invokeTool("echo", "c", { text: "x" })), "echo:x");
	});

	test("a failed reload keeps the previous generation active and callable", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const good = scriptedPackage(dir.path, "good");
		await host.load([scriptedSpec(good)]);
		const report = await host.reload([
			scriptedSpec(good),
			scriptedSpec(scriptedPackage(dir.path, "bad", { load: "fail" })),
		]);
		assert.equal(report.committed, false);
		assert.equal(host.generation, 1);
		assert.equal(textOf(await host.invokeTool("echo", "c", { text: "old" })), "echo:old");
		const ok = await host.reload([scriptedSpec(good)]);
		assert.equal(ok.committed, true);
		assert.equal(host.generation, 3);
		assert.equal(host.instances[0]!.generation, 3);
		assert.equal(textOf(await host.invokeTool("echo", "c", { text: "new" })), "echo:new");
	});

	test("a collision across extensions keeps the first and names both", async (t) => {
		using dir = tempDir();
		const { host, diagnostics } = testHost();
		t.after(() => host.shutdown("test end"));
		const report = await host.load([
			scriptedSpec(scriptedPackage(dir.path, "first", { tools: ["echo"] })),
			scriptedSpec(scriptedPackage(dir.path, "second", { tools: ["echo"] })),
		]);
		assert.equal(report.collisions.length, 1);
		assert.match(
			report.collisions[0]!,
			/tool "echo" of extension second \(.*\) collides with extension first \(.*\); the first registration wins/,
		);
		assert.ok(diagnostics.some((d) => d.type === "warning" && /collides/.test(d.message)));
		assert.equal(host.registry.tools.get("echo")!.instance.id, "first");
	});
});

describe("runtime requests", () => {
	const ui = (request: UiRequest, timeoutMs?: number) => ({ request, ...(timeoutMs ? { timeoutMs } : {}) });

	function recordingHost(hasUi = true) {
		const seen: unknown[] = [];
		const runtime: RuntimeHost = {
			hasUi,
			async ui(request, { signal }) {
				seen.push(request);
				if (request.type === "select") return { type: "selected", value: request.options[0]?.value };
				if (request.type === "confirm") return { type: "cancelled" };
				if (request.type === "input") {
					await new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted"))));
				}
				if (request.type === "get_editor_text") return { type: "acknowledged" };
				return { type: "acknowledged" };
			},
			async action(action) {
				seen.push(action);
				return action.kind === "get_active_tools" ? ["read", "echo"] : null;
			},
		};
		return { runtime, seen };
	}

	async function loaded(dir: string, options: Parameters<typeof scriptedPackage>[2], hasUi = true) {
		const { host } = testHost();
		const { runtime, seen } = recordingHost(hasUi);
		host.setRuntimeHost(runtime);
		await host.load([
			scriptedSpec(scriptedPackage(dir, "asker", { tools: ["ui", "action", "dup_request"], ...options })),
		]);
		const call = async (tool: string, args: unknown) => JSON.parse(textOf(await host.invokeTool(tool, "c", args)));
		return { host, seen, call };
	}

	test("UI requests round-trip through the session's UI with their capability", async (t) => {
		using dir = tempDir();
		const { host, seen, call } = await loaded(dir.path, {
			capabilities: ["tools", "event_hooks", "ui"],
			uiCapabilities: ["select", "confirm", "notify"],
		});
		t.after(() => host.shutdown("test end"));
		const select: UiRequest = { type: "select", title: "Pick", options: [{ value: "a", label: "A" }] };
		assert.deepEqual(await call("ui", ui(select)), { status: "success", value: { type: "selected", value: "a" } });
		assert.deepEqual(await call("ui", ui({ type: "confirm", title: "Sure?", message: "m" })), {
			status: "success",
			value: { type: "cancelled" },
		});
		assert.deepEqual(seen[0], select);
		const denied = await call("ui", ui({ type: "status", key: "k", text: "t" }));
		assert.equal(denied.error.code, "permission_denied");
		assert.match(denied.error.message, /UI capability "status" was not granted/);
	});

	test("a UI answer of the wrong type, and a UI timeout, fail with ui_request_failed", async (t) => {
		using dir = tempDir();
		const { host, call } = await loaded(dir.path, {
			capabilities: ["tools", "event_hooks", "ui"],
			uiCapabilities: ["input", "editor_text"],
		});
		t.after(() => host.shutdown("test end"));
		const wrong = await call("ui", ui({ type: "get_editor_text" }));
		assert.equal(wrong.error.code, "ui_request_failed");
		assert.match(wrong.error.message, /does not match request type "get_editor_text"/);
		const late = await call("ui", ui({ type: "input", title: "Name?" }, 100));
		assert.equal(late.error.code, "ui_request_failed");
		assert.match(late.error.message, /timed out after 100 ms/);
	});

	test("interactive UI where the session has none is ui_unavailable; non-interactive still works", async (t) => {
		using dir = tempDir();
		const { host, call } = await loaded(
			dir.path,
			{ capabilities: ["tools", "event_hooks", "ui"], uiCapabilities: ["select", "notify"] },
			false,
		);
		t.after(() => host.shutdown("test end"));
		const r = await call("ui", ui({ type: "select", title: "t", options: [] }));
		assert.equal(r.error.code, "ui_unavailable");
		const n = await call("ui", ui({ type: "notify", message: "hi", level: "info" }));
		assert.deepEqual(n, { status: "success", value: { type: "acknowledged" } });
	});

	test("session actions need session_actions; with it they reach the session", async (t) => {
		using dir = tempDir();
		const without = await loaded(dir.path, {});
		t.after(() => without.host.shutdown("test end"));
		const denied = await without.call("action", { action: { kind: "get_active_tools" } });
		assert.equal(denied.error.code, "permission_denied");
		assert.match(denied.error.message, /"session_actions" was not granted/);
		const withIt = await loaded(dir.path, { capabilities: ["tools", "event_hooks", "session_actions"] });
		t.after(() => withIt.host.shutdown("test end"));
		assert.deepEqual(await withIt.call("action", { action: { kind: "get_active_tools" } }), {
			status: "success",
			value: ["read", "echo"],
		});
		assert.deepEqual(withIt.seen, [{ kind: "get_active_tools" }]);
	});

	test("a reused runtime request id is a protocol violation", async () => {
		using dir = tempDir();
		const { host, call } = await loaded(dir.path, {
			capabilities: ["tools", "event_hooks", "ui"],
			uiCapabilities: ["select"],
		});
		await assert.rejects(call("dup_request", {}), /duplicate extension request id "same"/);
		assert.equal(host.instances[0]!.phase, "crashed");
		await host.shutdown("test end");
	});
});

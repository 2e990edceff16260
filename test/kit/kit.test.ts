/**
 * kit/node and the examples/process extensions, driven by the real host: manifest → processSpec →
 * ExtensionHost, with a recording RuntimeHost standing in for the session. A few wire-level checks talk to a
 * kit process directly.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import type * as Kit from "../../kit/node/index.mjs";
import { type HostDiagnostic, ExtensionHost } from "../../src/extensions/host/host.js";
import type { RequestContext, RuntimeHost } from "../../src/extensions/host/instance.js";
import { loadManifest } from "../../src/extensions/manifest.js";
import { FrameDecoder } from "../../src/extensions/protocol/codec.js";
import type { ContextSnapshot, RuntimeAction, UiRequest, UiResponse } from "../../src/extensions/protocol/frames.js";
import type { ProcessChannel } from "../../src/extensions/runtimes/process/channel.js";
import { processSpec } from "../../src/extensions/runtimes/process/launcher.js";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const NODE_WEATHER = join(REPO_ROOT, "examples/process/node-weather");
const PYTHON_ECHO = join(REPO_ROOT, "examples/process/python-echo");
const FIXTURE = join(REPO_ROOT, "test/kit/fixtures/kit-fixture");
const LOAD_PHASE = join(REPO_ROOT, "test/kit/fixtures/kit-load-phase");

const spec = (dir: string) => processSpec(loadManifest(dir), { cwd: dir, projectTrusted: true });

/** A session stand-in: answers every UI request plausibly and records it and every action. */
class RecordingRuntimeHost implements RuntimeHost {
	readonly hasUi = true;
	readonly ui_: Array<{ extension: string; request: UiRequest }> = [];
	readonly actions: Array<{ extension: string; action: RuntimeAction }> = [];

	/** Titles of dialogs whose request the extension cancelled. */
	readonly cancelledDialogs: string[] = [];

	async ui(request: UiRequest, context: RequestContext): Promise<UiResponse> {
		this.ui_.push({ extension: context.instance.id, request });
		if (request.type === "confirm" && request.title === "hang") {
			return new Promise((resolve) => {
				context.signal.addEventListener("abort", () => {
					this.cancelledDialogs.push(request.title);
					resolve({ type: "cancelled" });
				});
			});
		}
		switch (request.type) {
			case "select":
				return { type: "selected", value: request.options[1]?.value ?? "" };
			case "confirm":
				return { type: "confirmed", confirmed: true };
			case "input":
				return { type: "input", value: "typed" };
			case "editor":
				return { type: "cancelled" };
			case "get_editor_text":
				return { type: "editor_text", value: "draft" };
			case "get_all_themes":
				return { type: "themes", themes: [{ name: "dark" }, { name: "light", path: "/t/light.json" }] };
			case "set_theme":
				return { type: "theme_set", success: false, error: `unknown or unavailable theme "${request.name}"` };
			case "get_tools_expanded":
				return { type: "tools_expanded", expanded: true };
			default:
				return { type: "acknowledged" };
		}
	}

	async action(action: RuntimeAction, context: RequestContext): Promise<unknown> {
		this.actions.push({ extension: context.instance.id, action });
		if (action.kind === "append_entry") return "entry-1";
		if (action.kind === "abort") throw new Error("nothing to abort");
		return null;
	}
}

async function until(condition: () => boolean, timeoutMs = 1_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!condition()) {
		if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${condition}`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}

const text = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]?.text;

describe("node kit and process examples under the real host", () => {
	const runtime = new RecordingRuntimeHost();
	const diagnostics: HostDiagnostic[] = [];
	const host = new ExtensionHost({
		mode: "tui",
		timeouts: { shutdownMs: 5_000 },
		onDiagnostic: (d) => diagnostics.push(d),
	});

	before(async () => {
		const report = await host.load([spec(NODE_WEATHER), spec(PYTHON_ECHO), spec(FIXTURE)]);
		assert.deepEqual(report.failures, []);
		assert.deepEqual(report.loaded, ["node-weather", "python-echo", "kit-fixture"]);
		host.setRuntimeHost(runtime);
	});

	after(() => host.shutdown("test end"));

	test("registrations reach the host as declared", () => {
		const tool = host.registry.tools.get("weather")?.descriptor;
		assert.equal(tool?.label, "Weather");
		assert.deepEqual(tool?.parameters, {
			type: "object",
			properties: { city: { type: "string", description: "City name" } },
			required: ["city"],
			examples: [{ city: "Oslo" }],
		});
		assert.ok(host.registry.commands.has("forecast"));
		assert.deepEqual(host.registry.flags.get("verbose")?.descriptor, {
			name: "verbose",
			type: "boolean",
			description: "Say more",
			default: false,
		});
		assert.deepEqual(
			host.registry.hooks.get("tool_call")?.map((i) => i.id),
			["node-weather", "kit-fixture"],
		);
		assert.equal(host.registry.tools.get("throws")?.descriptor.label, "throws", "label defaults to the name");
	});

	test("a tool streams its update before the result resolves", async () => {
		const order: string[] = [];
		const result = await host.invokeTool(
			"weather",
			"call-1",
			{ city: "Oslo" },
			{ onUpdate: (value) => order.push(`update: ${text(value)}`) },
		);
		order.push(`result: ${text(result)}`);
		assert.deepEqual(order, ["update: Looking up Oslo…", "result: Oslo: 10°C, light rain (from a process extension)"]);
		assert.deepEqual((result as { details: unknown }).details, { city: "Oslo" });
	});

	test("a command's notify reaches the RuntimeHost", async () => {
		const before = runtime.ui_.length;
		assert.equal(await host.invokeCommand("forecast", "Oslo"), null);
		assert.deepEqual(runtime.ui_.slice(before), [
			{
				extension: "node-weather",
				request: { type: "notify", message: "Oslo: 10°C, light rain (from a process extension)", level: "info" },
			},
		]);
	});

	test("tool_call hooks: node-weather blocks dangerous, others pass; in-place edits come back", async () => {
		const dangerous = await host.emit("tool_call", { toolName: "dangerous", toolCallId: "1", input: {} });
		assert.deepEqual(
			dangerous.map((o) => [o.instance.id, o.result]),
			[
				["node-weather", { ok: true, value: { block: true, reason: "blocked by node-weather" } }],
				["kit-fixture", { ok: true, value: { input: { checked: true } } }],
			],
		);
		const harmless = await host.emit("tool_call", { toolName: "read", toolCallId: "2", input: { path: "a" } });
		assert.deepEqual(
			harmless.map((o) => o.result),
			[
				{ ok: true, value: null },
				{ ok: true, value: { input: { path: "a", checked: true } } },
			],
		);
		const forbidden = await host.emit("tool_call", { toolName: "forbidden", toolCallId: "3", input: {} });
		assert.deepEqual(forbidden[1]?.result, {
			ok: true,
			value: { input: { checked: true }, block: true, reason: "fixture says no" },
		});
	});

	test("the input hook transforms shout: prompts only", async () => {
		const input = (t: string) => ({ text: t, images: [], source: "interactive", streamingBehavior: null });
		const [shout] = await host.emit("input", input("shout: hello there"));
		assert.deepEqual(shout?.result, { ok: true, value: { action: "transform", text: "HELLO THERE" } });
		const [plain] = await host.emit("input", input("hello"));
		assert.deepEqual(plain?.result, { ok: true, value: null });
	});

	test("cancelling an invocation aborts the tool's signal", async () => {
		const controller = new AbortController();
		const started = Date.now();
		const call = host.invokeTool("wait_for_cancel", "call-cancel", {}, { signal: controller.signal });
		setTimeout(() => controller.abort(), 50);
		await assert.rejects(call, (error: Error & { code?: string }) => error.code === "cancelled");
		assert.ok(Date.now() - started < 1_000, "rejected within 1 s");
		// The host sent `cancel` before rejecting, and the kit reads frames in order: the tool's signal has fired.
		const aborted = await host.invokeCommand("aborted", "");
		assert.deepEqual(aborted, ["call-cancel"]);
	});

	test("cancelling an invocation cancels the UI requests it is waiting on", async () => {
		const controller = new AbortController();
		const call = host.invokeCommand("hang", "", { signal: controller.signal });
		await until(() => runtime.ui_.some((u) => u.request.type === "confirm" && u.request.title === "hang"));
		controller.abort();
		await assert.rejects(call, { code: "cancelled" });
		// The kit sent `cancel` for its pending dialog: the host aborted the RuntimeHost's request.
		await until(() => runtime.cancelledDialogs.includes("hang"));
	});

	test("session actions reach the RuntimeHost and answer with its value", async () => {
		const before = runtime.actions.length;
		const result = await host.invokeCommand("session", "kit-session");
		assert.deepEqual(result, { entryId: "entry-1", abort: "action_failed" });
		assert.deepEqual(
			runtime.actions.slice(before).map((a) => a.action),
			[
				{ kind: "set_session_name", name: "kit-session" },
				{ kind: "append_entry", customType: "kit-note", data: { n: 1 } },
				{
					kind: "send_message",
					message: { customType: "kit", content: "hi", display: false },
					delivery: "nextTurn",
					triggerTurn: false,
				},
				{ kind: "abort" },
			],
		);
	});

	test("every ctx.ui call maps its request and answer", async () => {
		const before = runtime.ui_.length;
		const result = await host.invokeCommand("ui_tour", "");
		assert.deepEqual(result, {
			select: "b",
			confirm: true,
			input: "typed",
			// editor (cancelled), notify, status, widget resolved undefined: JSON drops those keys
			editorText: "draft",
			themes: [{ name: "dark" }, { name: "light", path: "/t/light.json" }],
			setTheme: { success: false, error: 'unknown or unavailable theme "nope"' },
			expanded: true,
			title: "permission_denied",
		});
		assert.deepEqual(
			runtime.ui_.slice(before).map((u) => u.request),
			[
				{
					type: "select",
					title: "Pick",
					options: [
						{ value: "a", label: "a" },
						{ value: "b", label: "Bee" },
					],
				},
				{ type: "confirm", title: "Sure?", message: "Really" },
				{ type: "input", title: "Name", placeholder: "placeholder" },
				{ type: "editor", title: "Edit", prefill: "prefill" },
				{ type: "notify", message: "hello", level: "info" },
				{ type: "status", key: "k", text: "busy" },
				{ type: "widget", key: "w", lines: ["line"], placement: "below_editor" },
				{ type: "get_editor_text" },
				{ type: "get_all_themes" },
				{ type: "set_theme", name: "nope" },
				{ type: "get_tools_expanded" },
			],
		);
	});

	test("ctx carries the hello facts and the invocation's snapshot", async () => {
		const context: ContextSnapshot = {
			sessionName: "named",
			isIdle: false,
			projectTrusted: true,
			hasPendingMessages: false,
			contextUsage: { contextWindow: 1000 },
			flagValues: { verbose: true },
			systemPrompt: "be brief",
			thinkingLevel: "high",
		};
		assert.deepEqual(await host.invokeCommand("snapshot", "", { context }), {
			cwd: FIXTURE,
			mode: "tui",
			projectTrusted: true,
			hasUI: true,
			sessionName: "named",
			thinkingLevel: "high",
			idle: false,
			usage: { tokens: null, contextWindow: 1000, percent: null },
			prompt: "be brief",
			flag: true,
			piSessionName: "named",
		});
		const bare = (await host.invokeCommand("snapshot", "")) as Record<string, unknown>;
		assert.equal(bare.sessionName, null);
		assert.equal(bare.flag, false, "without a snapshot value the flag's default");
	});

	test("failures: a throwing tool, an oversized result, registration after load", async () => {
		await assert.rejects(host.invokeTool("throws", "c", {}), { code: "extension_error", message: "boom" });
		await assert.rejects(host.invokeTool("big", "c", {}), (error: Error & { code?: string }) => {
			assert.equal(error.code, "frame_too_large");
			return true;
		});
		assert.match(
			String(await host.invokeCommand("misuse", "")),
			/command registration is only allowed during the load phase/,
		);
		assert.deepEqual(diagnostics, [], "the fixture is still alive and in protocol");
	});

	test("stdout writes by the extension stay off the protocol; U+2028 survives the framing", async () => {
		const tricky = "line\u2028separator\u2029paragraph\r\ncrlf é 😀";
		const result = await host.invokeTool("echo_raw", "c", { text: tricky });
		assert.equal(text(result), tricky);
		const fixture = host.instances.find((i) => i.id === "kit-fixture")!;
		// stderr is its own pipe: its bytes may arrive after the response.
		await until(() => /noise on stdout\nmore noise/.test(fixture.channel.diagnostics()));
		assert.deepEqual(diagnostics, []);
	});

	test("pi.events and shortcuts", async () => {
		assert.deepEqual(await host.invokeCommand("bus", ""), [1]);
		assert.equal(await host.invokeShortcut("ctrl+k"), "shortcut in tui");
	});

	test("the python example's echo tool", async () => {
		assert.equal(text(await host.invokeTool("echo", "c", { text: "hi\u2028there" })), "echo: hi\u2028there");
	});

	test("shutdown: every process exits by itself, promptly", async () => {
		const pids = host.instances.map((i) => (i.channel as ProcessChannel).pid!);
		assert.equal(pids.length, 3);
		const started = Date.now();
		await host.shutdown("quit");
		// shutdownMs is 5 s: finishing well before means the processes left on their own (no SIGKILL wait).
		assert.ok(Date.now() - started < 2_000, `shutdown took ${Date.now() - started} ms`);
		for (const pid of pids) assert.throws(() => process.kill(pid, 0), { code: "ESRCH" });
	});
});

describe("node kit load phase", () => {
	test("a runtime request from the factory fails the load, naming the load phase", async () => {
		const host = new ExtensionHost({ mode: "tui" });
		const report = await host.load([spec(LOAD_PHASE)]);
		assert.deepEqual(report.loaded, []);
		assert.equal(report.failures.length, 1);
		assert.match(report.failures[0]!.message, /load_failed: .*unavailable during the loading phase/);
		await host.shutdown("test end");
	});
});

/** Talks protocol v1 to an extension directly, as the host would, to check what is on the wire. */
class WirePeer {
	readonly child: ChildProcess;
	readonly frames: Array<Record<string, unknown>> = [];
	readonly exit: Promise<number | null>;
	private waiters: Array<() => void> = [];

	constructor(dir: string) {
		const manifest = loadManifest(dir);
		if (manifest.runtime.kind !== "process") throw new Error("not a process extension");
		this.child = spawn(manifest.runtime.executable, [], {
			cwd: manifest.root,
			env: { PI_EXTENSION_PROTOCOL_VERSION: "1", PI_EXTENSION_ID: manifest.id },
			stdio: ["pipe", "pipe", "pipe"],
		});
		const decoder = new FrameDecoder();
		this.child.stdout!.on("data", (chunk: Buffer) => {
			for (const frame of decoder.push(chunk)) this.frames.push(frame as Record<string, unknown>);
			for (const wake of this.waiters.splice(0)) wake();
		});
		this.exit = new Promise((resolve) => this.child.once("exit", (code) => resolve(code)));
	}

	send(frame: unknown): void {
		this.child.stdin!.write(`${JSON.stringify(frame)}\n`);
	}

	async next(match: (frame: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
		const deadline = Date.now() + 5_000;
		for (;;) {
			const index = this.frames.findIndex(match);
			if (index !== -1) return this.frames.splice(index, 1)[0]!;
			if (Date.now() > deadline) throw new Error(`no matching frame; have ${JSON.stringify(this.frames)}`);
			await new Promise<void>((resolve) => {
				this.waiters.push(resolve);
				setTimeout(resolve, 100);
			});
		}
	}

	/** hello → load → initialize; returns the extension's hello and its registrations. */
	async start(): Promise<{ hello: Record<string, unknown>; registrations: unknown[] }> {
		this.send({
			type: "hello",
			protocolVersion: 1,
			instance: { extensionId: "kit-fixture", generation: 1 },
			cwd: "/somewhere",
			mode: "rpc",
			projectTrusted: false,
		});
		const hello = await this.next((f) => f.type === "hello");
		this.send({ type: "request", id: "load-1", generation: 1, request: { kind: "load" } });
		await this.next((f) => f.type === "response" && f.id === "load-1");
		const registrations = this.frames.splice(0).map((f) => f.registration);
		this.send({ type: "request", id: "init-1", generation: 1, request: { kind: "initialize" } });
		assert.deepEqual(await this.next((f) => f.id === "init-1"), {
			type: "response",
			id: "init-1",
			result: { status: "success", value: null },
		});
		return { hello, registrations };
	}
}

describe("node kit on the wire", () => {
	test("hello, registrations in order, cancel answered with cancelled, exit 0 on stdin EOF", async () => {
		const peer = new WirePeer(FIXTURE);
		const { hello, registrations } = await peer.start();
		assert.deepEqual(hello, {
			type: "hello",
			protocolVersion: 1,
			manifest: {
				id: "kit-fixture",
				name: "Kit fixture",
				version: "1.0.0",
				capabilities: ["tools", "commands", "event_hooks", "session_actions", "ui"],
				uiCapabilities: [
					"select",
					"confirm",
					"input",
					"editor",
					"notify",
					"status",
					"widget",
					"editor_text",
					"theme",
					"tools_expanded",
				],
			},
		});
		assert.deepEqual(
			registrations.map((r) => (r as { kind: string }).kind),
			[
				...["flag", "tool", "tool", "tool", "tool"],
				...["command", "command", "command", "command", "command", "command", "command"],
				...["shortcut", "event_hook"],
			],
			"one event_hook registration for two tool_call handlers",
		);

		const invoke = (id: string, invocation: unknown) =>
			peer.send({ type: "request", id, generation: 1, request: { kind: "invoke", invocation } });
		invoke("t-1", { kind: "tool", name: "wait_for_cancel", callId: "c1", arguments: {} });
		peer.send({ type: "cancel", id: "t-1" });
		assert.deepEqual((await peer.next((f) => f.id === "t-1")).result, {
			status: "failure",
			error: { code: "cancelled", message: "the invocation was cancelled" },
		});

		invoke("t-2", { kind: "tool", name: "nope", callId: "c2", arguments: {} });
		assert.deepEqual((await peer.next((f) => f.id === "t-2")).result, {
			status: "failure",
			error: { code: "extension_error", message: "unknown tool nope" },
		});

		// Frames of one chunk are read in order before any handler's result is sent: even a synchronous tool
		// loses to a cancel that arrived with its request; the next call in the same chunk still answers.
		const frame = (value: unknown) => `${JSON.stringify(value)}\n`;
		const call = (id: string) => ({
			type: "request",
			id,
			generation: 1,
			request: { kind: "invoke", invocation: { kind: "tool", name: "echo_raw", callId: id, arguments: { text: id } } },
		});
		peer.child.stdin!.write(frame(call("t-3")) + frame({ type: "cancel", id: "t-3" }) + frame(call("t-4")));
		assert.deepEqual((await peer.next((f) => f.id === "t-3")).result, {
			status: "failure",
			error: { code: "cancelled", message: "the invocation was cancelled" },
		});
		assert.deepEqual((await peer.next((f) => f.id === "t-4")).result, {
			status: "success",
			value: { content: [{ type: "text", text: "t-4" }], details: { text: "t-4" } },
		});

		peer.child.stdin!.end();
		assert.equal(await peer.exit, 0);
	});

	test("an action round trip by hand, and exit 0 on shutdown", async () => {
		const peer = new WirePeer(FIXTURE);
		await peer.start();
		peer.send({
			type: "request",
			id: "cmd-1",
			generation: 1,
			request: { kind: "invoke", invocation: { kind: "command", name: "session", arguments: "wire" } },
		});
		const request = await peer.next((f) => f.type === "request");
		assert.deepEqual(request.request, { kind: "action", action: { kind: "set_session_name", name: "wire" } });
		assert.equal(typeof request.id, "string");
		peer.send({ type: "response", id: request.id, result: { status: "failure", error: { code: "x", message: "y" } } });
		assert.deepEqual((await peer.next((f) => f.id === "cmd-1")).result, {
			status: "failure",
			error: { code: "extension_error", message: "x: y" },
		});
		peer.send({ type: "shutdown", reason: "quit" });
		assert.equal(await peer.exit, 0);
	});
});

// Compile-time check of kit/node/index.d.ts against the way an author writes an extension.
export const typedExample = (run: typeof Kit.runExtension) =>
	run({ id: "typed", capabilities: ["tools", "event_hooks", "ui"], uiCapabilities: ["notify"] }, (pi) => {
		pi.registerTool<{ city: string }>({
			name: "weather",
			label: "Weather",
			description: "d",
			parameters: { type: "object" },
			async execute(_id, params, signal, onUpdate, ctx) {
				onUpdate({ content: [{ type: "text", text: params.city }] });
				await ctx.ui.notify(String(signal.aborted), "warning");
				const chosen: string | undefined = await ctx.ui.select("t", ["a", { value: "b", label: "B" }]);
				return { content: [{ type: "text", text: chosen ?? "" }], details: {} };
			},
		});
		pi.on("tool_call", async (event) => (event.toolName === "bash" ? { block: true, reason: "no" } : undefined));
		pi.on("input", (event) => ({ action: "transform", text: event.text.toUpperCase() }));
		pi.on("agent_end", (event, ctx) => void ctx.ui.notify(event.type));
		const flag: boolean | string | undefined = pi.getFlag("x");
		void flag;
	});

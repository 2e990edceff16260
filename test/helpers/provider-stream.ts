/**
 * One set of checks for rpi's provider stream form, run over every way pier lets an extension write it: raw
 * protocol JSONL (test/fixtures/process/raw-provider), the Node kit and QuickJS (both run the factory of
 * test/fixtures/quickjs/stream-provider). `pier run` streams text, thinking and a tool call the session really
 * runs; failures are typed error messages of the turn with secrets redacted; a chamber prompt does the same.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ApiClient, type Serve, startServe } from "./chamber.js";
import { jsonLines, REPO_ROOT, runPier, tempDir } from "./pier-cli.js";

/** A fixture package written in rpi's provider form, and the names pier gives what it registers. */
export interface StreamProviderFixture {
	/** Shown in the test names. */
	runtime: string;
	/** The package directory, relative to the repository. */
	path: string;
	extensionId: string;
	providerId: string;
	/** The first word of the text turn's first line. */
	marker: string;
}

export const RAW_PROVIDER: StreamProviderFixture = {
	runtime: "raw JSONL",
	path: "test/fixtures/process/raw-provider",
	extensionId: "raw-provider",
	providerId: "raw-llm",
	marker: "raw",
};
export const KIT_STREAM_PROVIDER: StreamProviderFixture = {
	runtime: "Node kit",
	path: "test/fixtures/process/kit-stream-provider",
	extensionId: "kit-stream-provider",
	providerId: "stream-llm",
	marker: "kit",
};
export const QUICKJS_STREAM_PROVIDER: StreamProviderFixture = {
	runtime: "QuickJS",
	path: "test/fixtures/quickjs/stream-provider",
	extensionId: "qjs-stream-provider",
	providerId: "stream-llm",
	marker: "qjs",
};

type Event = { type: string; assistantMessageEvent?: { type: string; delta?: string; content?: string } };
type Message = {
	role: string;
	content: { type: string; text?: string; thinking?: string; name?: string; id?: string; arguments?: unknown }[];
	stopReason?: string;
	errorMessage?: string;
	api?: string;
	usage?: { input: number; output: number; totalTokens: number };
};

/** `pier run` over the fixture's provider, printing text, or in JSON mode. */
function run(fixture: StreamProviderFixture, prompt: string, dir: string, json = true) {
	const mode = json ? ["--mode", "json"] : [];
	const model = `${fixture.providerId}/default`;
	return runPier(["run", ...mode, "-e", join(REPO_ROOT, fixture.path), "--model", model, prompt], { agentDir: dir });
}

async function json(fixture: StreamProviderFixture, prompt: string, dir: string) {
	const result = await run(fixture, prompt, dir);
	const events = jsonLines(result.stdout) as unknown as (Event & { message?: Message })[];
	const assistants = events
		.filter((e) => e.type === "message_end" && e.message?.role === "assistant")
		.map((e) => e.message!);
	// Every check below starts from the turn's message: without one, say what the run printed instead.
	assert.ok(
		assistants.length > 0,
		`pier run "${prompt}" ended with no assistant message (exit ${result.code})\nstderr: ${result.stderr}\nstdout (last 2,000 characters): ${result.stdout.slice(-2000)}`,
	);
	return { result, events, assistants };
}

/**
 * The `pier run` checks, as one describe block for `fixture`. `hostChecks` adds the checks of what the host alone
 * does with any runtime's stream (refusing an event outside the vocabulary, print mode's output): one runtime
 * covers them.
 */
export function providerStreamCliSuite(fixture: StreamProviderFixture, options: { hostChecks: boolean }): void {
	const who = `extension ${fixture.extensionId} provider "${fixture.providerId}"`;
	describe(`rpi's provider stream form in pier run (${fixture.runtime})`, () => {
		test("start, thinking, text, text_delta, text and done arrive in order as pi's events", async () => {
			using dir = tempDir();
			const { result, events, assistants } = await json(fixture, "hi", dir.path);
			assert.equal(result.code, 0, result.stderr);
			const kinds = events
				.filter((e) => e.type === "message_update")
				.map((e) => e.assistantMessageEvent!)
				.map((e) => (e.delta !== undefined ? `${e.type}:${e.delta}` : e.type));
			assert.deepEqual(kinds, [
				"thinking_start",
				"thinking_delta:hmm",
				"thinking_end",
				"text_start",
				`text_delta:${fixture.marker}: hello`,
				"text_delta: world",
				"text_end",
				"text_start",
				"text_delta:messages=1 session",
				"text_end",
			]);
			const [message] = assistants;
			assert.deepEqual(message!.content, [
				{ type: "thinking", thinking: "hmm" },
				{ type: "text", text: `${fixture.marker}: hello world` },
				{ type: "text", text: "messages=1 session" },
			]);
			assert.equal(message!.stopReason, "stop");
			assert.equal(message!.api, `pier-extension/${fixture.extensionId}/${fixture.providerId}`);
		});

		test("a tool_call runs the extension's tool and the second turn answers with its result", async () => {
			using dir = tempDir();
			const { result, events, assistants } = await json(fixture, "tool", dir.path);
			assert.equal(result.code, 0, result.stderr);
			assert.equal(assistants.length, 2);
			const [first, second] = assistants;
			assert.deepEqual(first!.content, [
				{ type: "text", text: "calling shout" },
				{ type: "toolCall", id: "call-1", name: "shout", arguments: { text: "hello tool" } },
			]);
			assert.equal(first!.stopReason, "toolUse", "rpi's tool_use is pi's toolUse");
			const toolEnd = events.find((e) => e.type === "tool_execution_end") as unknown as {
				toolName: string;
				result: { content: { text: string }[] };
				isError: boolean;
			};
			assert.equal(toolEnd.toolName, "shout");
			assert.equal(toolEnd.isError, false);
			assert.equal(toolEnd.result.content[0]!.text, "HELLO TOOL");
			assert.deepEqual(second!.content, [{ type: "text", text: "the tool said: HELLO TOOL" }]);
			assert.equal(second!.stopReason, "stop");
			const deltas = events.map((e) => e.assistantMessageEvent?.type).filter((t) => t?.startsWith("toolcall"));
			assert.deepEqual(deltas, ["toolcall_start", "toolcall_delta", "toolcall_end"]);
		});

		test("done may carry the whole message: it is the turn's answer, shown as if streamed", async () => {
			using dir = tempDir();
			const { result, assistants } = await json(fixture, "done-msg", dir.path);
			assert.equal(result.code, 0, result.stderr);
			assert.deepEqual(assistants[0]!.content, [{ type: "text", text: "from done" }]);
			assert.equal(assistants[0]!.usage!.totalTokens, 5);
			assert.equal(result.stdout.includes('"text_delta","contentIndex":0,"delta":"from done"'), true);
		});

		test("a failing stream is a typed error message with its secret redacted", async () => {
			using dir = tempDir();
			const { result, assistants } = await json(fixture, "throw", dir.path);
			const [message] = assistants;
			assert.equal(message!.stopReason, "error");
			assert.ok(message!.errorMessage!.startsWith(`${who} failed: `), message!.errorMessage);
			assert.match(message!.errorMessage!, /boom: upstream refused api_key=\[REDACTED\]/);
			assert.ok(!result.stdout.includes("abc123") && !result.stderr.includes("abc123"));
			const printed = await run(fixture, "throw", dir.path, false);
			assert.equal(printed.code, 1, "print mode fails the run");
			assert.match(printed.stderr, /failed: (\w+: )?boom: upstream refused api_key=\[REDACTED\]/);
			assert.ok(!printed.stderr.includes("abc123"), printed.stderr);
		});

		test("an error event ends the turn with its text verbatim", async () => {
			using dir = tempDir();
			const { assistants } = await json(fixture, "error", dir.path);
			assert.equal(assistants[0]!.stopReason, "error");
			assert.equal(assistants[0]!.errorMessage, "provider says no");
		});

		if (!options.hostChecks) return;

		test("an event outside the vocabulary fails the turn, keeps what streamed, and names the type", async () => {
			using dir = tempDir();
			const { assistants } = await json(fixture, "bad-event", dir.path);
			assert.equal(assistants[0]!.stopReason, "error");
			assert.equal(
				assistants[0]!.errorMessage,
				`${who} streamed an invalid event: unknown provider stream event type "sparkle"`,
			);
			assert.deepEqual(assistants[0]!.content, [{ type: "text", text: "partial" }]);
		});

		test("print mode prints the streamed text", async () => {
			using dir = tempDir();
			const result = await run(fixture, "hi", dir.path, false);
			assert.equal(result.code, 0, result.stderr);
			assert.equal(result.stdout.trim(), `${fixture.marker}: hello world\nmessages=1 session`);
		});
	});
}

/** A `pier serve` with the fixture loaded, signed in, for the tests of one file (before/after hooks). */
export function chamberWithProvider(fixture: StreamProviderFixture): () => ApiClient {
	const dir = tempDir("pier-provider-stream-chamber-");
	let serve: Serve | undefined;
	let api: ApiClient | undefined;
	before(async () => {
		const args = ["-e", join(REPO_ROOT, fixture.path), "--state-dir", join(dir.path, "state"), "--ui-password", "pw"];
		serve = await startServe(args, { agentDir: join(dir.path, "agent"), cwd: dir.path });
		api = new ApiClient(serve.url);
		assert.equal((await api.login("pw")).status, 200);
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});
	return () => {
		if (!api) throw new Error("the chamber has not started");
		return api;
	};
}

type Row = { kind: string; id: string; text?: string; toolCalls?: { name: string; args: unknown }[] };

/**
 * The chamber check: the session's model picker offers the fixture's model, and a prompt to it streams its turn,
 * runs the tool call and finishes turn two.
 */
export function chamberProviderTest(fixture: StreamProviderFixture, api: () => ApiClient): void {
	test(`a chamber prompt streams the extension's turn, runs its tool call and finishes the second turn (${fixture.runtime})`, async () => {
		const { id, stream } = await api().newSession();
		const ref = `${fixture.providerId}/default`;
		const picker = await api().call<{ models: { ref: string }[] }>("GET", `/api/pi/models?session=${id}`);
		assert.ok(
			picker.body.models.some((m) => m.ref === ref),
			`the model picker offers ${ref}: ${picker.body.models.map((m) => m.ref).join(", ")}`,
		);
		const model = { model: ref };
		assert.equal((await api().call("PUT", `/api/pi/sessions/${id}/model`, model)).status, 200);
		assert.equal((await api().call("POST", `/api/pi/sessions/${id}/prompt`, { text: "tool" })).status, 202);
		const row = (e: { event: string; payload: Record<string, unknown> }) => e.payload.row as Row;
		const first = await stream.waitFor(
			(e) => e.event === "transcript.row" && row(e).kind === "assistant" && row(e).text === "calling shout",
			"the first assistant row",
		);
		assert.deepEqual(row(first).toolCalls, [{ id: "call-1", name: "shout", args: { text: "hello tool" } }]);
		const result = await stream.waitFor(
			(e) => e.event === "transcript.row" && row(e).kind === "tool_result",
			"the tool's result row",
		);
		assert.equal(row(result).text, "HELLO TOOL");
		await stream.waitFor(
			(e) => e.event === "transcript.row" && row(e).kind === "assistant" && row(e).text === "the tool said: HELLO TOOL",
			"the second assistant row",
		);
		stream.close();
	});
}

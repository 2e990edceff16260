/**
 * The provider stream translator (bridge/provider-stream.ts) rule by rule, rpi's redaction shapes
 * (bridge/redact.ts), and the load-phase rules of `provider` / `unregister_provider` frames in a real host
 * (rpi's tests #38, #40, #41).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
	type Api,
	type AssistantMessage,
	type AssistantMessageEvent,
	createAssistantMessageEventStream,
	type Model,
} from "@earendil-works/pi-ai";
import { ProviderStreamTranslator, StreamEventError } from "../../src/extensions/bridge/provider-stream.js";
import { redactSecrets } from "../../src/extensions/host/redact.js";
import { REPO_ROOT } from "../helpers/pier-cli.js";
import { scriptedSpec, testHost } from "../helpers/scripted.js";

const RAW = join(REPO_ROOT, "test", "fixtures", "process", "raw-provider");
const model = { id: "m", api: "pier-extension/x/p", provider: "p" } as Model<Api>;

async function translate(events: unknown[], answer: unknown = null) {
	const stream = createAssistantMessageEventStream();
	const turn = new ProviderStreamTranslator(stream, model);
	for (const event of events) turn.apply(event);
	turn.succeed(answer);
	const seen: AssistantMessageEvent[] = [];
	for await (const event of stream) seen.push(event);
	return { seen, result: (await stream.result()) as AssistantMessage };
}

const kinds = (seen: AssistantMessageEvent[]) => seen.map((e) => e.type);

describe("rpi's stream vocabulary", () => {
	test("every block gets start, deltas and end; deltas extend the open block", async () => {
		const { seen, result } = await translate([
			{ type: "start" },
			{ type: "text_delta", delta: "a" },
			{ type: "text_delta", delta: "b" },
			{ type: "thinking_delta", delta: "t" },
			{ type: "text", text: "c" },
			{ type: "text_delta", delta: "d" },
		]);
		assert.deepEqual(kinds(seen), [
			"start",
			"text_start",
			"text_delta",
			"text_delta",
			"text_end",
			"thinking_start",
			"thinking_delta",
			"thinking_end",
			"text_start",
			"text_delta",
			"text_delta",
			"text_end",
			"done",
		]);
		assert.deepEqual(result.content, [
			{ type: "text", text: "ab" },
			{ type: "thinking", thinking: "t" },
			{ type: "text", text: "cd" },
		]);
		assert.equal(result.stopReason, "stop");
	});

	test("tool calls without an id get rpi's call_extension, then call_extension_2; the stop reason is toolUse", async () => {
		const { result } = await translate([
			{ type: "tool_call", name: "a" },
			{ type: "tool_call", name: "b", arguments: { x: 1 } },
		]);
		assert.deepEqual(result.content, [
			{ type: "toolCall", id: "call_extension", name: "a", arguments: {} },
			{ type: "toolCall", id: "call_extension_2", name: "b", arguments: { x: 1 } },
		]);
		assert.equal(result.stopReason, "toolUse");
	});

	test("done sets the stop reason (rpi's tool_use too) or carries the message", async () => {
		assert.equal(
			(
				await translate([
					{ type: "text", text: "x" },
					{ type: "done", stopReason: "length" },
				])
			).result.stopReason,
			"length",
		);
		assert.equal((await translate([{ type: "done", stopReason: "tool_use" }])).result.stopReason, "toolUse");
		const { seen, result } = await translate([
			{ type: "done", message: { content: [{ type: "text", text: "whole" }] } },
		]);
		assert.deepEqual(result.content, [{ type: "text", text: "whole" }]);
		assert.equal(result.api, model.api, "pi's model fields, whatever the message says");
		assert.deepEqual(kinds(seen), ["start", "text_start", "text_delta", "text_end", "done"]);
	});

	test("an error event ends the turn as pi's error, its text redacted", async () => {
		const { seen, result } = await translate([
			{ type: "text", text: "so far" },
			{ type: "error", error: "no: Authorization: Bearer abcdef" },
		]);
		assert.equal(seen.at(-1)!.type, "error");
		assert.equal(result.stopReason, "error");
		assert.equal(result.errorMessage, "no: [REDACTED]");
		assert.deepEqual(result.content, [{ type: "text", text: "so far" }]);
		assert.equal((await translate([{ type: "error" }])).result.errorMessage, "extension provider stream failed");
	});

	test("pier's form: a whole message answer is replayed block by block; streamed deltas are kept", async () => {
		const whole = await translate([], {
			content: [
				{ type: "thinking", thinking: "t" },
				{ type: "text", text: "x" },
			],
		});
		assert.deepEqual(kinds(whole.seen), [
			"start",
			"thinking_start",
			"thinking_delta",
			"thinking_end",
			"text_start",
			"text_delta",
			"text_end",
			"done",
		]);
		const streamed = await translate([{ type: "text_delta", delta: "x" }], { content: [{ type: "text", text: "x" }] });
		assert.deepEqual(kinds(streamed.seen), ["start", "text_start", "text_delta", "text_end", "done"]);
	});

	test("anything outside the vocabulary is a StreamEventError naming what is wrong", () => {
		const turn = new ProviderStreamTranslator(createAssistantMessageEventStream(), model);
		const cases: [unknown, RegExp][] = [
			["text", /must be an object/],
			[{ text: "x" }, /missing a string "type"/],
			[{ type: "text" }, /missing a string "text"/],
			[{ type: "text_delta", delta: 3 }, /missing a string "delta"/],
			[{ type: "tool_call", arguments: {} }, /missing a string "name"/],
			[{ type: "tool_call", name: "t", arguments: [1] }, /tool_call "t" arguments must be an object/],
			[{ type: "tool_call", name: "t", id: "" }, /tool_call id must be a non-empty string/],
			[{ type: "done", stopReason: "later" }, /unknown provider stream stopReason "later"/],
			[
				{ type: "done", message: { content: "x" } },
				/done message is not an AssistantMessage: content must be an array/,
			],
			[{ type: "sparkle" }, /unknown provider stream event type "sparkle"/],
		];
		for (const [event, message] of cases) {
			assert.throws(
				() => turn.apply(event),
				(e: unknown) => e instanceof StreamEventError && message.test(e.message),
			);
		}
	});
});

describe("redaction (rpi's shapes)", () => {
	test("credential shapes go, plain text stays", () => {
		const secrets = {
			sk: ["s", "k-", "abcdefghijklmnop1234"].join(""),
			ghp: ["gh", "p_", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij"].join(""),
			pat: ["github_", "pat_", "ABC_12345678901234567890"].join(""),
			aws: ["AK", "IA", "0123456789ABCDEF"].join(""),
		};
		const text = `token=abc123, ${secrets.sk}, ${secrets.ghp}, ${secrets.pat}, ${secrets.aws}, Authorization: Bearer xyz789, access_token=leak_me, password: hunter2, AWS_SECRET_ACCESS_KEY="q w"\n-----BEGIN RSA PRIVATE KEY-----\nZm9v\n-----END RSA PRIVATE KEY-----`;
		const out = redactSecrets(text);
		for (const leaked of ["abc123", ...Object.values(secrets), "xyz789", "leak_me", "hunter2", "q w", "Zm9v"]) {
			assert.ok(!out.includes(leaked), `${leaked} leaked: ${out}`);
		}
		assert.match(out, /password=\[REDACTED\]/);
		assert.match(out, /AWS_SECRET_ACCESS_KEY=\[REDACTED\]/);
		assert.equal(redactSecrets("plain text, no secrets"), "plain text, no secrets");
	});
});

describe("provider registrations in the load phase", () => {
	const start = async (variant: string) => {
		const { host, diagnostics } = testHost();
		const report = await host.load([scriptedSpec(RAW, { environment: { PIER_RAW_PROVIDER_VARIANT: variant } })]);
		return { host, report, diagnostics };
	};

	test("unregister then register again: the last registration wins", async () => {
		const { host, report } = await start("unregister");
		try {
			assert.deepEqual(report.failures, []);
			assert.deepEqual([...host.registry.providers.keys()].sort(), ["raw-llm", "replaced"]);
			assert.equal(host.registry.providers.get("replaced")!.descriptor.api, "replaced-api-v2");
		} finally {
			await host.shutdown("test end");
		}
	});

	test("a duplicate, an unknown unregister and a bad id fail the load, naming the rule", async () => {
		for (const [variant, message] of [
			["duplicate", /registered duplicate provider "raw-llm"/],
			["unregister-unknown", /cannot unregister unknown provider "never-registered"/],
			["bad-id", /provider id/],
		] as const) {
			const { host, report } = await start(variant);
			try {
				assert.equal(report.failures.length, 1, variant);
				assert.match(report.failures[0]!.message, message);
				assert.equal(host.registry.providers.size, 0);
			} finally {
				await host.shutdown("test end");
			}
		}
	});

	test("registering or unregistering a provider after the load phase crashes the extension, nothing else", async () => {
		for (const [variant, message] of [
			["late", /registration is only allowed during the load phase/],
			["late-unregister", /provider unregistration is only allowed during the load phase/],
		] as const) {
			const { host, report } = await start(variant);
			try {
				// The late frame races with initialization: the load fails, or the running instance crashes.
				for (let i = 0; i < 100 && host.instances[0] && host.instances[0].phase !== "crashed"; i++) await sleep(10);
				const instance = host.instances[0];
				if (instance) {
					assert.equal(instance.phase, "crashed", variant);
					assert.match(instance.failure!, message);
				} else assert.match(report.failures[0]!.message, message);
				assert.equal(host.registry.providers.has("late-llm"), false);
			} finally {
				await host.shutdown("test end");
			}
		}
	});
});

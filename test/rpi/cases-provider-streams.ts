/**
 * rpi's provider streaming tests (#32–#37) in a pier session: a QuickJS extension's `registerProvider`
 * reaches the session's pi model runtime, and a turn of its model streams the extension's events as pi-ai's.
 * pier's decisions (docs/protocol-v1.md §4.4, §4.6): each provider streams through an API of its own,
 * `pier-extension/<extension>/<provider>`, never the declared `api` (which stays the registration's, for show);
 * the provider `options` are pier's `{temperature?, maxTokens?, reasoning?}`.
 */
import assert from "node:assert/strict";
import type { RpiCase } from "./cases.js";
import type { RpiSource } from "./source.js";
import { OWN_API_NAMES, providerSession, streamTurn, terminal, textOf } from "./session.js";

const FIXTURE = "quickjs-provider.mjs";

const open = (source: RpiSource, id: string, provider = "fixture-llm") =>
	providerSession(source, FIXTURE, id, provider);

export const PROVIDER_STREAM_CASES: RpiCase[] = [
	{
		n: 32,
		name: "quickjs_provider_registers_and_resolves_by_api",
		uses: [FIXTURE],
		decision: OWN_API_NAMES,
		async run(source, checks) {
			await using session = await open(source, "provider-llm");
			const host = session.pier.extensionHost;
			const api = session.api("fixture-llm");
			await checks.that("five providers; fixture-llm's api, label and capabilities as registered", () => {
				const providers = [...host.registry.providers.values()].map((p) => p.descriptor);
				assert.equal(providers.length, 5, "the fixture registers five providers");
				const llm = providers.find((p) => p.id === "fixture-llm");
				assert.ok(llm, "fixture-llm descriptor");
				assert.deepEqual([llm.api, llm.label, llm.capabilities], ["fixture-llm-api", "Fixture LLM", ["streaming"]]);
			});
			await checks.that(`the runtime's model fixture-llm/default streams through pier's API ${api}`, () => {
				const runtime = session.pier.session.modelRuntime;
				assert.equal(session.model("fixture-llm").api, api);
				assert.ok(runtime.getProvider("fixture-llm"), "the session's runtime holds the provider");
				const declared = runtime.getModels().filter((m) => m.api === "fixture-llm-api");
				assert.deepEqual(declared, [], "no model streams through the declared api");
			});
			await checks.that(
				"a turn of the model completes with done (stop), the message naming pi's api and provider",
				async () => {
					const { events, result } = await streamTurn(session, session.model("fixture-llm"));
					assert.ok(
						events.some((e) => e.type === "done" && e.reason === "stop"),
						"the routed stream ends with done",
					);
					assert.equal(result.api, api);
					assert.equal(result.provider, "fixture-llm");
				},
			);
		},
	},
	{
		n: 33,
		name: "quickjs_provider_streams_scripted_events_end_to_end",
		uses: [FIXTURE],
		decision: "options are pier's {temperature, maxTokens, reasoning} (protocol-v1 §4.6)",
		async run(source, checks) {
			await using session = await open(source, "provider-e2e");
			const user = (text: string, timestamp: number) => ({ role: "user" as const, content: text, timestamp });
			const { events, result } = await streamTurn(
				session,
				session.model("fixture-llm"),
				{ messages: [user("hi", 1), user("again", 2)] },
				{ sessionId: "sess-1", temperature: 0.5 },
			);
			await checks.that("start, thinking, text, delta, tool_call, done in the scripted order", () => {
				const seen = events.flatMap((e) => {
					if (e.type === "start") return ["start"];
					if (e.type === "thinking_end" && e.content === "hmm") return ["thinking"];
					if (e.type === "text_delta" && e.delta === "hello") return ["text"];
					if (e.type === "text_delta" && e.delta === " world") return ["delta"];
					if (e.type === "toolcall_end" && e.toolCall.name === "lookup") return ["tool_call"];
					if (e.type === "done") return ["done"];
					return [];
				});
				assert.deepEqual(seen, ["start", "thinking", "text", "delta", "tool_call", "done"]);
			});
			await checks.that("stop; blocks: thinking, text hello world, the lookup call, the echo", () => {
				assert.equal(result.stopReason, "stop");
				assert.equal(result.content.length, 4);
				assert.deepEqual(result.content[1], { type: "text", text: "hello world" });
				const call = result.content[2];
				assert.ok(call?.type === "toolCall" && call.name === "lookup", JSON.stringify(call));
				assert.equal(call.arguments.q, "rust");
			});
			await checks.that("sessionId, messages and options reach the stream function", () => {
				const echo = result.content[3];
				assert.ok(echo?.type === "text", JSON.stringify(echo));
				assert.ok(echo.text.includes("session=sess-1"), echo.text);
				assert.ok(echo.text.includes("messages=2"), echo.text);
				assert.ok(echo.text.endsWith('options={"temperature":0.5}'), echo.text);
			});
		},
	},
	{
		n: 34,
		name: "quickjs_provider_accepts_a_sync_iterable",
		uses: [FIXTURE],
		async run(source, checks) {
			await using session = await open(source, "provider-sync", "fixture-sync");
			const { events, result } = await streamTurn(session, session.model("fixture-sync"));
			await checks.that("the array's text streams through and is the message", () => {
				assert.ok(
					events.some((e) => e.type === "text_end" && e.content === "sync"),
					JSON.stringify(events.map((e) => e.type)),
				);
				assert.equal(textOf(result), "sync");
			});
		},
	},
	{
		n: 35,
		name: "quickjs_provider_js_error_surfaces_as_typed_stream_error",
		uses: [FIXTURE],
		async run(source, checks) {
			await using session = await open(source, "provider-failing", "fixture-failing");
			const { events, result } = await streamTurn(session, session.model("fixture-failing"));
			await checks.that("a terminal message with stopReason error, naming boom, the secret redacted", () => {
				const message = terminal(events);
				assert.ok(message, "the failing stream still ends with a message");
				assert.equal(message.stopReason, "error");
				assert.ok(message.errorMessage?.includes("boom"), message.errorMessage);
				assert.ok(!message.errorMessage?.includes("abc123"), message.errorMessage);
				assert.equal(result.stopReason, "error");
			});
		},
	},
	{
		n: 36,
		name: "quickjs_provider_error_event_is_a_typed_stream_error",
		uses: [FIXTURE],
		async run(source, checks) {
			await using session = await open(source, "provider-error-event", "fixture-error-event");
			const { events } = await streamTurn(session, session.model("fixture-error-event"));
			await checks.that("stopReason error, the event's text verbatim", () => {
				const message = terminal(events);
				assert.equal(message?.stopReason, "error");
				assert.equal(message?.errorMessage, "provider says no");
			});
		},
	},
	{
		n: 37,
		name: "quickjs_provider_non_iterable_result_fails_actionably",
		uses: [FIXTURE],
		async run(source, checks) {
			await using session = await open(source, "provider-not-iterable", "fixture-not-iterable");
			const { events } = await streamTurn(session, session.model("fixture-not-iterable"));
			await checks.that('stopReason error: "must return an async iterator"', () => {
				const message = terminal(events);
				assert.equal(message?.stopReason, "error");
				assert.ok(message?.errorMessage?.includes("must return an async iterator"), message?.errorMessage);
			});
		},
	},
];

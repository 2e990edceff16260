/** rpi's event-hook tests (#19–#21): names and payloads, reductions, the allow-list. */
import assert from "node:assert/strict";
import { HOOK_NAME_LIST, HOOKS } from "../../kit/core/hook-table.mjs";
import { toPiHookResult } from "../../src/extensions/bridge/hook-results.js";
import type { RpiCase } from "./cases.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";
import { firstText, loadOk, loadQuickJs, writePackage } from "./support.js";

/** rpi's QuickJS allow-list (quickjs_host.rs SUPPORTED_EVENTS at 72cdc74). */
export const RPI_EVENT_NAMES = `trust_decision session_start session_info_changed session_before_switch
session_before_fork session_before_compact session_compact session_shutdown session_before_tree session_tree context
before_provider_request before_provider_headers after_provider_response before_agent_start agent_start agent_end
agent_settled turn_start turn_end message_start message_update message_end tool_execution_start
tool_execution_update tool_execution_end model_select thinking_level_select tool_call tool_result user_bash input`
	.split(/\s+/)
	.filter(Boolean);

/** The one answer of the one extension loaded. */
async function answerOf(
	host: { emit(name: string, data: unknown): Promise<Array<{ result: unknown }>> },
	name: string,
	data: unknown,
) {
	const outcomes = await host.emit(name, data);
	assert.equal(outcomes.length, 1, `one outcome for ${name}`);
	const result = outcomes[0]!.result as { ok: boolean; value?: unknown; error?: Error };
	if (!result.ok) throw result.error;
	return result.value as Record<string, unknown>;
}

/** Each advisory emit of rpi's #20: the event, its data, and the keys the merged answer must carry. */
const REDUCTIONS: Array<[string, unknown, Record<string, unknown>]> = [
	[
		"before_agent_start",
		{ prompt: "hello", systemPrompt: "base" },
		{
			systemPrompt: "base\nfixture-system",
			message: {
				customType: "fixture.before-agent",
				content: "fixture message",
				display: true,
				details: { prompt: "hello" },
			},
		},
	],
	[
		"context",
		{ messages: [] },
		{ messages: [{ role: "user", content: [{ type: "text", text: "fixture-context" }], timestamp: 17 }] },
	],
	["before_provider_request", { payload: { model: "fixture" } }, { model: "fixture", transformedByFixture: true }],
	[
		"before_provider_headers",
		{ headers: { "x-original": "yes", "x-remove": "old" } },
		{ headers: { "x-original": "yes", "x-fixture": "yes", "x-remove": null } },
	],
	[
		"message_end",
		{ message: { role: "assistant", content: [] } },
		{ message: { role: "assistant", content: [{ type: "text", text: "fixture-message" }] } },
	],
	["tool_call", { toolName: "danger", toolCallId: "call-1", input: {} }, { block: true, reason: "blocked by fixture" }],
	[
		"tool_result",
		{ toolName: "read", toolCallId: "call-1", input: {}, content: [], isError: true },
		{
			content: [{ type: "text", text: "fixture-result" }],
			details: { replaced: true },
			isError: false,
			usage: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4 },
		},
	],
	["session_before_switch", { reason: "resume" }, { cancel: true }],
	["session_before_fork", { entryId: "entry", position: "at" }, { cancel: true, skipConversationRestore: true }],
	["session_before_compact", { reason: "manual", willRetry: false }, { cancel: true }],
	["input", { text: "original", source: "interactive" }, { action: "transform", text: "fixture-input" }],
	[
		"session_before_tree",
		{ preparation: { targetId: "entry" } },
		{
			cancel: false,
			summary: { summary: "fixture summary", details: { source: "fixture" } },
			customInstructions: "fixture instructions",
			replaceInstructions: true,
			label: "fixture-label",
		},
	],
];

/** rpi's reduce_* path: what pi's runner receives from the answer (bridge/hook-results.ts). */
const PI_RESULTS: Array<[string, unknown, (result: Record<string, unknown> | undefined) => void]> = [
	[
		"before_agent_start",
		{ prompt: "hello", systemPrompt: "base" },
		(r) => {
			assert.equal(r?.systemPrompt, "base\nfixture-system");
			assert.equal((r?.message as { customType?: string })?.customType, "fixture.before-agent");
		},
	],
	[
		"context",
		{ messages: [] },
		(r) => assert.equal(firstText((r?.messages as unknown[] | undefined)?.[0]), "fixture-context"),
	],
	["before_provider_request", { payload: { model: "fixture" } }, (r) => assert.equal(r?.transformedByFixture, true)],
	[
		"tool_call",
		{ toolName: "danger", toolCallId: "call-1", input: {} },
		(r) => assert.deepEqual(r, { block: true, reason: "blocked by fixture" }),
	],
	[
		"tool_result",
		{ toolName: "read", toolCallId: "call-1", input: {}, content: [], isError: true },
		(r) => {
			assert.equal(r?.isError, false);
			assert.deepEqual(r?.details, { replaced: true });
			assert.equal((r?.usage as { cacheRead?: number })?.cacheRead, 3, "usage is kept");
		},
	],
	[
		"message_end",
		{ message: { role: "user", content: [{ type: "text", text: "original" }], timestamp: 1 } },
		(r) => assert.equal(firstText(r?.message), "fixture-message"),
	],
	["session_before_switch", { reason: "resume" }, (r) => assert.equal(r?.cancel, true)],
	[
		"session_before_fork",
		{ entryId: "entry", position: "at" },
		(r) => assert.deepEqual(r, { cancel: true, skipConversationRestore: true }),
	],
	["session_before_compact", { reason: "manual", willRetry: false }, (r) => assert.equal(r?.cancel, true)],
	[
		"session_before_tree",
		{ preparation: { targetId: "entry" } },
		(r) => {
			assert.equal(r?.cancel, false);
			assert.equal((r?.summary as { summary?: string })?.summary, "fixture summary");
			assert.equal(r?.customInstructions, "fixture instructions");
			assert.equal(r?.replaceInstructions, true);
			assert.equal(r?.label, "fixture-label");
		},
	],
	[
		"input",
		{ text: "original", source: "interactive" },
		(r) => assert.deepEqual(r, { action: "transform", text: "fixture-input" }),
	],
];

export const EVENT_CASES: RpiCase[] = [
	{
		n: 19,
		name: "quickjs_delivers_all_authoritative_event_names_and_payloads",
		uses: ["quickjs-event-matrix.mjs"],
		async run(source, checks) {
			await using ext = await loadOk(source.fixture("quickjs-event-matrix.mjs"), {
				capabilities: ["event_hooks"],
			});
			for (const name of RPI_EVENT_NAMES) {
				const data = {
					marker: `marker-${name}`,
					payload: { event: name },
					headers: { "x-original": "yes" },
					input: { event: name },
				};
				const signal = name === "session_before_compact" || name === "session_before_tree";
				await checks.that(`${name}: type, payload${signal ? " and a signal" : ", no signal"}`, async () => {
					const value = await answerOf(ext.host, name, data);
					const event = value.event as Record<string, unknown>;
					assert.equal(event.type, name, "event.type");
					assert.equal(event.marker, `marker-${name}`);
					assert.deepEqual(event.payload, { event: name });
					assert.deepEqual(event.headers, { "x-original": "yes" });
					assert.deepEqual(event.input, { event: name });
					assert.equal(value.hasSignal, signal, "event.signal");
				});
			}
		},
	},
	{
		n: 20,
		name: "quickjs_hook_return_values_apply_semantic_reductions",
		uses: ["quickjs-hook-transforms.mjs"],
		async run(source, checks) {
			await using ext = await loadOk(source.fixture("quickjs-hook-transforms.mjs"), {
				capabilities: ["event_hooks"],
			});
			for (const [name, data, expected] of REDUCTIONS) {
				await checks.that(`emit ${name}: ${Object.keys(expected).join(", ")}`, async () => {
					const value = await answerOf(ext.host, name, data);
					for (const [key, want] of Object.entries(expected)) assert.deepEqual(value[key], want, `${name}.${key}`);
				});
			}
			for (const [name, data, check] of PI_RESULTS) {
				await checks.that(`reduced for pi: ${name}`, async () => {
					const event = structuredClone(data) as Record<string, unknown>;
					const answer = await answerOf(ext.host, name, event);
					check(toPiHookResult(name, answer, event) as Record<string, unknown> | undefined);
				});
			}
			await checks.that("in a real session (pier run): input, before_agent_start and message_end apply", async () => {
				using pkg = writePackage(source.fixture("quickjs-hook-transforms.mjs"), {
					id: "hook-transforms",
					capabilities: ["event_hooks"],
				});
				using agent = tempDir();
				const json = await runPier(["run", "--mode", "json", "-e", pkg.dir, "hello"], { agentDir: agent.path });
				assert.equal(json.code, 0, json.stderr);
				const events = json.stdout
					.trim()
					.split("\n")
					.map((line) => JSON.parse(line) as { type: string; message?: Record<string, unknown> });
				const started = events.filter((e) => e.type === "message_start").map((e) => e.message!);
				assert.equal(
					firstText(started.find((m) => m.role === "user")),
					"fixture-input",
					"the input hook transformed the prompt",
				);
				const custom = started.find((m) => m.customType === "fixture.before-agent");
				assert.deepEqual(custom?.details, { prompt: "fixture-input" }, "before_agent_start added its message");
				const ended = events.filter((e) => e.type === "message_end" && e.message?.role === "assistant");
				assert.equal(firstText(ended.at(-1)?.message), "fixture-message", "message_end replaced the answer");
				const text = await runPier(["run", "-e", pkg.dir, "hello"], { agentDir: agent.path });
				assert.equal(text.stdout.trim(), "fixture-message", "text mode prints the replaced answer");
			});
		},
	},
	{
		n: 21,
		name: "every_allow_listed_event_name_has_a_producer",
		uses: [],
		decision:
			"REFERENCES #6: pier accepts rpi's 32 names plus project_trust, resources_discover, permission_denied and pi 1.6's events whose payload is JSON",
		async run(_source, checks) {
			await checks.that("the table lists each name once", () =>
				assert.equal(new Set(HOOK_NAME_LIST).size, HOOK_NAME_LIST.length),
			);
			await checks.that("every accepted name has a producer", () => {
				for (const name of HOOK_NAME_LIST) assert.ok(["pi", "pier"].includes(HOOKS[name]!.producer), name);
			});
			await checks.that("rpi's 32 names are all accepted; the rest are REFERENCES #6's", () => {
				assert.deepEqual(
					RPI_EVENT_NAMES.filter((n) => !HOOK_NAME_LIST.includes(n)),
					[],
				);
				assert.deepEqual(HOOK_NAME_LIST.filter((n) => !RPI_EVENT_NAMES.includes(n)).sort(), [
					"agent_before_settle",
					"cache_warming_decision",
					"context_with_system",
					"mcp_servers_change",
					"permission_denied",
					"project_trust",
					"provider_stream_event",
					"resources_discover",
					"session_compact_failed",
					"ui_prompt_end",
					"ui_prompt_start",
				]);
			});
			const program = `export default function (pi) { for (const n of ${JSON.stringify(HOOK_NAME_LIST)}) pi.on(n, () => null); }\n`;
			await using ext = await loadQuickJs(program, { capabilities: ["event_hooks"] });
			await checks.that("a QuickJS extension registers every accepted name", () => {
				assert.deepEqual(ext.failures, []);
				assert.deepEqual([...ext.host.registry.hooks.keys()].sort(), [...HOOK_NAME_LIST].sort());
			});
		},
	},
];

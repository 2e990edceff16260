/** rpi's invocation, session-action, cancellation and guard tests (#12–#18). */
import assert from "node:assert/strict";
import type { RuntimeHost } from "../../src/extensions/host/instance.js";
import type { RuntimeAction } from "../../src/extensions/protocol/frames.js";
import type { RpiCase } from "./cases.js";
import type { RpiSource } from "./source.js";
import { EchoActionHost, firstText, loadOk, messageOf, renamingHost } from "./support.js";

const BASIC_CAPS = ["commands", "tools", "session_actions", "event_hooks"];
const sent = (actions: RuntimeAction[], match: (a: RuntimeAction) => boolean, what: string) =>
	assert.ok(actions.some(match), `no ${what} among ${JSON.stringify(actions)}`);

/** The phase4 fixture with rpi's capabilities for it, answering through `runtimeHost`. */
const loadPhase4 = (source: RpiSource, runtimeHost: RuntimeHost) =>
	loadOk(source.fixture("quickjs-phase4.mjs"), { capabilities: ["commands", "tools", "session_actions"], runtimeHost });

export const ACTION_CASES: RpiCase[] = [
	{
		n: 12,
		name: "quickjs_invokes_registered_command_and_tool",
		uses: ["quickjs-basic.mjs"],
		async run(source, checks) {
			await using ext = await loadOk(source.fixture("quickjs-basic.mjs"), {
				capabilities: BASIC_CAPS,
				runtimeHost: renamingHost,
			});
			const { host } = ext;
			await checks.that("alpha one, beta two answer in order", async () => {
				assert.equal(await host.invokeCommand("alpha", "one"), "alpha:one");
				assert.equal(await host.invokeCommand("beta", "two"), "beta:two");
			});
			await checks.that("the tool's arguments cross in and its result back: qjs:ok", async () =>
				assert.equal(firstText(await host.invokeTool("echo_quickjs", "call-1", { value: "ok" })), "qjs:ok"),
			);
			await checks.that("rename resolves with the host's answer {name}", async () =>
				assert.deepEqual(await host.invokeCommand("rename", "session-a"), { name: "session-a" }),
			);
		},
	},
	{
		n: 13,
		name: "quickjs_tool_updates_stream_to_the_host_before_the_result",
		uses: ["quickjs-phase4.mjs"],
		async run(source, checks) {
			await using ext = await loadPhase4(source, new EchoActionHost());
			const updates: unknown[] = [];
			let updatesAtResult = -1;
			const result = await ext.host.invokeTool(
				"phase4_stream",
				"call-1",
				{ value: "ok" },
				{ onUpdate: (update) => updates.push(update) },
			);
			updatesAtResult = updates.length;
			await checks.that("two updates, in order, the second with its details", () => {
				assert.equal(updatesAtResult, 2);
				assert.equal(firstText(updates[0]), "partial");
				assert.equal(firstText(updates[1]), "second");
				assert.deepEqual((updates[1] as { details?: unknown }).details, { step: 2 });
			});
			await checks.that("then the result final:ok", () => assert.equal(firstText(result), "final:ok"));
		},
	},
	{
		n: 14,
		name: "quickjs_session_actions_resolve_with_the_host_result",
		uses: ["quickjs-phase4.mjs"],
		async run(source, checks) {
			const actionHost = new EchoActionHost();
			await using ext = await loadPhase4(source, actionHost);
			const results = (await ext.host.invokeCommand("phase4_session_actions", "")) as Record<string, unknown>;
			const expected: Record<string, unknown> = {
				setModel: true,
				setThinkingLevel: { level: "High" },
				setActiveTools: { tools: ["tool-a", "tool-b"] },
				setLabel: { entryId: "entry-1", label: "label-x" },
				appendEntry: { customType: "custom-type", data: { key: "value" } },
				sendMessage: { customType: "custom", delivery: "Steer", triggerTurn: false },
				sendUserMessage: { content: "hello", delivery: "FollowUp" },
				abort: { action: "abort" },
				shutdown: { action: "shutdown" },
				compact: { customInstructions: "trim it" },
				waitForIdle: { action: "wait_for_idle" },
				reload: { action: "reload" },
			};
			for (const [name, value] of Object.entries(expected)) {
				await checks.that(`${name} resolves with the host's answer`, () => assert.deepEqual(results[name], value));
			}
			const a = actionHost.actions;
			await checks.that("the actions reach the host with rpi's payloads", () => {
				sent(a, (x) => x.kind === "set_model" && (x.model as { id?: string }).id === "test-model", "set_model");
				sent(a, (x) => x.kind === "set_thinking_level" && x.level === "high", "set_thinking_level high");
				sent(
					a,
					(x) => x.kind === "set_active_tools" && JSON.stringify(x.toolNames) === '["tool-a","tool-b"]',
					"set_active_tools",
				);
				sent(a, (x) => x.kind === "set_label" && x.entryId === "entry-1" && x.label === "label-x", "set_label");
				sent(
					a,
					(x) =>
						x.kind === "append_entry" &&
						x.customType === "custom-type" &&
						(x.data as { key?: string })?.key === "value",
					"append_entry",
				);
				sent(
					a,
					(x) =>
						x.kind === "send_message" && x.message.customType === "custom" && x.delivery === "steer" && !x.triggerTurn,
					"send_message steer",
				);
				sent(
					a,
					(x) => x.kind === "send_user_message" && x.content === "hello" && x.delivery === "followUp",
					"send_user_message followUp",
				);
				for (const kind of ["abort", "shutdown", "wait_for_idle", "reload"]) sent(a, (x) => x.kind === kind, kind);
			});
			await checks.that('ctx.compact("trim it") sends its instructions', () =>
				sent(a, (x) => x.kind === "compact" && x.customInstructions === "trim it", "compact with customInstructions"),
			);
		},
	},
	{
		n: 15,
		name: "quickjs_set_model_resolves_with_the_host_boolean",
		uses: ["quickjs-phase4.mjs"],
		async run(source, checks) {
			await using ext = await loadPhase4(source, new EchoActionHost());
			await checks.that("pi.setModel resolves true", async () =>
				assert.equal(await ext.host.invokeCommand("phase4_set_model", ""), true),
			);
		},
	},
	{
		n: 16,
		name: "quickjs_cancel_settles_a_pending_invocation_promptly",
		uses: ["quickjs-phase4.mjs"],
		async run(source, checks) {
			const actionHost = new EchoActionHost();
			await using ext = await loadPhase4(source, actionHost);
			const controller = new AbortController();
			const hang = ext.host.invokeCommand("phase4_hang", "", { timeoutMs: 30_000, signal: controller.signal });
			hang.catch(() => {});
			const ready = Date.now() + 5_000;
			while (!actionHost.actions.some((a) => a.kind === "set_active_tools")) {
				assert.ok(Date.now() < ready, "the hang command never reached its readiness action");
				await new Promise((resolve) => setTimeout(resolve, 20));
			}
			const cancelledAt = Date.now();
			controller.abort();
			await checks.that("the invocation fails as cancelled within 5 s", async () => {
				const error = await hang.then(
					(value) => assert.fail(`a cancelled invocation succeeded with ${JSON.stringify(value)}`),
					(e: unknown) => e,
				);
				assert.match(messageOf(error), /cancel/);
				assert.ok(Date.now() - cancelledAt < 5_000);
			});
			await checks.that("the extension takes new work: probe → phase4-probe-ok", async () =>
				assert.equal(await ext.host.invokeCommand("probe", "", { timeoutMs: 5_000 }), "phase4-probe-ok"),
			);
		},
	},
	{
		n: 17,
		name: "quickjs_session_actions_require_the_capability",
		uses: ["inline"],
		async run(source, checks) {
			await using ext = await loadOk(source.inline(this.name, 0), {
				id: "quickjs-no-session-actions",
				capabilities: ["commands"],
			});
			await checks.that('pi.setModel fails: "requires the session_actions capability"', () =>
				assert.rejects(ext.host.invokeCommand("capability-probe", ""), /requires the session_actions capability/),
			);
		},
	},
	{
		n: 18,
		name: "quickjs_memory_and_interrupt_are_wired",
		uses: ["quickjs-smoke.mjs"],
		async run(source, checks) {
			await using ext = await loadOk(source.fixture("quickjs-smoke.mjs"), {
				capabilities: ["commands"],
				deadlineMs: 750,
			});
			const { host } = ext;
			await checks.that("a synchronous spin is interrupted and answered", () =>
				assert.rejects(host.invokeCommand("spin", "", { timeoutMs: 15_000 }), /interrupt/),
			);
			await checks.that("usable after the interrupt: probe → probe-ok", async () =>
				assert.equal(await host.invokeCommand("probe", "", { timeoutMs: 5_000 }), "probe-ok"),
			);
			await checks.that("an allocation bomb fails naming memory", () =>
				assert.rejects(host.invokeCommand("allocate", "", { timeoutMs: 15_000 }), /memory/),
			);
			await checks.that("usable after out of memory: probe → probe-ok", async () =>
				assert.equal(await host.invokeCommand("probe", "", { timeoutMs: 5_000 }), "probe-ok"),
			);
		},
	},
];

/** rpi's loading and registration tests (#3, #4, #6, #7, #10, #11, #22, #23 and extension_api_conformance.rs). */
import assert from "node:assert/strict";
import type { RpiCase } from "./cases.js";
import { firstText, loadOk, loadQuickJs, packageSpec, renamingHost, ScriptedUi } from "./support.js";

const QJS_CAPS = ["commands", "tools", "event_hooks", "ui"];
const BASIC_CAPS = ["commands", "tools", "session_actions", "event_hooks"];
const sorted = (names: Iterable<string>) => [...names].sort();

export const REGISTRATION_CASES: RpiCase[] = [
	{
		n: 3,
		name: "trusted_quickjs_manifest_registers_commands_tools_and_event_hooks",
		uses: ["inline"],
		async run(source, checks) {
			const ui = new ScriptedUi();
			await using ext = await loadOk(source.inline(this.name, 0), {
				capabilities: QJS_CAPS,
				uiCapabilities: ["notify"],
				runtimeHost: ui,
			});
			const { host } = ext;
			await checks.that("first load mints generation 1", () => assert.equal(host.generation, 1));
			await checks.that("commands hello, alpha, beta", () =>
				assert.deepEqual(sorted(host.registry.commands.keys()), ["alpha", "beta", "hello"]),
			);
			await checks.that("tool echo_quickjs, capability defaults to exec", () => {
				assert.deepEqual([...host.registry.tools.keys()], ["echo_quickjs"]);
				assert.equal(host.registry.tools.get("echo_quickjs")!.descriptor.capability, "exec");
			});
			await checks.that("hello notifies through the UI host", async () => {
				await host.invokeCommand("hello", "");
				assert.ok(ui.requests.some((r) => r.type === "notify" && r.message === "hello from quickjs"));
			});
			await checks.that("alpha hello → alpha:hello; the chain alpha one, beta two answers in order", async () => {
				assert.equal(await host.invokeCommand("alpha", "hello"), "alpha:hello");
				const chain = [];
				for (const [name, args] of [
					["alpha", "one"],
					["beta", "two"],
				] as const)
					chain.push([name, await host.invokeCommand(name, args)]);
				assert.deepEqual(chain, [
					["alpha", "alpha:one"],
					["beta", "beta:two"],
				]);
			});
			await checks.that("the tool answers qjs:ok", async () =>
				assert.equal(firstText(await host.invokeTool("echo_quickjs", "call-1", { value: "ok" })), "qjs:ok"),
			);
			await checks.that("session_start's answer comes back", async () => {
				const outcomes = await host.emit("session_start", { reason: "test" });
				assert.equal(outcomes.length, 1);
				assert.deepEqual(outcomes[0]!.result, { ok: true, value: { observed: "test" } });
			});
		},
	},
	{
		n: 4,
		name: "quickjs_extension_rejects_oversized_outbound_frame",
		uses: ["inline"],
		async run(source, checks) {
			await using ext = await loadOk(source.inline(this.name, 0), {
				id: "oversized-quickjs",
				capabilities: ["commands"],
				maxFrameBytes: 1024,
			});
			await checks.that('a 4,096-character answer is refused: "frame exceeds 1024 bytes"', () =>
				assert.rejects(ext.host.invokeCommand("oversized", ""), /frame exceeds 1024 bytes/),
			);
		},
	},
	{
		n: 6,
		name: "quickjs_sandbox_exposes_no_process_or_host_globals",
		uses: ["inline"],
		async run(source, checks) {
			await using ext = await loadOk(source.inline(this.name, 0), {
				capabilities: QJS_CAPS,
				uiCapabilities: ["notify"],
			});
			const seen = (await ext.host.invokeCommand("sandbox_probe", "")) as Record<string, string>;
			for (const name of ["process", "require", "fetch", "Buffer", "console", "setTimeout", "global"]) {
				await checks.that(`${name} is undefined`, () => assert.equal(seen[name], "undefined"));
			}
		},
	},
	{
		n: 7,
		name: "failed_quickjs_reload_keeps_prior_generation_after_invalid_update",
		uses: ["inline"],
		decision: "no staged reload: reload is one all-or-nothing call (docs/protocol-v1.md, Differences from rpi)",
		async run(source, checks) {
			await using ext = await loadOk(source.inline(this.name, 0), {
				id: "stable-ext",
				capabilities: ["commands"],
			});
			const { host } = ext;
			await checks.that("generation 1; stable answers stable-ok", async () => {
				assert.equal(host.generation, 1);
				assert.equal(await host.invokeCommand("stable", ""), "stable-ok");
			});
			using bad = packageSpec(source.inline(this.name, 1), { id: "broken-ext", capabilities: ["commands"] });
			const report = await host.reload([bad.spec]);
			await checks.that("the reload fails with one actionable failure", () => {
				assert.equal(report.committed, false);
				assert.equal(report.failures.length, 1);
				assert.match(report.failures[0]!.message.toLowerCase(), /intentional reload failure|load/);
			});
			await checks.that("the prior generation stays, with its commands, callable", async () => {
				assert.equal(host.generation, 1);
				assert.deepEqual([...host.registry.commands.keys()], ["stable"]);
				assert.equal(await host.invokeCommand("stable", ""), "stable-ok");
			});
		},
	},
	{
		n: 10,
		name: "trusted_quickjs_manifest_registers_js_commands_and_tools",
		uses: ["quickjs-basic.mjs"],
		async run(source, checks) {
			await using ext = await loadOk(source.fixture("quickjs-basic.mjs"), { capabilities: BASIC_CAPS });
			const { host } = ext;
			await checks.that("generation 1", () => assert.equal(host.generation, 1));
			await checks.that("commands hello, alpha, beta, rename", () =>
				assert.deepEqual(sorted(host.registry.commands.keys()), ["alpha", "beta", "hello", "rename"]),
			);
			await checks.that("tool echo_quickjs, capability defaults to exec", () => {
				assert.deepEqual([...host.registry.tools.keys()], ["echo_quickjs"]);
				assert.equal(host.registry.tools.get("echo_quickjs")!.descriptor.capability, "exec");
			});
			await checks.that("hello quickjs → hello:quickjs", async () =>
				assert.equal(await host.invokeCommand("hello", "quickjs"), "hello:quickjs"),
			);
		},
	},
	{
		n: 11,
		name: "quickjs_works_without_bun",
		uses: ["quickjs-basic.mjs"],
		async run(source, checks) {
			// pier's QuickJS is a WebAssembly module in a worker thread: no executable is looked up at all.
			await using ext = await loadQuickJs(source.fixture("quickjs-basic.mjs"), {
				capabilities: BASIC_CAPS,
				runtimeHost: renamingHost,
			});
			await checks.that("loads", () => assert.deepEqual(ext.failures, []));
			await checks.that("hello → hello:world", async () =>
				assert.equal(await ext.host.invokeCommand("hello", ""), "hello:world"),
			);
		},
	},
	{
		n: 22,
		name: "removed_event_names_fail_registration",
		uses: ["inline"],
		decision:
			"REFERENCES #6: project_trust and resources_discover are OMP hooks pier produces, so they register; overlay_open and overlay_close are refused as in rpi",
		async run(source, checks) {
			for (const [name, accepted] of [
				["project_trust", true],
				["resources_discover", true],
				["overlay_open", false],
				["overlay_close", false],
			] as const) {
				await using ext = await loadQuickJs(source.inline(this.name, 0, { removed: name }), {
					id: `quickjs-removed-${name}`,
					capabilities: ["event_hooks"],
				});
				await checks.that(accepted ? `${name} registers` : `${name}: "unsupported extension event ${name}"`, () => {
					if (accepted) assert.deepEqual(ext.failures, []);
					else {
						assert.equal(ext.failures.length, 1);
						assert.match(ext.failures[0]!, new RegExp(`unsupported extension event ${name}`));
					}
				});
			}
		},
	},
	{
		n: 23,
		name: "quickjs_event_registration_fails_closed",
		uses: ["inline"],
		async run(source, checks) {
			{
				await using ext = await loadQuickJs(source.inline(this.name, 0), {
					id: "quickjs-bad-event",
					capabilities: ["event_hooks"],
				});
				await checks.that('an unknown name: "unsupported extension event not_an_event"', () => {
					assert.equal(ext.failures.length, 1);
					assert.match(ext.failures[0]!, /unsupported extension event not_an_event/);
				});
			}
			await using ext = await loadQuickJs(source.inline(this.name, 1), {
				id: "quickjs-no-cap",
				capabilities: ["commands"],
			});
			await checks.that("a hook without event_hooks fails, naming event_hooks", () => {
				assert.equal(ext.failures.length, 1);
				assert.match(ext.failures[0]!, /event_hooks/);
			});
		},
	},
	{
		n: "extension_api_conformance.rs",
		name: "dead_registration_categories_fail_closed",
		uses: ["unsupported-tool-fields.mjs", "invalid-tool-capability.mjs", "renderer-registration.mjs"],
		async run(source, checks) {
			for (const [fixture, capabilities, expected] of [
				["unsupported-tool-fields.mjs", ["tools"], "registerTool.constrainedSampling"],
				["invalid-tool-capability.mjs", ["tools"], "registerTool capability must be read, write, or exec"],
				["renderer-registration.mjs", ["message_renderers"], "renderer"],
			] as const) {
				await using ext = await loadQuickJs(source.fixture(fixture), {
					id: fixture.replace(".mjs", ""),
					capabilities: [...capabilities],
				});
				await checks.that(`${fixture} does not load: "${expected}"`, () => {
					assert.equal(ext.failures.length, 1);
					assert.ok(ext.failures[0]!.toLowerCase().includes(expected.toLowerCase()), ext.failures[0]);
					assert.equal(ext.host.registry.tools.size, 0);
					assert.equal(ext.host.registry.messageRenderers.size, 0);
					assert.equal(ext.host.registry.providerMetadata.size, 0);
				});
			}
		},
	},
	{
		n: "extension_api_conformance.rs",
		name: "shipped_quickjs_example_loads_and_its_surface_is_live",
		uses: ["quickjs_extension.mjs"],
		async run(source, checks) {
			await using ext = await loadQuickJs(source.fixture("quickjs_extension.mjs"), {
				id: "quickjs-example",
				capabilities: ["commands", "tools", "event_hooks", "session_actions", "ui"],
				uiCapabilities: ["notify", "status"],
			});
			await checks.that("loads", () => assert.deepEqual(ext.failures, []));
			await checks.that("commands quickjs-hello and quickjs-session", () => {
				assert.ok(ext.host.registry.commands.has("quickjs-hello"));
				assert.ok(ext.host.registry.commands.has("quickjs-session"));
			});
			await checks.that("one tool, quickjs_echo, answers echo:works", async () => {
				assert.deepEqual([...ext.host.registry.tools.keys()], ["quickjs_echo"]);
				assert.equal(
					firstText(await ext.host.invokeTool("quickjs_echo", "call-example-1", { text: "works" })),
					"echo:works",
				);
			});
		},
	},
	{
		n: "extension_perf.rs",
		name: "quickjs_perf_bench (the fixture's surface; timings are not compared)",
		uses: ["quickjs-perf-bench.mjs"],
		async run(source, checks) {
			await using ext = await loadOk(source.fixture("quickjs-perf-bench.mjs"), {
				id: "quickjs-perf",
				capabilities: ["commands", "tools", "event_hooks"],
			});
			await checks.that("noop → ok", async () => assert.equal(await ext.host.invokeCommand("noop", ""), "ok"));
			await checks.that("noop_tool → ok", async () =>
				assert.equal(firstText(await ext.host.invokeTool("noop_tool", "call-1", {})), "ok"),
			);
			await checks.that("turn_start has one outcome", async () =>
				assert.equal((await ext.host.emit("turn_start", {})).length, 1),
			);
		},
	},
];

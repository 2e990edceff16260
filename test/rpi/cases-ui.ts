/** rpi's ctx.ui tests (#24–#29) over the quickjs-ui fixture and a scripted UI host. */
import assert from "node:assert/strict";
import type { RuntimeHost } from "../../src/extensions/host/instance.js";
import type { UiRequest } from "../../src/extensions/protocol/frames.js";
import type { RpiCase } from "./cases.js";
import type { RpiSource } from "./source.js";
import { loadOk, ScriptedUi } from "./support.js";

/** Every UI capability the fixture uses (rpi's QUICKJS_UI_CAPABILITIES). */
const UI_CAPABILITIES = `select confirm input editor notify status widget title set_editor_text editor_text working
hidden_thinking theme tools_expanded`.split(/\s+/);

const FIXTURE = "quickjs-ui.mjs";
/** The ui fixture with every UI capability it uses, unless the case withholds some. */
const loadUi = (
	source: RpiSource,
	options: { capabilities?: string[]; uiCapabilities?: string[]; runtimeHost?: RuntimeHost },
) =>
	loadOk(source.fixture(FIXTURE), {
		capabilities: options.capabilities ?? ["commands", "ui"],
		uiCapabilities: options.uiCapabilities ?? UI_CAPABILITIES,
		...(options.runtimeHost ? { runtimeHost: options.runtimeHost } : {}),
	});

/** Each request the exercise-ui command must send, in pier's wire shape (rpi's ExtensionUiRequest variants). */
const EXPECTED_REQUESTS: UiRequest[] = [
	{ type: "confirm", title: "Continue?", message: "Proceed?" },
	{
		type: "select",
		title: "Pick",
		options: [
			{ value: "one", label: "One", description: "first" },
			{ value: "two", label: "two" },
		],
	},
	{ type: "input", title: "Name", placeholder: "hint" },
	{ type: "editor", title: "Edit", prefill: "prefill" },
	{ type: "notify", message: "hello from quickjs", level: "info" },
	{ type: "notify", message: "warning from quickjs", level: "warning" },
	{ type: "status", key: "status-key", text: "running" },
	{ type: "widget", key: "widget-key", lines: ["line 1", "line 2"], placement: "below_editor" },
	{ type: "title", title: "quickjs title" },
	{ type: "set_editor_text", text: "editor text" },
	{ type: "set_working_message", message: "working" },
	{ type: "set_working_visible", visible: true },
	{ type: "set_working_indicator", options: { frames: ["·", "●"], intervalMs: 120 } },
	{ type: "set_hidden_thinking_label", label: "thinking…" },
	{ type: "paste_to_editor", text: "pasted" },
	{ type: "set_tools_expanded", expanded: true },
	{ type: "set_theme", name: "dark" },
	{ type: "get_editor_text" },
	{ type: "get_all_themes" },
	{ type: "get_theme", name: "dark" },
	{ type: "get_tools_expanded" },
];

export const UI_CASES: RpiCase[] = [
	{
		n: 24,
		name: "quickjs_ctx_ui_round_trips_through_the_scripted_host",
		uses: [FIXTURE],
		async run(source, checks) {
			const ui = new ScriptedUi();
			await using ext = await loadUi(source, { runtimeHost: ui });
			let answers: Record<string, unknown> = {};
			await checks.that("exercise-ui runs to its end", async () => {
				answers = (await ext.host.invokeCommand("exercise-ui", "")) as Record<string, unknown>;
			});
			await checks.that("every dialog and query resolves with the host's answer", () =>
				assert.deepEqual(answers, {
					confirmed: true,
					selected: "one",
					typed: "typed-value",
					edited: "prefill!",
					editorText: "editor-text",
					themes: [{ name: "dark" }, { name: "light", path: "/themes/light.json" }],
					theme: { name: "dark" },
					setThemeResult: { success: true },
					missingTheme: null,
					toolsExpanded: true,
				}),
			);
			for (const want of EXPECTED_REQUESTS) {
				await checks.that(`request ${want.type} ${JSON.stringify(want).slice(0, 80)}`, () =>
					assert.ok(
						ui.requests.some((r) => {
							try {
								assert.deepEqual(r, want);
								return true;
							} catch {
								return false;
							}
						}),
						`not sent; sent: ${JSON.stringify(ui.requests.filter((r) => r.type === want.type))}`,
					),
				);
			}
		},
	},
	{
		n: 25,
		name: "quickjs_ui_cancellation_maps_cancelled_dialogs",
		uses: [FIXTURE],
		async run(source, checks) {
			await using ext = await loadUi(source, { runtimeHost: new ScriptedUi() });
			for (const [command, expected] of [
				["confirm-no", false],
				["select-cancel", null],
				["input-cancel", null],
				["editor-cancel", null],
			] as const) {
				await checks.that(`${command} → ${expected}`, async () =>
					assert.equal(await ext.host.invokeCommand(command, ""), expected),
				);
			}
		},
	},
	{
		n: 26,
		name: "quickjs_ui_request_timeout_rejects_the_promise",
		uses: [FIXTURE],
		async run(source, checks) {
			await using ext = await loadUi(source, { runtimeHost: new ScriptedUi() });
			await checks.that('{timeout: 1} fails the promise: "UI request timed out"', () =>
				assert.rejects(ext.host.invokeCommand("confirm-timeout", ""), /UI request timed out/),
			);
		},
	},
	{
		n: 27,
		name: "quickjs_ui_rejects_when_no_ui_host_is_bound",
		uses: [FIXTURE],
		async run(source, checks) {
			await using ext = await loadUi(source, {});
			await checks.that('confirm without a UI host: "no extension UI adapter" or ui_unavailable', () =>
				assert.rejects(ext.host.invokeCommand("confirm-no", ""), /no extension UI adapter|ui_unavailable/),
			);
		},
	},
	{
		n: 28,
		name: "quickjs_ui_rejects_ungranted_ui_capabilities",
		uses: [FIXTURE],
		async run(source, checks) {
			await using ext = await loadUi(source, { uiCapabilities: [], runtimeHost: new ScriptedUi() });
			// rpi prints its enum (`Confirm`); pier names the capability as the manifest spells it (protocol-v1.md §10).
			await checks.that('confirm without the confirm UI capability: "confirm" … "not granted"', () =>
				assert.rejects(ext.host.invokeCommand("confirm-no", ""), /UI capability "confirm" was not granted/),
			);
		},
	},
	{
		n: 29,
		name: "quickjs_ui_requires_the_ui_capability",
		uses: [FIXTURE],
		async run(source, checks) {
			await using ext = await loadUi(source, {
				capabilities: ["commands"],
				uiCapabilities: [],
				runtimeHost: new ScriptedUi(),
			});
			await checks.that('confirm without the ui capability: "requires the ui capability"', () =>
				assert.rejects(ext.host.invokeCommand("confirm-no", ""), /requires the ui capability/),
			);
		},
	},
];

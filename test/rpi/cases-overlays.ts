/**
 * rpi's overlay tests (#45–#47, #49, #50), written against the wire of the overlays branch: the host's
 * `invokeOverlayRender(id)` → `{rows: [{text, style?}], input?}` (rows bounded and redacted) and
 * `invokeOverlayEvent(id, {kind: "submit", text} | {kind: "key", action})`. On a host without them those checks
 * fail, saying so. The guest side (`pi.registerOverlay`) is the guest-core branch's. #48 (the host opening an
 * overlay through the UI host): rpi's `open_overlay(id)` sends the UI host an `OverlayOpen` with the registered
 * title; pier's is the session's OverlayController (`/overlay <id>`), which renders the overlay and hands the
 * view to the UI's overlay surface (the chamber's, or pi's terminal), so the port records what that surface gets.
 */
import assert from "node:assert/strict";
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { OverlayController, type OverlayView } from "../../src/extensions/bridge/overlays.js";
import type { ExtensionHost } from "../../src/extensions/host/host.js";
import type { RpiCase } from "./cases.js";
import { ownSource } from "./source.js";
import { loadOk, loadQuickJs } from "./support.js";

interface OverlayHost {
	invokeOverlayRender(
		id: string,
	): Promise<{ rows: Array<{ text: string; style?: string }>; input?: { value: string } }>;
	invokeOverlayEvent(
		id: string,
		event: { kind: "submit"; text: string } | { kind: "key"; action: string },
	): Promise<unknown>;
}

/** The host's overlay calls, or a failure saying this host has none yet. */
function overlaysOf(host: ExtensionHost): OverlayHost {
	const candidate = host as unknown as Partial<OverlayHost>;
	if (typeof candidate.invokeOverlayRender !== "function" || typeof candidate.invokeOverlayEvent !== "function") {
		throw new Error("this ExtensionHost has no invokeOverlayRender/invokeOverlayEvent (the overlays branch adds them)");
	}
	return candidate as OverlayHost;
}

const OVERLAY_CAPS = { capabilities: ["overlays", "ui", "event_hooks"], uiCapabilities: ["overlay"] };
const SECRET_PREFIX = ["gh", "p_"].join("");

export const OVERLAY_CASES: RpiCase[] = [
	{
		n: 45,
		name: "quickjs_register_overlay_is_listed_and_renders_sanitized_rows",
		// rpi assembles this program from pieces in Rust (to keep the token out of its source): pier's own is used.
		uses: [],
		async run(_source, checks) {
			await using ext = await loadOk(ownSource().inline(this.name, 0), OVERLAY_CAPS);
			await checks.that("listed: chat, Side Chat", () => {
				const overlays = [...ext.host.registry.overlays.values()].map((o) => o.descriptor);
				assert.deepEqual(
					overlays.map((o) => [o.id, o.title]),
					[["chat", "Side Chat"]],
				);
			});
			await checks.that("three rows: plain, styled accent, the secret redacted; no input", async () => {
				const output = await overlaysOf(ext.host).invokeOverlayRender("chat");
				assert.equal(output.rows.length, 3);
				assert.deepEqual(output.rows[0], { text: "hello from overlay" });
				assert.deepEqual(output.rows[1], { text: "styled row", style: "accent" });
				assert.ok(!output.rows[2]!.text.includes(SECRET_PREFIX), output.rows[2]!.text);
				assert.match(output.rows[2]!.text, /\[REDACTED\]/);
				assert.equal(output.input, undefined);
			});
			await checks.that('an unknown id: "unknown extension overlay"', () =>
				assert.rejects(
					Promise.resolve().then(() => overlaysOf(ext.host).invokeOverlayRender("missing")),
					/unknown extension overlay/,
				),
			);
		},
	},
	{
		n: 46,
		name: "quickjs_interactive_overlay_render_and_callbacks_round_trip",
		// rpi keeps this program in a Rust const outside the test function: pier's own is used.
		uses: [],
		async run(_source, checks) {
			await using ext = await loadOk(ownSource().inline(this.name, 0), OVERLAY_CAPS);
			await checks.that("the input declaration is in the registration", () =>
				assert.deepEqual(ext.host.registry.overlays.get("chat")?.descriptor.input, {
					placeholder: "Ask the side agent…",
					multiline: false,
				}),
			);
			await checks.that("render gives its rows and the initial draft", async () => {
				const output = await overlaysOf(ext.host).invokeOverlayRender("chat");
				assert.deepEqual(
					output.rows.map((r) => r.text),
					["hello from overlay"],
				);
				assert.deepEqual(output.input, { value: "initial draft" });
			});
			await checks.that("onSubmit receives exactly the submitted text", async () => {
				const text = `check ${SECRET_PREFIX}ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij`;
				assert.deepEqual(await overlaysOf(ext.host).invokeOverlayEvent("chat", { kind: "submit", text }), {
					submitted: text,
				});
			});
			await checks.that("onKey receives the semantic action", async () => {
				for (const action of ["scroll_up", "abort", "toggle_mode"]) {
					assert.deepEqual(await overlaysOf(ext.host).invokeOverlayEvent("chat", { kind: "key", action }), { action });
				}
			});
			await using bare = await loadOk(
				ownSource().inline("quickjs_register_overlay_is_listed_and_renders_sanitized_rows", 0),
				OVERLAY_CAPS,
			);
			await checks.that('a submit to an overlay without onSubmit: "no onSubmit callback"', () =>
				assert.rejects(
					Promise.resolve().then(() => overlaysOf(bare.host).invokeOverlayEvent("chat", { kind: "submit", text: "x" })),
					/no onSubmit callback/,
				),
			);
		},
	},
	{
		n: 47,
		name: "quickjs_overlay_render_enforces_row_and_length_bounds",
		uses: ["inline"],
		async run(source, checks) {
			await using ext = await loadOk(source.inline(this.name, 0), OVERLAY_CAPS);
			await checks.that("151 rows become 100, none longer than 200 characters", async () => {
				const { rows } = await overlaysOf(ext.host).invokeOverlayRender("big");
				assert.equal(rows.length, 100);
				assert.ok(rows.every((r) => [...r.text].length <= 200));
			});
		},
	},
	{
		n: 48,
		name: "quickjs_overlay_open_round_trips_through_ui_host",
		decision: "the session's overlay controller opens it on the UI's overlay surface",
		// The program of #45 (rpi assembles it in Rust): pier's own is used.
		uses: [],
		async run(_source, checks) {
			await using ext = await loadOk(
				ownSource().inline("quickjs_register_overlay_is_listed_and_renders_sanitized_rows", 0),
				OVERLAY_CAPS,
			);
			const shown: OverlayView[] = [];
			const screen = { setRows() {}, setStatus() {}, restoreDraft() {}, close() {} };
			const ui = {
				overlay(view: OverlayView) {
					shown.push(view);
					return screen;
				},
			};
			const ctx = { ui, hasUI: true } as unknown as ExtensionContext;
			const controller = new OverlayController(ext.host, () => undefined);
			await checks.that("opening chat shows it with the registered title and its rendered rows", async () => {
				await controller.openByUser("chat", ctx);
				assert.equal(shown.length, 1);
				assert.deepEqual([shown[0]!.id, shown[0]!.title], ["chat", "Side Chat"]);
				assert.deepEqual(shown[0]!.rows[0], { text: "hello from overlay" });
				assert.equal(controller.openId, "chat");
			});
			await checks.that('opening an unknown id fails: "unknown extension overlay"', () =>
				assert.rejects(controller.openByUser("missing", ctx), /unknown extension overlay/),
			);
		},
	},
	{
		n: 49,
		name: "quickjs_overlay_lifecycle_events_are_rejected_at_registration",
		uses: ["inline"],
		async run(source, checks) {
			await using ext = await loadQuickJs(source.inline(this.name, 0), {
				id: "quickjs-overlay-events",
				capabilities: ["event_hooks", "overlays"],
			});
			await checks.that('the load fails: "unsupported extension event overlay_open"', () => {
				assert.equal(ext.failures.length, 1);
				assert.match(ext.failures[0]!, /unsupported extension event overlay_open/);
			});
		},
	},
	{
		n: 50,
		name: "quickjs_overlay_registration_requires_overlays_capability",
		uses: ["inline"],
		async run(source, checks) {
			await using ext = await loadQuickJs(source.inline(this.name, 0), { capabilities: [] });
			await checks.that('the load fails: "overlays capability"', () => {
				assert.equal(ext.failures.length, 1);
				assert.match(ext.failures[0]!, /overlays capability/);
			});
		},
	},
];

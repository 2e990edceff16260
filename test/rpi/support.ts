/**
 * What rpi's tests/extensions.rs sets up, in pier: a QuickJS package written to a temporary directory with the
 * manifest the rpi test writes, loaded into a real ExtensionHost (real worker, real QuickJS), and session sides
 * that answer as rpi's test hosts do (`ScriptedUi`, `Phase4ActionHost`, `RecordingActionHost`).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionHost, LoadReport } from "../../src/extensions/host/host.js";
import type { ExtensionSpec, RuntimeHost } from "../../src/extensions/host/instance.js";
import { loadManifest } from "../../src/extensions/manifest.js";
import type { RuntimeAction, UiRequest, UiResponse } from "../../src/extensions/protocol/frames.js";
import { quickjsSpec } from "../../src/extensions/runtimes/quickjs/launcher.js";
import { testHost } from "../helpers/scripted.js";

export interface PackageOptions {
	id?: string;
	entry?: string;
	capabilities: string[];
	uiCapabilities?: string[];
}

/** A temporary package holding `program` as its entry, with the manifest rpi's test writes. */
export function writePackage(program: string, options: PackageOptions): { dir: string; [Symbol.dispose](): void } {
	const dir = mkdtempSync(join(tmpdir(), "pier-rpi-"));
	const entry = options.entry ?? "index.mjs";
	mkdirSync(join(dir, entry, ".."), { recursive: true });
	writeFileSync(join(dir, entry), program);
	writeFileSync(
		join(dir, "pi-extension.json"),
		JSON.stringify({
			schemaVersion: 1,
			id: options.id ?? "quickjs-test",
			runtime: "quickjs",
			entry,
			capabilities: options.capabilities,
			...(options.uiCapabilities ? { uiCapabilities: options.uiCapabilities } : {}),
		}),
	);
	return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface LoadOptions extends PackageOptions {
	runtimeHost?: RuntimeHost;
	/** The QuickJS interrupt deadline (rpi's invocation_timeout); rpi's tests use 10 s. */
	deadlineMs?: number;
	maxFrameBytes?: number;
}

export interface Loaded {
	host: ExtensionHost;
	report: LoadReport;
	/** Load failures, including a manifest pier refuses before anything starts (rpi fails those at load too). */
	failures: string[];
	[Symbol.asyncDispose](): Promise<void>;
}

/** A QuickJS launch spec for `program` in its own temporary package (for a reload candidate). */
export function packageSpec(program: string, options: LoadOptions): { spec: ExtensionSpec; [Symbol.dispose](): void } {
	const pkg = writePackage(program, options);
	try {
		const manifest = loadManifest(pkg.dir, { origin: "project", projectTrusted: true });
		const spec = quickjsSpec(manifest, {
			cwd: pkg.dir,
			projectTrusted: true,
			deadlineMs: options.deadlineMs ?? 10_000,
			...(options.maxFrameBytes ? { maxFrameBytes: options.maxFrameBytes } : {}),
		});
		return { spec, [Symbol.dispose]: pkg[Symbol.dispose] };
	} catch (error) {
		pkg[Symbol.dispose]();
		throw error;
	}
}

/** rpi's `load_quickjs_fixture` and friends: one trusted project QuickJS extension in a fresh host. */
export async function loadQuickJs(program: string, options: LoadOptions): Promise<Loaded> {
	const { host } = testHost({ mode: "tui", timeouts: { invocationMs: 10_000, hookMs: 10_000 } });
	if (options.runtimeHost) host.setRuntimeHost(options.runtimeHost);
	let pkg: ReturnType<typeof packageSpec>;
	try {
		pkg = packageSpec(program, options);
	} catch (error) {
		const report = { generation: 0, loaded: [], failures: [], collisions: [], committed: false };
		const dispose = () => host.shutdown("test end");
		return { host, report, failures: [(error as Error).message], [Symbol.asyncDispose]: dispose };
	}
	const report = await host.load([pkg.spec]);
	const dispose = async () => {
		await host.shutdown("test end");
		pkg[Symbol.dispose]();
	};
	return { host, report, failures: report.failures.map((f) => f.message), [Symbol.asyncDispose]: dispose };
}

/** `loadQuickJs` for a program that must load: a failure is thrown, naming what failed. */
export async function loadOk(program: string, options: LoadOptions): Promise<Loaded> {
	const loaded = await loadQuickJs(program, options);
	if (loaded.failures.length > 0) {
		await loaded[Symbol.asyncDispose]();
		throw new Error(`the extension did not load: ${loaded.failures.join("; ")}`);
	}
	return loaded;
}

/** The text of a tool result's first content block. */
export const firstText = (result: unknown): unknown =>
	(result as { content?: Array<{ text?: unknown }> } | null)?.content?.[0]?.text;

/** rpi's `ScriptedUi`: records every request; certain titles cancel, decline or answer slowly. */
export class ScriptedUi implements RuntimeHost {
	readonly hasUi = true;
	readonly requests: UiRequest[] = [];

	async ui(request: UiRequest): Promise<UiResponse> {
		this.requests.push(request);
		switch (request.type) {
			case "select":
				return request.title === "abort"
					? { type: "cancelled" }
					: { type: "selected", ...(request.options[0] ? { value: request.options[0].value } : {}) };
			case "confirm":
				if (request.title === "slow") await new Promise((resolve) => setTimeout(resolve, 250));
				return { type: "confirmed", confirmed: request.title !== "decline" };
			case "input":
				return request.title === "escape"
					? { type: "cancelled" }
					: { type: "input", value: request.value ?? "typed-value" };
			case "editor":
				return request.title === "quit"
					? { type: "cancelled" }
					: { type: "edited", ...(request.prefill !== undefined ? { value: `${request.prefill}!` } : {}) };
			case "get_editor_text":
				return { type: "editor_text", value: "editor-text" };
			case "get_all_themes":
				return { type: "themes", themes: [{ name: "dark" }, { name: "light", path: "/themes/light.json" }] };
			case "get_theme":
				return { type: "theme", ...(request.name === "dark" ? { theme: { name: "dark" } } : {}) };
			case "set_theme":
				return request.name === "dark"
					? { type: "theme_set", success: true }
					: { type: "theme_set", success: false, error: "unknown theme" };
			case "get_tools_expanded":
				return { type: "tools_expanded", expanded: true };
			case "overlay_open":
				return { type: "overlay_opened" };
			default:
				return { type: "acknowledged" };
		}
	}

	async action(action: RuntimeAction): Promise<unknown> {
		throw new Error(`unexpected extension action ${action.kind}`);
	}
}

/** Rust's `{:?}` of a unit enum variant, as rpi's action host formats the levels and deliveries it echoes. */
const variant = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** rpi's `Phase4ActionHost`: records every action and answers each with an echo of what it asked for. */
export class EchoActionHost implements RuntimeHost {
	readonly hasUi = false;
	readonly actions: RuntimeAction[] = [];

	async ui(request: UiRequest): Promise<UiResponse> {
		throw new Error(`unexpected UI request ${request.type}`);
	}

	async action(action: RuntimeAction): Promise<unknown> {
		this.actions.push(action);
		switch (action.kind) {
			case "set_model":
				return true;
			case "set_thinking_level":
				return { level: variant(action.level) };
			case "set_active_tools":
				return { tools: action.toolNames };
			case "set_label":
				return { entryId: action.entryId, label: action.label };
			case "append_entry":
				return { customType: action.customType, data: action.data };
			case "send_message":
				return {
					customType: action.message.customType,
					delivery: variant(action.delivery),
					triggerTurn: action.triggerTurn ?? false,
				};
			case "send_user_message":
				return { content: action.content, delivery: variant(action.delivery) };
			case "compact":
				return { customInstructions: action.customInstructions };
			case "abort":
			case "shutdown":
			case "wait_for_idle":
			case "reload":
				return { action: action.kind };
			default:
				throw new Error(`unexpected extension action ${action.kind}`);
		}
	}
}

/** rpi's `RecordingActionHost`: answers `set_session_name` with `{name}`, refuses anything else. */
export const renamingHost: RuntimeHost = {
	hasUi: false,
	async ui(request) {
		throw new Error(`unexpected UI request ${request.type}`);
	},
	async action(action) {
		if (action.kind === "set_session_name") return { name: action.name };
		throw new Error(`unexpected extension action ${action.kind}`);
	},
};

/** An error's message, whatever was thrown. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

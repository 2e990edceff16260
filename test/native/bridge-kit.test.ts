/**
 * What the native plugin host needs from kit/node beyond pi's API: `pi.runtimeRequest` (a protocol v1 runtime
 * request as is, cancellable) and `pi.contextSnapshot()`, driven by the real host with a recording session side.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ExtensionHost } from "../../src/extensions/host/host.js";
import type { RequestContext, RuntimeHost } from "../../src/extensions/host/instance.js";
import { loadManifest } from "../../src/extensions/manifest.js";
import type { ContextSnapshot, RuntimeAction, UiRequest, UiResponse } from "../../src/extensions/protocol/frames.js";
import { processSpec } from "../../src/extensions/runtimes/process/launcher.js";
import { REPO_ROOT } from "../helpers/pier-cli.js";

const KIT_RAW = join(REPO_ROOT, "test", "fixtures", "process", "kit-raw");

class Session implements RuntimeHost {
	readonly hasUi = true;
	readonly seen: unknown[] = [];
	cancelled = 0;
	async ui(request: UiRequest, context: RequestContext): Promise<UiResponse> {
		this.seen.push(request);
		if (request.type === "confirm" && request.title === "hang") {
			return new Promise((resolve) =>
				context.signal.addEventListener("abort", () => {
					this.cancelled++;
					resolve({ type: "cancelled" });
				}),
			);
		}
		return request.type === "confirm" ? { type: "confirmed", confirmed: true } : { type: "acknowledged" };
	}
	async action(action: RuntimeAction): Promise<unknown> {
		this.seen.push(action);
		if (action.kind === "get_system_prompt") return "You are pier.";
		throw new Error(`no ${action.kind} here`);
	}
}

const snapshot: ContextSnapshot = {
	isIdle: true,
	projectTrusted: true,
	hasPendingMessages: false,
	systemPrompt: "S",
	thinkingLevel: "off",
	sessionId: "sess-1",
	flagValues: { plan: true },
};

describe("kit/node for runtimes built on it", () => {
	const host = new ExtensionHost({ mode: "tui" });
	const session = new Session();
	before(async () => {
		host.setRuntimeHost(session);
		const report = await host.load([processSpec(loadManifest(KIT_RAW), { cwd: KIT_RAW, projectTrusted: true })]);
		assert.deepEqual(report.failures, []);
	});
	after(() => host.shutdown("test end"));

	const raw = async (args: unknown) => {
		const value = await host.invokeTool("raw", "c", args, { context: snapshot });
		return JSON.parse((value as { content: { text: string }[] }).content[0]!.text);
	};

	test("runtimeRequest sends ui and action requests as they are and resolves with the answer", async () => {
		assert.deepEqual(await raw({ request: { kind: "action", action: { kind: "get_system_prompt" } } }), {
			value: "You are pier.",
		});
		assert.deepEqual(
			await raw({
				request: {
					kind: "ui",
					ui: { request: { type: "widget", key: "native:c", lines: ["x"], placement: "below_editor" } },
				},
			}),
			{ value: { type: "acknowledged" } },
		);
		assert.deepEqual(session.seen.slice(-2), [
			{ kind: "get_system_prompt" },
			{ type: "widget", key: "native:c", lines: ["x"], placement: "below_editor" },
		]);
	});

	test("a failure rejects with the host's code and message", async () => {
		assert.deepEqual(await raw({ request: { kind: "action", action: { kind: "get_session_branch" } } }), {
			error: "action_failed: no get_session_branch here",
			code: "action_failed",
		});
	});

	test("the signal cancels the request at the host", async () => {
		const report = await raw({
			request: { kind: "ui", ui: { request: { type: "confirm", title: "hang", message: "m" } } },
			abortMs: 50,
		});
		assert.equal(report.code, "cancelled");
		for (let i = 0; i < 100 && session.cancelled === 0; i++) await new Promise((r) => setTimeout(r, 10));
		assert.equal(session.cancelled, 1, "the dialog on the host side was closed");
	});

	test("contextSnapshot is the invocation's snapshot", async () => {
		const value = await host.invokeTool("snapshot", "c", {}, { context: snapshot });
		assert.deepEqual(JSON.parse((value as { content: { text: string }[] }).content[0]!.text), snapshot);
	});
});

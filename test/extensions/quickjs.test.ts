import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ExtensionError } from "../../src/extensions/host/errors.js";
import { loadManifest } from "../../src/extensions/manifest.js";
import { quickjsSpec } from "../../src/extensions/runtimes/quickjs/launcher.js";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";

const SANDBOX = join(REPO_ROOT, "test", "fixtures", "quickjs", "sandbox");
const HELLO = join(REPO_ROOT, "examples", "quickjs", "hello");
const textOf = (value: unknown) => (value as { content: { text: string }[] }).content[0]!.text;

async function sandboxHost(options: { maxFrameBytes?: number; deadlineMs?: number; watchdogMs?: number } = {}) {
	const { host, diagnostics } = testHost();
	const spec = (dir: string) =>
		quickjsSpec(loadManifest(dir), {
			cwd: dir,
			projectTrusted: true,
			deadlineMs: options.deadlineMs ?? 500,
			...options,
		});
	const report = await host.load([spec(SANDBOX), spec(HELLO)]);
	assert.deepEqual(report.failures, []);
	return { host, diagnostics };
}

describe("QuickJS sandbox", () => {
	test("no host globals are visible", async (t) => {
		const { host } = await sandboxHost();
		t.after(() => host.shutdown("test end"));
		const seen = JSON.parse(textOf(await host.invokeTool("globals", "c", {}))) as Record<string, string>;
		for (const [name, type] of Object.entries(seen)) assert.equal(type, "undefined", `${name} must be undefined`);
	});

	test("while(true){} is interrupted at the deadline and the next call succeeds", async (t) => {
		const { host } = await sandboxHost({ deadlineMs: 300 });
		t.after(() => host.shutdown("test end"));
		await assert.rejects(
			host.invokeTool("spin", "c", {}),
			(e: unknown) => e instanceof ExtensionError && /interrupted/.test(e.message),
		);
		assert.equal(textOf(await host.invokeTool("ok", "c", {})), "fine");
	});

	test("a guest that does not yield is stopped by the watchdog as a last resort; its neighbours go on", async (t) => {
		// An interrupt deadline far away stands in for code the interrupt cannot reach.
		const { host } = await sandboxHost({ deadlineMs: 60_000, watchdogMs: 400 });
		t.after(() => host.shutdown("test end"));
		await assert.rejects(host.invokeTool("spin", "c", {}), /did not yield for 400 ms; it was stopped/);
		assert.equal(host.registry.tools.get("spin")!.instance.phase, "crashed");
		assert.equal(textOf(await host.invokeTool("shout", "c", { text: "fine" })), "FINE!");
	});

	test("unbounded allocation ends in out of memory; the extension and its neighbours go on", async (t) => {
		const { host } = await sandboxHost({ deadlineMs: 20_000 });
		t.after(() => host.shutdown("test end"));
		await assert.rejects(
			host.invokeTool("hog", "c", {}),
			(e: unknown) => e instanceof ExtensionError && /out of memory/.test(e.message),
		);
		assert.equal(textOf(await host.invokeTool("ok", "c", {})), "fine");
		assert.equal(textOf(await host.invokeTool("shout", "c", { text: "alive" })), "ALIVE!");
	});

	test("an outbound frame past max_frame_bytes (1,024) is refused", async (t) => {
		const { host } = await sandboxHost({ maxFrameBytes: 1024 });
		t.after(() => host.shutdown("test end"));
		await assert.rejects(
			host.invokeTool("big", "c", {}),
			(e: unknown) => e instanceof ExtensionError && e.code === "frame_too_large",
		);
		assert.equal(textOf(await host.invokeTool("ok", "c", {})), "fine");
	});

	test("imports outside the package are refused", async (t) => {
		const { host } = await sandboxHost();
		t.after(() => host.shutdown("test end"));
		await assert.rejects(host.invokeTool("escape", "c", {}), /outside the package directory/);
	});

	test("pier run calls a QuickJS tool, its input hook transforms a prompt", async () => {
		using dir = tempDir();
		const tool = await runPier(["run", "-e", HELLO, 'shout {"text":"hi"}'], { agentDir: dir.path });
		assert.equal(tool.stdout.trim(), 'Done: the shout tool says: "HI!".');
		assert.doesNotMatch(tool.stderr, /Extension error/);
		const hook = await runPier(["run", "--mode", "json", "-e", HELLO, "qjs: quiet"], { agentDir: dir.path });
		assert.match(hook.stdout, /"text":"QUIET!"/);
	});

	test("an unsupported pi feature fails the load with a message that names it", async () => {
		const { host } = testHost();
		const dir = join(REPO_ROOT, "test", "fixtures", "quickjs", "unsupported");
		const report = await host.load([
			quickjsSpec(loadManifest(dir), { cwd: dir, projectTrusted: true, deadlineMs: 5_000 }),
		]);
		assert.match(report.failures[0]!.message, /registerMessageRenderer is unavailable in the quickjs runtime/);
	});

	test("a failed QuickJS reload keeps the old generation callable", async (t) => {
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const spec = (dir: string) => quickjsSpec(loadManifest(dir), { cwd: dir, projectTrusted: true, deadlineMs: 5_000 });
		await host.load([spec(HELLO)]);
		const broken = join(REPO_ROOT, "test", "fixtures", "quickjs", "unsupported");
		const report = await host.reload([spec(HELLO), spec(broken)]);
		assert.equal(report.committed, false);
		assert.equal(host.generation, 1);
		assert.equal(textOf(await host.invokeTool("shout", "c", { text: "old" })), "OLD!");
	});

	test("the example's session action renames the real session", async () => {
		using dir = tempDir();
		// Without a session (pier ext invoke) the action is refused with a reason, not dropped.
		const headless = await runPier(["ext", "invoke", HELLO, "--command", "rename", "--args", "x"], {
			agentDir: dir.path,
		});
		assert.equal(headless.code, 1);
		assert.match(headless.stderr, /set_session_name needs a session/);
		const { createPierSession } = await import("../../src/index.js");
		const pier = await createPierSession({
			cwd: dir.path,
			agentDir: dir.path,
			session: { kind: "memory" },
			extensionPaths: [HELLO],
		});
		try {
			await pier.session.prompt("/rename Sandboxed");
			assert.equal(pier.session.sessionManager.getSessionName(), "Sandboxed");
		} finally {
			await pier.dispose();
		}
	});
});

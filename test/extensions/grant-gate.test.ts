/**
 * Which grant a tool's input needs, and who is gated, over a real host: a process extension registering tools
 * with each capability and a QuickJS extension with a tool of its own.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Denial, gateFor, toolPower } from "../../src/extensions/bridge/grant-gate.js";
import type { ExtensionHost } from "../../src/extensions/host/host.js";
import { loadManifest } from "../../src/extensions/manifest.js";
import { quickjsSpec } from "../../src/extensions/runtimes/quickjs/launcher.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { scriptedPackage, scriptedSpec, testHost } from "../helpers/scripted.js";

const tool = (name: string, capability?: string) => ({
	kind: "tool",
	tool: { name, label: name, description: name, parameters: { type: "object" }, ...(capability ? { capability } : {}) },
});

describe("the grant gate", () => {
	const dir = tempDir("pier-gate-");
	let host: ExtensionHost;

	before(async () => {
		({ host } = testHost());
		const pkg = scriptedPackage(dir.path, "tools", {
			tools: [],
			register: [tool("x_exec", "exec"), tool("x_write", "write"), tool("x_read", "read"), tool("x_plain")],
		});
		const hello = loadManifest(join(REPO_ROOT, "examples", "quickjs", "hello"));
		const report = await host.load([
			scriptedSpec(pkg),
			quickjsSpec(hello, { cwd: dir.path, projectTrusted: true, deadlineMs: 5_000 }),
		]);
		assert.deepEqual(report.failures, []);
	});

	after(async () => {
		await host?.shutdown("test over");
		dir[Symbol.dispose]();
	});

	test("built-ins by name, protocol tools by capability, unknown tools as commands, QuickJS tools free", () => {
		const powers = Object.fromEntries(
			[
				"bash",
				"write",
				"edit",
				"read",
				"grep",
				"find",
				"ls",
				"x_exec",
				"x_write",
				"x_read",
				"x_plain",
				"shout",
				"nope",
			].map((name) => [name, toolPower(host, name) ?? "none"]),
		);
		assert.deepEqual(powers, {
			bash: "exec",
			write: "write",
			edit: "write",
			read: "read",
			grep: "read",
			find: "read",
			ls: "read",
			x_exec: "exec",
			x_write: "write",
			x_read: "read",
			x_plain: "exec",
			shout: "none",
			nope: "exec",
		});
	});

	test("only the QuickJS instance is gated, and a denial names the grant and the command", () => {
		const quickjs = host.instances.find((i) => i.id === "quickjs-hello")!;
		const process = host.instances.find((i) => i.id !== "quickjs-hello")!;
		const denials: Denial[] = [];
		const none = () => new Set<never>();
		assert.equal(
			gateFor(host, process, "tool_call", none, (d) => denials.push(d))({ kind: "tool_input", tool: "bash" }),
			true,
		);
		const gate = gateFor(host, quickjs, "tool_call", none, (d) => denials.push(d));
		assert.equal(gate({ kind: "tool_input", tool: "shout" }), true);
		assert.equal(gate({ kind: "tool_input", tool: "x_read", toolCallId: "c9" }), false);
		assert.deepEqual(denials, [
			{
				type: "permission_denied",
				hook: "tool_call",
				grant: "read",
				message:
					'extension "quickjs-hello" may not replace the input of x_read: it lacks the "read" grant (grant it with: pier grant quickjs-hello read)',
				toolName: "x_read",
				toolCallId: "c9",
			},
		]);
		const granted = gateFor(
			host,
			quickjs,
			"tool_call",
			() => new Set(["read" as const]),
			() => {},
		);
		assert.equal(granted({ kind: "tool_input", tool: "x_read" }), true);
		assert.equal(granted({ kind: "tool_input", tool: "x_write" }), false);
	});
});

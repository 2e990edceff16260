/**
 * Which grant a tool's input needs, and who is gated, over a real host: a process extension registering tools
 * with each capability and a QuickJS extension with a tool of its own.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type Denial, gateFor, type ToolOwner, toolPower } from "../../src/extensions/bridge/grant-gate.js";
import type { ExtensionHost } from "../../src/extensions/host/host.js";
import type { ExtensionInstance } from "../../src/extensions/host/instance.js";
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

	// What pi's tool table would say: "shout" is quickjs-hello's own (the bridge's definition wins), the x_*
	// tools are the process extension's, "deploy" belongs to an in-process extension that came first.
	const ownerOf = (name: string): ToolOwner => {
		if (["bash", "write", "edit", "read", "grep", "find", "ls"].includes(name)) return { kind: "builtin" };
		const entry = host.registry.tools.get(name);
		if (entry)
			return {
				kind: "protocol",
				instance: entry.instance,
				...(entry.descriptor.capability ? { capability: entry.descriptor.capability } : {}),
			};
		return name === "nope" ? { kind: "missing" } : { kind: "other", source: "/home/u/.pi/agent/extensions/d.ts" };
	};
	const target = (instance: ExtensionInstance) => ({ grants: new Set<never>(), target: instance.id });

	test("built-ins by name, protocol tools by capability, unknown tools as commands, only one's own tool free", () => {
		const quickjs = host.instances.find((i) => i.id === "quickjs-hello")!;
		const process = host.instances.find((i) => i.id !== "quickjs-hello")!;
		const names = ["bash", "write", "edit", "read", "grep", "find", "ls", "x_exec", "x_write", "x_read", "x_plain"];
		const powers = Object.fromEntries(
			[...names, "shout", "deploy", "nope"].map((name) => [name, toolPower(ownerOf(name), name, quickjs) ?? "none"]),
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
			deploy: "exec",
			nope: "exec",
		});
		// Another extension's sandboxed tool is not this one's own.
		assert.equal(toolPower(ownerOf("shout"), "shout", process), "exec");
		// A builtin owner under a name pier does not know, or one found on Object.prototype, runs commands.
		for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"])
			assert.equal(toolPower({ kind: "builtin" }, name, quickjs), "exec");
	});

	test("only the QuickJS instance is gated, and a denial names the grant and the command", () => {
		const quickjs = host.instances.find((i) => i.id === "quickjs-hello")!;
		const process = host.instances.find((i) => i.id !== "quickjs-hello")!;
		const denials: Denial[] = [];
		assert.equal(
			gateFor(ownerOf, process, "tool_call", target, (d) => denials.push(d))({ kind: "tool_input", tool: "bash" }),
			true,
		);
		const gate = gateFor(ownerOf, quickjs, "tool_call", target, (d) => denials.push(d));
		assert.equal(gate({ kind: "tool_input", tool: "shout" }), true);
		assert.equal(gate({ kind: "tool_input", tool: "x_read", toolCallId: "c9" }), false);
		assert.equal(gate({ kind: "tool_input", tool: "deploy" }), false);
		assert.equal(gate({ kind: "provider_request" }), false);
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
			{
				type: "permission_denied",
				hook: "tool_call",
				grant: "run",
				message:
					'extension "quickjs-hello" may not replace the input of deploy (the tool pi runs under that name is /home/u/.pi/agent/extensions/d.ts\'s): it lacks the "run" grant (grant it with: pier grant quickjs-hello run)',
				toolName: "deploy",
			},
			{
				type: "permission_denied",
				hook: "tool_call",
				grant: "net",
				message:
					'extension "quickjs-hello" may not change the request sent to the model provider: it lacks the "net" grant (grant it with: pier grant quickjs-hello net)',
			},
		]);
		const granted = gateFor(
			ownerOf,
			quickjs,
			"tool_call",
			(instance) => ({ grants: new Set(["read" as const]), target: instance.id }),
			() => {},
		);
		assert.equal(granted({ kind: "tool_input", tool: "x_read" }), true);
		assert.equal(granted({ kind: "tool_input", tool: "x_write" }), false);
	});
});

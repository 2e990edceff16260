/**
 * pi 1.6's new events reach protocol extensions from pi's real producers, as JSON (docs/protocol-v1.md §7.1), and
 * the answers pi takes (agent_before_settle) come back into the session.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExtensionAPI, ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { createPierSession } from "../src/index.js";
import { tempDir } from "./helpers/pier-cli.js";
import { type ScriptOptions, scriptedPackage } from "./helpers/scripted.js";

type Pier = Awaited<ReturnType<typeof createPierSession>>;

async function withScripted(
	dir: string,
	options: ScriptOptions,
	extra: Partial<Parameters<typeof createPierSession>[0]>,
	run: (pier: Pier, log: () => string) => Promise<void>,
): Promise<void> {
	const pkg = scriptedPackage(dir, "pi16-events", { logEvents: true, ...options });
	const pier = await createPierSession({
		cwd: dir,
		agentDir: dir,
		session: { kind: "memory" },
		extensionPaths: [pkg],
		...extra,
	});
	try {
		await run(pier, () => pier.extensionHost.instances[0]!.channel.diagnostics());
	} finally {
		await pier.dispose();
	}
}

/** Waits for `pattern` in the extension's log: advisory events are sent without pi waiting for them. */
async function logged(log: () => string, pattern: RegExp): Promise<void> {
	for (let i = 0; i < 200 && !pattern.test(log()); i++) await new Promise((r) => setTimeout(r, 25));
	assert.match(log(), pattern);
}

test("a prompt delivers context_with_system (system message included), agent_before_settle and the UI prompt events", async () => {
	using dir = tempDir();
	const confirm = (() => Promise.resolve(true)) as ExtensionUIContext["confirm"];
	const ui = { confirm, notify: () => {}, onTerminalInput: () => () => {} } as unknown as ExtensionUIContext;
	const options: ScriptOptions = {
		tools: ["ui"],
		hooks: ["context_with_system", "agent_before_settle", "ui_prompt_start", "ui_prompt_end"],
		hook: "settle",
		capabilities: ["tools", "event_hooks", "ui"],
		uiCapabilities: ["confirm"],
		logData: ["ui_prompt_start", "ui_prompt_end"],
	};
	await withScripted(dir.path, options, { uiContext: ui }, async (pier, log) => {
		await pier.session.prompt(
			`ui ${JSON.stringify({ request: { type: "confirm", title: "Sure?", message: "Really" } })}`,
		);
		await logged(log, /event=context_with_system keys=messages,type roles=system,user(,|\n)/);
		await logged(log, /event=agent_before_settle keys=context,continue,entries,outcome,type\n/);
		await logged(
			log,
			/data=ui_prompt_start {"type":"ui_prompt_start","reason":"ui_prompt","kind":"confirm","title":"Sure\?"}/,
		);
		await logged(
			log,
			/data=ui_prompt_end {"type":"ui_prompt_end","reason":"ui_prompt","kind":"confirm","title":"Sure\?"}/,
		);
		// The answer's entry became the session's: pi appends a boundary's entries before the run settles.
		const settled = pier.session.sessionManager
			.getEntries()
			.filter((e) => e.type === "custom" && e.customType === "scripted-settle");
		assert.deepEqual(
			settled.map((e) => (e as { data?: unknown }).data),
			[{ outcome: "completed" }],
		);
	});
});

test("a failed compaction delivers session_compact_failed", async () => {
	using dir = tempDir();
	const options: ScriptOptions = { hooks: ["session_compact_failed"], logData: ["session_compact_failed"] };
	await withScripted(dir.path, options, {}, async (pier, log) => {
		await assert.rejects(pier.session.compact(), /Nothing to compact/);
		await logged(
			log,
			/data=session_compact_failed {"type":"session_compact_failed","reason":"manual","errorMessage":"Compaction failed: Nothing to compact[^"]*","aborted":false,"willRetry":false,"fromExtension":false}/,
		);
	});
});

test("mcp_servers_change reaches a protocol extension without the servers' secrets", async () => {
	using dir = tempDir();
	const secret = "s3cret-value";
	// An in-process extension registers servers once the session is bound, as pi 1.6 lets it.
	const registrar = (pi: ExtensionAPI) => {
		pi.on("session_start", () => {
			pi.registerMcpServer("local", { command: "mcp-probe", args: ["--token", secret], env: { API_KEY: secret } });
			pi.registerMcpServer("remote", {
				url: `https://user:${secret}@mcp.example.com/jira?key=${secret}`,
				headers: { Authorization: `Bearer ${secret}` },
				oauth: { clientId: "pier", clientSecret: secret },
				description: "Jira",
			});
		});
	};
	const options: ScriptOptions = { hooks: ["mcp_servers_change"], logData: ["mcp_servers_change"] };
	// --no-mcp: pi's built-in MCP extension stays out, so nothing tries to connect.
	await withScripted(dir.path, options, { extensionFactories: [registrar], noMcp: true }, async (_pier, log) => {
		await logged(log, /data=mcp_servers_change .*"remote"/);
		const last = log()
			.split("\n")
			.filter((l) => l.startsWith("data=mcp_servers_change "))
			.at(-1)!;
		const data = JSON.parse(last.slice("data=mcp_servers_change ".length)) as {
			servers: Array<{ name: string; config: Record<string, unknown> }>;
		};
		assert.doesNotMatch(last, new RegExp(secret));
		assert.deepEqual(
			data.servers.map((s) => [s.name, s.config]),
			[
				["local", { command: "mcp-probe" }],
				["remote", { description: "Jira", url: "https://mcp.example.com" }],
			],
		);
	});
});

/**
 * Red team on pi 1.6: `mcp_servers_change` showed protocol extensions each remote MCP server's URL with its path,
 * and hosted MCP services put the account's secret there (`https://mcp.zapier.com/api/mcp/s/<secret>/mcp`). An
 * in-process extension registers such a server in a real session; a scripted protocol extension logs what it is
 * sent.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { createPierSession } from "../../src/index.js";
import { tempDir } from "../helpers/pier-cli.js";
import { scriptedPackage } from "../helpers/scripted.js";

const SECRET = "c2VjcmV0LWluLXRoZS1wYXRo";

test("an MCP server's URL reaches extensions as its origin only", async () => {
	using dir = tempDir();
	const registrar = (pi: ExtensionAPI) => {
		pi.on("session_start", () => {
			pi.registerMcpServer("zap", { url: `https://mcp.example.com/api/mcp/s/${SECRET}/mcp`, description: "Zap" });
		});
	};
	const pkg = scriptedPackage(dir.path, "mcp-probe", {
		logEvents: true,
		hooks: ["mcp_servers_change"],
		logData: ["mcp_servers_change"],
	});
	// --no-mcp: pi's built-in MCP extension stays out, so nothing tries to connect.
	const pier = await createPierSession({
		cwd: dir.path,
		agentDir: dir.path,
		session: { kind: "memory" },
		extensionPaths: [pkg],
		extensionFactories: [registrar],
		noMcp: true,
	});
	try {
		const log = () => pier.extensionHost.instances[0]!.channel.diagnostics();
		// Advisory events are sent without pi waiting for them: wait for it in the log.
		for (let i = 0; i < 200 && !/data=mcp_servers_change .*"zap"/.test(log()); i++)
			await new Promise((r) => setTimeout(r, 25));
		const line = log()
			.split("\n")
			.filter((l) => l.startsWith("data=mcp_servers_change "))
			.at(-1);
		assert.ok(line, log());
		assert.doesNotMatch(line, new RegExp(SECRET), "the path's secret reached the extension");
		const data = JSON.parse(line.slice("data=mcp_servers_change ".length)) as {
			servers: Array<{ name: string; config: Record<string, unknown> }>;
		};
		assert.deepEqual(
			data.servers.map((s) => [s.name, s.config]),
			[["zap", { description: "Zap", url: "https://mcp.example.com" }]],
		);
	} finally {
		await pier.dispose();
	}
});

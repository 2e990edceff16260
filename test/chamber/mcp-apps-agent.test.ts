/**
 * MCP Apps on a session's servers (src/agent/mcp/apps.ts), against connections shaped as pi's: the app's tool
 * calls reach only its own server and only tools visible to apps; app-only tools are hidden from the model; a
 * result of a tool with an app is stamped with it.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { ExtensionAPI, ToolDefinition } from "@earendil-works/pi-coding-agent";
import { type McpAppError, McpApps, resourceUriOf, visibilityOf } from "../../src/agent/mcp/apps.js";
import type { McpConnectionLike } from "../../src/pi-seams/mcp-extension.js";

function connection(name: string, tools: unknown[], called: string[]): McpConnectionLike {
	return {
		name,
		tools,
		closed: false,
		callTool: async (tool) => {
			called.push(`${name}/${tool}`);
			return { content: [] };
		},
		readResource: async (uri) => ({ contents: [{ uri, text: "" }] }),
	};
}

const APP_TOOL = { name: "show", _meta: { ui: { resourceUri: "ui://a/app.html" } } };
const APP_ONLY = { name: "bump", _meta: { ui: { resourceUri: "ui://a/app.html", visibility: ["app"] } } };
const MODEL_ONLY = { name: "secret", _meta: { ui: { visibility: ["model"] } } };

describe("MCP Apps on a session's servers", () => {
	test("a tool's app: _meta.ui.resourceUri, or the older flat _meta['ui/resourceUri']; ui:// only", () => {
		assert.equal(resourceUriOf(APP_TOOL), "ui://a/app.html");
		assert.equal(resourceUriOf({ _meta: { "ui/resourceUri": "ui://old" } }), "ui://old");
		assert.equal(resourceUriOf({ _meta: { ui: { resourceUri: "https://x" } } }), undefined);
		assert.deepEqual(visibilityOf({ name: "t" }), ["model", "app"]);
	});

	test("an app calls its own server's tools visible to apps, and nothing else", async () => {
		const called: string[] = [];
		const apps = new McpApps();
		apps.note(connection("a", [APP_TOOL, APP_ONLY, MODEL_ONLY], called));
		apps.note(connection("b", [{ name: "echo" }], called));
		await apps.callTool("a", "bump", {});
		await apps.callTool("a", "show", {});
		await assert.rejects(apps.callTool("a", "echo", {}), (error: McpAppError) => {
			assert.equal(error.code, "refused");
			assert.equal(
				error.message,
				`"echo" is a tool of MCP server "b"; an app of "a" may call only its own server's tools`,
			);
			return true;
		});
		await assert.rejects(apps.callTool("a", "secret", {}), /tool "secret" of MCP server "a" is not visible to apps/);
		await assert.rejects(apps.callTool("a", "nothing", {}), /MCP server "a" has no tool "nothing"/);
		await assert.rejects(apps.callTool("gone", "echo", {}), /MCP server "gone" is not connected/);
		assert.deepEqual(called, ["a/bump", "a/show"]);
	});

	test("a resource read waits for a server pi is still connecting", async () => {
		const apps = new McpApps();
		const read = apps.readResource("late", "ui://late/app.html");
		apps.note(connection("other", [], []));
		apps.note(connection("late", [APP_TOOL], []));
		assert.deepEqual(await read, { contents: [{ uri: "ui://late/app.html", text: "" }] });
	});

	test("app-only tools are hidden from the model; a result of a tool with an app names it", async () => {
		const apps = new McpApps();
		apps.note(connection("a", [APP_TOOL, APP_ONLY], []));
		const registered: ToolDefinition[] = [];
		const register = apps.watch({ registerTool: (d: ToolDefinition) => registered.push(d) } as unknown as ExtensionAPI);
		const definition = (tool: string) =>
			({
				name: `mcp__a__${tool}`,
				label: `a/${tool}`,
				execute: async () => ({ content: [], details: { server: "a", tool } }),
			}) as unknown as ToolDefinition;
		register(definition("show"));
		register(definition("bump"));
		assert.equal(registered[0]?.exposure, undefined);
		assert.equal(registered[1]?.exposure, "hidden");
		const result = await registered[0]!.execute("id", {}, undefined, undefined, undefined as never);
		assert.deepEqual(result.details, { server: "a", tool: "show", mcpApp: { resourceUri: "ui://a/app.html" } });
	});
});

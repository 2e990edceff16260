/**
 * pi's MCP servers in the chamber: a real `pier serve` whose agent dir's mcp.json holds a real stdio MCP server
 * (test/fixtures/mcp/echo-server.mjs, JSON-RPC 2.0) and one that writes to stderr and exits. The demo model calls
 * the server's tool directly and from a codemode script; the MCP API lists the servers as pi has them, and its
 * actions are pi's `/mcp` actions, saved to mcp.json exactly as pi saves them (pi's own config.js, run on a copy,
 * is the reference).
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import type { McpListView, McpServerView } from "../../src/chamber/wire.js";
import { installedPiRoots } from "../../src/pi-seams/seam.js";
import { type ApiClient, type EventReader, type Serve, servedChamber } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const ECHO_SERVER = join(REPO_ROOT, "test", "fixtures", "mcp", "echo-server.mjs");
const BROKEN = "process.stderr.write('broken-server: no API key in BROKEN_KEY\\n'); process.exit(3)";
const dir = tempDir("pier-chamber-mcp-");
const agentDir = join(dir.path, "agent");
const mcpJson = join(agentDir, "mcp.json");
const pids = join(dir.path, "pids");
let serve: Serve;
let api: ApiClient;
let id: string;
let stream: EventReader;
/** A streamable-HTTP MCP endpoint that wants a sign-in: every request is answered 401. */
let signIn: Server;

/** pi's own writer of mcp.json, the reference for what `/mcp` saves. */
async function piSaves(
	file: string,
	server: string,
	patch: Record<string, unknown>,
	options: { override?: boolean } = {},
): Promise<string> {
	const config = (await import(
		pathToFileURL(join(installedPiRoots().codingAgent, "dist/extensions/mcp/config.js")).href
	)) as {
		updateMcpServerConfig(path: string, name: string, patch: Record<string, unknown>, o: { override?: boolean }): void;
	};
	const copy = join(dir.path, `reference-${Math.random().toString(36).slice(2)}.json`);
	copyFileSync(file, copy);
	config.updateMcpServerConfig(copy, server, patch, options);
	return readFileSync(copy, "utf8");
}

before(async () => {
	signIn = createServer((_req, res) => {
		res.writeHead(401, { "www-authenticate": 'Bearer realm="mcp"', "content-type": "application/json" });
		res.end(JSON.stringify({ error: "unauthorized" }));
	});
	await new Promise<void>((done) => signIn.listen(0, "127.0.0.1", done));
	const remote = `http://127.0.0.1:${(signIn.address() as AddressInfo).port}/api/mcp/s/secret-in-path/mcp`;
	mkdirSync(agentDir, { recursive: true });
	writeFileSync(
		mcpJson,
		`${JSON.stringify(
			{
				mcpServers: {
					echo: { command: process.execPath, args: [ECHO_SERVER], env: { MCP_PID_FILE: pids }, exposure: "direct" },
					broken: { command: process.execPath, args: ["-e", BROKEN] },
					remote: { url: remote },
				},
			},
			null,
			2,
		)}\n`,
	);
	({ serve, api } = await servedChamber([], { agentDir, cwd: dir.path, stateDir: join(dir.path, "state") }));
	({ id, stream } = await api.newSession());
});

after(async () => {
	stream?.close();
	await serve?.stop();
	signIn?.close();
	dir[Symbol.dispose]();
});

async function servers(): Promise<McpListView> {
	const reply = await api.call<McpListView>("GET", `/api/pi/sessions/${id}/mcp`);
	assert.equal(reply.status, 200, JSON.stringify(reply.body));
	return reply.body;
}

async function server(name: string): Promise<McpServerView> {
	const found = (await servers()).servers.find((s) => s.name === name);
	assert.ok(found, `server ${name} listed`);
	return found;
}

async function act(name: string, action: string, body: unknown = {}): Promise<McpServerView> {
	const reply = await api.call<{ server: McpServerView }>("POST", `/api/pi/sessions/${id}/mcp/${name}/${action}`, body);
	assert.equal(reply.status, 200, JSON.stringify(reply.body));
	return reply.body.server;
}

/** Sends a prompt and answers the text of the tool result it leads to. */
async function toolAnswer(prompt: string): Promise<{ toolName: string; text: string }> {
	const seen = stream.events.length;
	assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: prompt })).status, 202);
	const row = await stream.waitFor(
		(e) =>
			stream.events.indexOf(e) >= seen &&
			e.event === "transcript.row" &&
			(e.payload.row as { kind: string }).kind === "tool_result",
		`the tool result of ${prompt}`,
	);
	await stream.waitFor(
		(e) => stream.events.indexOf(e) >= seen && e.event === "session.state" && e.payload.streaming === false,
		"idle",
	);
	return row.payload.row as { toolName: string; text: string };
}

const pidLines = () => readFileSync(pids, "utf8").trim().split("\n");

test("a direct MCP tool answers a prompt in the chamber; the API lists the server as pi has it", async () => {
	const answer = await toolAnswer('mcp__echo__echo {"text":"hi from the chamber"}');
	assert.equal(answer.toolName, "mcp__echo__echo");
	assert.match(answer.text, /echo: hi from the chamber/);

	const echo = await server("echo");
	assert.equal(echo.state, "connected");
	assert.equal(echo.enabled, true);
	assert.equal(echo.exposure, "direct");
	assert.equal(echo.scope, "global");
	assert.equal(echo.source, mcpJson);
	assert.ok(echo.transport.includes(ECHO_SERVER), echo.transport);
	assert.deepEqual(
		echo.tools.map((t) => [t.name, t.exposure]),
		[
			["mcp__echo__echo", "direct"],
			["mcp__echo__pid", "direct"],
		],
	);
	assert.ok(echo.actions.includes("disable") && echo.actions.includes("reconnect"), echo.actions.join());
});

test("a server that writes to stderr and exits is failed, with its stderr's tail, reported once in the transcript", async () => {
	const broken = await server("broken");
	assert.equal(broken.state, "failed");
	assert.match(broken.error ?? "", /broken-server: no API key in BROKEN_KEY/);
	assert.deepEqual(broken.tools, []);

	const view = await api.call<{ rows: { kind: string; message?: string; source?: string }[] }>(
		"GET",
		`/api/pi/sessions/${id}`,
	);
	const reports = view.body.rows.filter((r) => r.kind === "error" && r.source === "mcp");
	assert.equal(reports.length, 1, JSON.stringify(reports));
	assert.match(reports[0]!.message!, /MCP servers need attention:\n/);
	assert.match(reports[0]!.message!, /\n {2}broken: failed/);
	assert.doesNotMatch(reports[0]!.message!, /echo/);
});

test("an HTTP server that answers 401 shows that it needs a sign-in, with its URL cut to the origin", async () => {
	const remote = await server("remote");
	assert.equal(remote.state, "needs-sign-in", JSON.stringify(remote));
	assert.ok(remote.actions.includes("signin"), remote.actions.join());
	assert.equal(remote.transport, `http://127.0.0.1:${(signIn.address() as AddressInfo).port}/…`);
	assert.doesNotMatch(JSON.stringify(remote), /secret-in-path/);
});

test("exposure codemode: saved as pi saves it, and the tool answers from a codemode script", async () => {
	const expected = await piSaves(mcpJson, "echo", { exposure: "codemode" });
	const echo = await act("echo", "exposure", { exposure: "codemode" });
	assert.equal(readFileSync(mcpJson, "utf8"), expected);
	assert.equal(echo.exposure, "codemode");
	assert.deepEqual(
		echo.tools.map((t) => t.exposure),
		["codemode", "codemode"],
	);
	const answer = await toolAnswer(
		`codemode ${JSON.stringify({ code: "return await tools.mcp__echo__echo({ text: 'from a script' })" })}`,
	);
	assert.equal(answer.toolName, "codemode");
	assert.match(answer.text, /echo: from a script/);
});

test("disable writes mcp.json as pi's /mcp does and stops the server's tools; enable and reconnect start it again", async () => {
	const expected = await piSaves(mcpJson, "echo", { enabled: false });
	const disabled = await act("echo", "disable");
	assert.equal(readFileSync(mcpJson, "utf8"), expected);
	assert.equal(disabled.state, "disabled");
	assert.equal(disabled.enabled, false);
	assert.deepEqual(disabled.tools, []);
	assert.ok(disabled.actions.includes("enable"));

	const refused = await api.call<{ error: { code: string; message: string } }>(
		"POST",
		`/api/pi/sessions/${id}/mcp/echo/reconnect`,
		{},
	);
	assert.equal(refused.status, 409);
	assert.match(refused.body.error.message, /MCP server "echo" is disabled: pi's \/mcp offers enable/);

	const reEnabled = await piSaves(mcpJson, "echo", { enabled: true });
	const enabled = await act("echo", "enable");
	assert.equal(readFileSync(mcpJson, "utf8"), reEnabled);
	assert.equal(enabled.state, "connected");
	assert.equal(enabled.tools.length, 2);

	const before = pidLines().length;
	const reconnected = await act("echo", "reconnect");
	assert.equal(reconnected.state, "connected");
	assert.equal(pidLines().length, before + 1, "a reconnect starts the server anew");
});

test("in a trusted project, disable-project saves an override to its .pi/mcp.json, as pi's /mcp does", async () => {
	const project = join(dir.path, "project");
	const projectJson = join(project, ".pi", "mcp.json");
	mkdirSync(join(project, ".pi"), { recursive: true });
	writeFileSync(projectJson, `${JSON.stringify({ mcpServers: {} }, null, 2)}\n`);
	const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {
		cwd: project,
		approve: true,
	});
	assert.equal(created.status, 201, JSON.stringify(created.body));
	const other = created.body.session.id;
	const global = readFileSync(mcpJson, "utf8");
	const expected = await piSaves(projectJson, "echo", { enabled: false }, { override: true });

	const reply = await api.call<{ server: McpServerView }>("POST", `/api/pi/sessions/${other}/mcp/echo/disable`, {
		project: true,
	});
	assert.equal(reply.status, 200, JSON.stringify(reply.body));
	assert.equal(readFileSync(projectJson, "utf8"), expected);
	assert.equal(readFileSync(mcpJson, "utf8"), global, "the user's own mcp.json is left as it was");
	assert.equal(reply.body.server.state, "disabled");
	assert.equal(reply.body.server.override, projectJson);
});

test("bad requests are refused naming the server or field and what to do", async () => {
	const unknown = await api.call<{ error: { code: string; message: string } }>(
		"POST",
		`/api/pi/sessions/${id}/mcp/nope/disable`,
		{},
	);
	assert.equal(unknown.status, 404);
	assert.match(unknown.body.error.message, /No MCP server named "nope" .*servers: .*echo/);

	const exposure = await api.call<{ error: { message: string } }>("POST", `/api/pi/sessions/${id}/mcp/echo/exposure`, {
		exposure: "loud",
	});
	assert.equal(exposure.status, 400);
	assert.match(exposure.body.error.message, /exposure/);

	const extra = await api.call("POST", `/api/pi/sessions/${id}/mcp/echo/disable`, { project: "yes" });
	assert.equal(extra.status, 400);

	const noProject = await api.call<{ error: { message: string } }>("POST", `/api/pi/sessions/${id}/mcp/echo/disable`, {
		project: true,
	});
	assert.equal(noProject.status, 409, "no trusted project: pi offers no project override");
	assert.match(noProject.body.error.message, /MCP server "echo" .*not disable-project/);
});

/**
 * A cloned project's `.pi/mcp.json` names commands pi's MCP extension would run. Until the project is trusted, none
 * of them starts: in `pier run`, in pier's terminal (whose trust question names each server's command line or URL,
 * never its env or headers) and in a chamber session. After trust, the server starts. The server is a real stdio
 * MCP server (test/fixtures/mcp/echo-server.mjs) that writes its pid to MCP_PID_FILE when it starts.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { type ApiClient, servedChamber } from "../helpers/chamber.js";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";
import { ECHO_SERVER, MCP_SECRETS, mcpConfigWithSecrets, pidsIn } from "../helpers/mcp.js";
import { startPier, tmux, type, waitForScreen } from "../helpers/tmux.js";

const SERVER = ECHO_SERVER;
const WEATHER = join(REPO_ROOT, "examples", "extensions", "weather.ts");
const CALL = 'mcp__echo__echo {"text":"hi"}';

/** A project whose `.pi/mcp.json` has the echo server (with a secret in its env) and an HTTP server (secrets in its URL and headers). */
function hostileProject(root: string): { project: string; pids: string } {
	const project = join(root, "project");
	mkdirSync(join(project, ".pi"), { recursive: true });
	const pids = join(root, "pids");
	writeFileSync(join(project, ".pi", "mcp.json"), JSON.stringify(mcpConfigWithSecrets(pids)));
	return { project, pids };
}

const SECRETS = MCP_SECRETS;

/** The echo tool's result, or the demo model's answer that it has no such tool, once either arrived. */
async function echoResult(api: ApiClient, id: string): Promise<string> {
	const prompt = await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: CALL });
	assert.equal(prompt.status, 202, JSON.stringify(prompt.body));
	const deadline = Date.now() + 30_000;
	for (;;) {
		const rows = (
			await api.call<{ rows: { kind: string; toolName?: string; text?: string }[] }>("GET", `/api/pi/sessions/${id}`)
		).body.rows;
		const answer = rows.find(
			(r) =>
				(r.kind === "tool_result" && r.toolName === "mcp__echo__echo") ||
				(r.kind === "assistant" && r.text?.includes("no active tool")),
		);
		if (answer) return answer.text ?? "";
		if (Date.now() > deadline) throw new Error(`no result for the echo call: ${JSON.stringify(rows)}`);
		await new Promise((done) => setTimeout(done, 100));
	}
}

describe("an untrusted project's .pi/mcp.json starts nothing", () => {
	test("pier run: untrusted, no process (pier trust --status names the servers); --approve, the server answers", async () => {
		using dir = tempDir();
		const { project, pids } = hostileProject(dir.path);
		const status = await runPier(["trust", "--status", project], { agentDir: dir.path });
		assert.equal(status.code, 0, status.stderr);
		assert.ok(
			status.stdout.includes(`  .pi/mcp.json would start these MCP servers:\n    echo: node ${SERVER}\n`),
			status.stdout,
		);
		assert.doesNotMatch(status.stdout, SECRETS);
		const refused = await runPier(["run", "--no-session", CALL], { agentDir: dir.path, cwd: project });
		assert.equal(refused.code, 0, refused.stderr);
		assert.match(refused.stderr, /skipped \.pi\/mcp\.json/);
		assert.match(refused.stdout, /no active tool named "mcp__echo__echo"/);
		assert.deepEqual(pidsIn(pids), [], "the untrusted project's server never started");

		const approved = await runPier(["run", "--approve", "--no-session", CALL], { agentDir: dir.path, cwd: project });
		assert.equal(approved.code, 0, approved.stderr);
		assert.match(approved.stdout, /echo: hi/);
		assert.equal(pidsIn(pids).length, 1);
	});

	test("the terminal: its question names each server without secrets; not trusting starts nothing, trusting starts it", async (t) => {
		using dir = tempDir();
		const agentDir = join(dir.path, "agent");
		mkdirSync(agentDir);
		const { project, pids } = hostileProject(dir.path);

		const refused = startPier(t, agentDir, WEATHER, project);
		const question = await waitForScreen(refused, /Choose 1-5/);
		assert.match(question, /\.pi\/mcp\.json would start these MCP servers:/);
		assert.ok(question.includes(`echo: node ${SERVER}`), question);
		assert.match(question, /docs: http:\/\/127\.0\.0\.1:9\/mcp\?…/);
		assert.doesNotMatch(question, SECRETS);
		type(refused, "5"); // Do not trust (this session only)
		await waitForScreen(refused, /demo\s*$/m);
		type(refused, CALL);
		await waitForScreen(refused, /no active tool named "mcp__echo__echo"/);
		assert.deepEqual(pidsIn(pids), [], "the untrusted project's server never started");
		tmux("kill-session", "-t", refused);

		const trusted = startPier(t, agentDir, WEATHER, project);
		await waitForScreen(trusted, /Choose 1-5/);
		type(trusted, "3"); // Trust (this session only)
		await waitForScreen(trusted, /demo\s*$/m);
		type(trusted, CALL);
		await waitForScreen(trusted, /echo: hi/);
		assert.equal(pidsIn(pids).length, 1, "trusted, the server started");
	});

	test("a chamber session: the trust data names the servers; untrusted, no process; trusted, the server answers", async () => {
		using dir = tempDir();
		const { project, pids } = hostileProject(dir.path);
		const { serve, api } = await servedChamber([], {
			agentDir: dir.path,
			cwd: dir.path,
			stateDir: join(dir.path, "state"),
		});
		try {
			const asked = await api.call<{ error: { code: string } }>("POST", "/api/pi/sessions", { cwd: project });
			assert.equal(asked.status, 409);
			assert.equal(asked.body.error.code, "trust_required");
			const trust = await api.call("GET", `/api/pi/projects/trust?cwd=${encodeURIComponent(project)}`);
			assert.deepEqual(trust.body.mcp, {
				file: ".pi/mcp.json",
				servers: [
					{ name: "echo", launch: `node ${SERVER}` },
					{ name: "docs", launch: "http://127.0.0.1:9/mcp?…" },
				],
			});
			assert.doesNotMatch(JSON.stringify(trust.body), SECRETS);

			const untrusted = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {
				cwd: project,
				approve: false,
			});
			assert.equal(untrusted.status, 201, JSON.stringify(untrusted.body));
			assert.match(await echoResult(api, untrusted.body.session.id), /no active tool named "mcp__echo__echo"/);
			assert.deepEqual(pidsIn(pids), [], "the untrusted project's server never started");
			await api.call("DELETE", `/api/pi/sessions/${untrusted.body.session.id}`);

			const trusted = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {
				cwd: project,
				approve: true,
			});
			assert.equal(trusted.status, 201, JSON.stringify(trusted.body));
			assert.match(await echoResult(api, trusted.body.session.id), /echo: hi/);
			assert.equal(pidsIn(pids).length, 1, "trusted, the server started");
		} finally {
			await serve.stop();
		}
	});
});

/**
 * The chamber's extension list over a real `pier serve`: a process, a QuickJS and an in-process pi extension in
 * one session, called through the API (the demo model calls a tool from `name {json}`), listed with pier list's
 * facts and the live metrics the session recorded of each, and never a server path.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type ApiClient, type EventReader, type Serve, servedChamber } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

interface Listed {
	id: string;
	name: string;
	kind: string;
	origin?: string;
	scope?: string;
	state: string;
	phase?: string;
	capabilities: { declared: string[]; uiDeclared: string[]; granted: string[] };
	commands: string[];
	tools: string[];
	metrics: {
		invocations: number;
		errors: number;
		p50Ms?: number;
		p99Ms?: number;
		restarts: number;
		crashes: number;
		lastError?: { message: string; at: string };
		measured: string;
	};
}
type List = { trust: { trusted: boolean; source: string }; extensions: Listed[] };

const PROCESS_MAIN = `#!/usr/bin/env node
import { runExtension } from ${JSON.stringify(join(REPO_ROOT, "kit/node/index.mjs"))};
runExtension({ id: "m-proc", name: "Metered process", version: "1.0.0", capabilities: ["tools", "commands"] }, (pi) => {
	pi.registerTool({
		name: "m_proc", label: "m_proc", description: "answers, or fails when asked",
		parameters: { type: "object", properties: {} },
		async execute(_id, params) {
			if (params.fail) throw new Error(\`m_proc broke reading \${process.cwd()}/secret.txt\`);
			return { content: [{ type: "text", text: "proc-ok" }] };
		},
	});
	pi.registerCommand("m-proc-crash", { description: "dies", handler: async () => process.exit(3) });
});
`;

const QUICKJS_MAIN = `export default function (pi) {
	pi.registerTool({
		name: "m_qjs", label: "m_qjs", description: "answers",
		parameters: { type: "object", properties: {} },
		async execute() { return { content: [{ type: "text", text: "qjs-ok" }] }; },
	});
}
`;

const TS_MAIN = `export default function (pi) {
	pi.registerTool({
		name: "m_ts", label: "m_ts", description: "answers, or fails when asked",
		parameters: { type: "object", properties: {} },
		async execute(_id, params) {
			if (params.fail) throw new Error("m_ts failed on purpose");
			return { content: [{ type: "text", text: "ts-ok" }] };
		},
	});
	pi.registerCommand("m-ts-reload", { description: "reloads", handler: async (_args, ctx) => { await ctx.reload(); } });
	pi.registerCommand("m-ts-noop", { description: "does nothing", handler: async () => {} });
}
`;

describe("the chamber's extension list with live metrics", () => {
	const dir = tempDir("pier-metrics-");
	const agentDir = join(dir.path, "agent");
	const extensions = join(dir.path, "exts");
	let serve: Serve;
	let api: ApiClient;
	let serveArgs: string[];
	let measuredId: string | undefined;

	before(async () => {
		mkdirSync(join(extensions, "proc"), { recursive: true });
		mkdirSync(join(extensions, "qjs"), { recursive: true });
		writeFileSync(join(extensions, "proc", "main.mjs"), PROCESS_MAIN, { mode: 0o755 });
		writeFileSync(
			join(extensions, "proc", "pi-extension.json"),
			JSON.stringify({ schemaVersion: 1, id: "m-proc", executable: "./main.mjs", capabilities: ["tools", "commands"] }),
		);
		writeFileSync(join(extensions, "qjs", "index.mjs"), QUICKJS_MAIN);
		writeFileSync(
			join(extensions, "qjs", "pi-extension.json"),
			JSON.stringify({
				schemaVersion: 1,
				id: "m-qjs",
				runtime: "quickjs",
				entry: "./index.mjs",
				capabilities: ["tools"],
			}),
		);
		writeFileSync(join(extensions, "metered.ts"), TS_MAIN);
		const args = ["-e", join(extensions, "proc"), "-e", join(extensions, "qjs"), "-e", join(extensions, "metered.ts")];
		serveArgs = args;
		({ serve, api } = await servedChamber(serveArgs, { agentDir, cwd: dir.path, stateDir: join(dir.path, "state") }));
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const list = async (id: string) => {
		const reply = await api.call<List>("GET", `/api/pi/extensions?session=${id}`);
		assert.equal(reply.status, 200, JSON.stringify(reply.body));
		const raw = JSON.stringify(reply.body);
		assert.ok(!raw.includes(dir.path) && !raw.includes(REPO_ROOT), `no server paths: ${raw}`);
		assert.doesNotMatch(raw, /(^|[\s"'(=:])(file:\/\/)?\/[A-Za-z0-9._-]+\//, `no absolute paths: ${raw}`);
		const byName = (name: string) => {
			const found = reply.body.extensions.find((e) => e.name === name);
			assert.ok(found, `${name} in ${raw}`);
			return found;
		};
		return { body: reply.body, proc: byName("m-proc"), qjs: byName("m-qjs"), ts: byName("metered") };
	};

	async function until(id: string, done: (l: Awaited<ReturnType<typeof list>>) => boolean, what: string) {
		const deadline = Date.now() + 20_000;
		for (;;) {
			const current = await list(id);
			if (done(current)) return current;
			assert.ok(Date.now() < deadline, `${what}: ${JSON.stringify(current.body)}`);
			await new Promise((r) => setTimeout(r, 100));
		}
	}

	/** Sends a prompt and waits for the `n`th end of that tool in the stream, then for the agent to be idle. */
	async function callTool(id: string, stream: EventReader, text: string, tool: string, n: number) {
		const ends = () => stream.events.filter((e) => e.event === "tool.end" && e.payload.toolName === tool);
		const idle = () => stream.events.filter((e) => e.event === "agent.end").length;
		const before = idle();
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text })).status, 202);
		await stream.waitFor(() => ends().length >= n, `${tool} end #${n}`);
		await stream.waitFor(() => idle() > before, "the agent's end");
		return ends()[n - 1]!;
	}

	test("every kind is listed with pier list's facts; calls, errors, latency, crashes and restarts are counted", async () => {
		const { id, stream } = await api.newSession();
		measuredId = id;
		const first = await list(id);
		assert.deepEqual([first.proc.kind, first.qjs.kind, first.ts.kind], ["process", "quickjs", "typescript"]);
		for (const e of [first.proc, first.qjs, first.ts]) {
			assert.match(e.id, /^ext_[0-9a-f]{16}$/);
			assert.deepEqual([e.origin, e.scope, e.state], ["cli", "cli", "enabled"]);
			assert.deepEqual([e.metrics.invocations, e.metrics.errors, e.metrics.restarts], [0, 0, 0]);
		}
		assert.deepEqual(first.proc.capabilities.declared, ["tools", "commands"]);
		assert.deepEqual([first.proc.phase, first.proc.metrics.measured], ["active", "host"]);
		assert.equal(first.ts.metrics.measured, "session-events");
		assert.deepEqual([first.proc.tools, first.proc.commands], [["m_proc"], ["m-proc-crash"]]);
		assert.deepEqual(first.ts.commands.sort(), ["m-ts-noop", "m-ts-reload"]);
		assert.deepEqual(first.qjs.tools, ["m_qjs"]);
		assert.equal(typeof first.body.trust.trusted, "boolean");
		assert.equal(typeof first.body.trust.source, "string");

		await callTool(id, stream, 'm_proc {"a":1}', "m_proc", 1);
		await callTool(id, stream, 'm_proc {"a":2}', "m_proc", 2);
		const failed = await callTool(id, stream, 'm_proc {"fail":true}', "m_proc", 3);
		assert.equal(failed.payload.isError, true);
		await callTool(id, stream, 'm_qjs {"a":1}', "m_qjs", 1);
		await callTool(id, stream, 'm_ts {"a":1}', "m_ts", 1);
		await callTool(id, stream, 'm_ts {"fail":true}', "m_ts", 2);
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/command`, { command: "m-ts-noop" })).status, 202);

		const counted = await list(id);
		assert.deepEqual([counted.proc.metrics.invocations, counted.proc.metrics.errors], [3, 1]);
		assert.match(counted.proc.metrics.lastError?.message ?? "", /m_proc broke reading …secret\.txt/);
		assert.ok(!Number.isNaN(Date.parse(counted.proc.metrics.lastError?.at ?? "")));
		assert.ok(
			(counted.proc.metrics.p50Ms ?? 0) > 0 && (counted.proc.metrics.p99Ms ?? 0) >= counted.proc.metrics.p50Ms!,
		);
		assert.deepEqual([counted.qjs.metrics.invocations, counted.qjs.metrics.errors], [1, 0]);
		assert.ok((counted.qjs.metrics.p50Ms ?? 0) > 0);
		// Two tool calls and the command the chamber ran (it answers 202 before the command is done).
		const ts = await until(id, (l) => l.ts.metrics.invocations >= 3, "the command counted");
		assert.equal(ts.ts.metrics.invocations, 3, JSON.stringify(ts.ts));
		assert.equal(ts.ts.metrics.errors, 1);
		assert.match(ts.ts.metrics.lastError?.message ?? "", /m_ts failed on purpose/);

		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/command`, { command: "m-proc-crash" })).status, 202);
		await stream.waitFor(
			(e) => e.event === "extension.error" && /m-proc crashed/.test(String(e.payload.message)),
			"the crash",
		);
		const crashed = await list(id);
		assert.equal(crashed.proc.phase, "crashed");
		assert.equal(crashed.proc.metrics.crashes, 1);
		// The command in flight failed with the crash: one more invocation, one more error.
		assert.deepEqual([crashed.proc.metrics.invocations, crashed.proc.metrics.errors], [4, 2]);
		assert.match(crashed.proc.metrics.lastError?.message ?? "", /exit|crash|closed/i);

		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/command`, { command: "m-ts-reload" })).status, 202);
		const reloaded = await until(id, (l) => l.proc.phase === "active" && l.ts.metrics.restarts >= 1, "the reload");
		assert.deepEqual(
			[reloaded.proc.metrics.restarts, reloaded.qjs.metrics.restarts, reloaded.ts.metrics.restarts],
			[1, 1, 1],
		);
		assert.equal(reloaded.proc.metrics.invocations, 4, "a restart keeps the counts");
		await callTool(id, stream, 'm_proc {"a":3}', "m_proc", 4);
		assert.equal((await list(id)).proc.metrics.invocations, 5);
		stream.close();
	});

	test("after a daemon restart the session is 409 not_open until opened; its metrics start afresh", async () => {
		assert.ok(measuredId, "the first test's session");
		await serve.stop();
		({ serve, api } = await servedChamber(serveArgs, { agentDir, cwd: dir.path, stateDir: join(dir.path, "state") }));
		const closed = await api.call<{ error: { code: string } }>("GET", `/api/pi/extensions?session=${measuredId}`);
		assert.deepEqual([closed.status, closed.body.error.code], [409, "not_open"]);
		assert.equal((await api.call("POST", `/api/pi/sessions/${measuredId}/open`, {})).status, 200);
		const opened = await list(measuredId);
		assert.deepEqual([opened.proc.metrics.invocations, opened.proc.metrics.restarts], [0, 0]);
	});

	test("an unknown session is 404; the list never starts one", async () => {
		const reply = await api.call<{ error: { code: string } }>("GET", "/api/pi/extensions?session=nope");
		assert.deepEqual([reply.status, reply.body.error.code], [404, "not_found"]);
	});
});

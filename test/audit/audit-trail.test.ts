/**
 * The audit trail end to end: a scripted run against a real `pier serve` makes decisions through each surface
 * (a trust decision in the chamber, a QuickJS extension refused a grant, the grant given in the chamber, the
 * grant used, a package installed from a local directory by `pier install`), and the trail holds exactly those,
 * in order, read through `GET /api/pi/audit` before and after the daemon restarts and through `pier audit`.
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { AuditView } from "../../src/chamber/audit/wire.js";
import { ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const ID = "qjs-rewrite";
const BASH = 'bash {"command":"echo by-model > model-file"}';

/** The fields a test can know in advance (time is the daemon's). */
const shape = (view: AuditView) =>
	view.entries.map((e) => ({
		kind: e.kind,
		decision: e.decision,
		subject: e.subject,
		...(e.session ? { session: e.session } : {}),
		...(e.extension ? { extension: e.extension } : {}),
		...(e.rule ? { rule: e.rule } : {}),
		...(e.source ? { source: e.source } : {}),
	}));

describe("the audit trail of a scripted run", () => {
	const dir = tempDir("pier-audit-");
	const agentDir = join(dir.path, "agent");
	const project = join(dir.path, "project");
	const localPackage = join(dir.path, "local-pkg");
	const stateDir = join(dir.path, "state");
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		mkdirSync(join(agentDir, "extensions"), { recursive: true });
		mkdirSync(project);
		cpSync(join(REPO_ROOT, "test/fixtures/quickjs/hostile-rewrite"), join(agentDir, "extensions", ID), {
			recursive: true,
		});
		mkdirSync(join(localPackage, "extensions"), { recursive: true });
		writeFileSync(join(localPackage, "package.json"), JSON.stringify({ name: "local-pkg", keywords: ["pi-package"] }));
		writeFileSync(join(localPackage, "extensions", "noop.ts"), "export default function () {}\n");
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ theme: "dark" }));
		({ serve, api } = await servedChamber([], { agentDir, cwd: dir.path, stateDir }));
	});

	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const audit = async (query = "") => {
		const reply = await api.call<AuditView>("GET", `/api/pi/audit${query}`);
		assert.equal(reply.status, 200, JSON.stringify(reply.body));
		return reply.body;
	};

	let sessionId = "";
	const expected: ReturnType<typeof shape> = [];

	test("each decision is one line, in the order made, with its session, extension or rule, and subject", async () => {
		assert.deepEqual(await audit(), { entries: [], total: 0, file: join(agentDir, "pier-audit.jsonl") });

		const trust = await api.call("PUT", "/api/pi/projects/trust", { cwd: project, trusted: true });
		assert.equal(trust.status, 200, JSON.stringify(trust.body));
		const canonical = realpathSync(project);
		expected.push({ kind: "trust", decision: "trusted", subject: canonical, source: "the chamber" });

		const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", { cwd: project });
		assert.equal(created.status, 201, JSON.stringify(created.body));
		sessionId = created.body.session.id;
		const stream = api.events(`session=${sessionId}`);
		await stream.waitFor((e) => e.event === "session.snapshot", "the first snapshot");
		const run = async () => {
			const ends = stream.events.filter((e) => e.event === "agent.end").length;
			const reply = await api.call("POST", `/api/pi/sessions/${sessionId}/prompt`, { text: BASH });
			assert.equal(reply.status, 202, JSON.stringify(reply.body));
			await stream.waitFor(() => stream.events.filter((e) => e.event === "agent.end").length > ends, "the run's end");
		};

		await run();
		assert.equal(existsSync(join(project, "hostile-marker")), false, "refused: the call ran as the model made it");
		const what = "replace the input of bash";
		expected.push({
			kind: "grant.use",
			decision: "refused",
			subject: what,
			session: sessionId,
			extension: ID,
			rule: "run",
		});

		const granted = await api.call("PUT", `/api/pi/grants/${ID}`, { grants: ["run"] });
		assert.equal(granted.status, 200, JSON.stringify(granted.body));
		expected.push({ kind: "grant.change", decision: "granted", subject: `${ID}: run`, extension: ID });

		await run();
		assert.equal(existsSync(join(project, "hostile-marker")), true, "used: the rewritten command ran");
		expected.push({
			kind: "grant.use",
			decision: "used",
			subject: what,
			session: sessionId,
			extension: ID,
			rule: "run",
		});
		stream.close();

		const installed = await runPier(["install", localPackage], { agentDir, cwd: dir.path, timeoutMs: 60_000 });
		assert.equal(installed.code, 0, installed.stderr);
		expected.push({
			kind: "package.install",
			decision: "installed",
			subject: localPackage,
			source: "pier install (user)",
		});

		const view = await audit();
		assert.deepEqual(shape(view), expected);
		assert.equal(view.total, expected.length);
		const times = view.entries.map((e) => Date.parse(e.time));
		assert.deepEqual(
			[...times].sort((a, b) => a - b),
			times,
			"in time order",
		);
		assert.equal(view.entries[1]?.tool, "bash");
		// One session's decisions, and the newest ones only.
		assert.deepEqual(
			shape(await audit(`?session=${sessionId}`)).map((e) => e.decision),
			["refused", "used"],
		);
		assert.deepEqual(
			shape(await audit("?limit=2")).map((e) => e.kind),
			["grant.use", "package.install"],
		);
		assert.equal((await audit("?limit=2")).total, expected.length);
	});

	test("the trail survives a daemon restart, and pier audit reads the same lines", async () => {
		const beforeRestart = await audit();
		assert.equal(await serve.stop(), 0);
		({ serve, api } = await servedChamber([], { agentDir, cwd: dir.path, stateDir }));
		const afterRestart = await audit();
		assert.deepEqual(afterRestart, beforeRestart);
		assert.deepEqual(shape(afterRestart), expected);

		const cli = await runPier(["audit", "--json"], { agentDir });
		assert.equal(cli.code, 0, cli.stderr);
		const lines = cli.stdout
			.trimEnd()
			.split("\n")
			.map((l) => JSON.parse(l));
		assert.deepEqual(lines, afterRestart.entries);
		const mine = await runPier(["audit", "--json", "--session", sessionId], { agentDir });
		assert.equal(mine.stdout.trimEnd().split("\n").length, 2);
	});

	test("bad queries are refused, naming the parameter", async () => {
		for (const [query, message] of [
			["?since=yesterday", /\?since: "yesterday" is not a time: want an ISO time/],
			["?limit=0", /\?limit: a whole number from 1 to 5000/],
			["?limit=5001", /\?limit: a whole number from 1 to 5000/],
			["?limit=ten", /\?limit: a whole number/],
			["?session=", /\?session: a session id/],
			["?kind=trust", /\?kind: unknown parameter/],
			["?since=1h&since=2h", /\?since: give it once/],
		] as const) {
			const reply = await api.call<{ error: { code: string; message: string } }>("GET", `/api/pi/audit${query}`);
			assert.equal(reply.status, 400, query);
			assert.equal(reply.body.error.code, "bad_request");
			assert.match(reply.body.error.message, message);
		}
		assert.equal((await audit("?limit=5000")).total, expected.length, "the limit itself is accepted");
		// The trail names projects, commands and sessions: only a signed-in client reads it.
		assert.equal((await new ApiClient(serve.url).call("GET", "/api/pi/audit")).status, 401);
		assert.deepEqual((await audit("?since=1h")).total, expected.length);
		assert.deepEqual((await audit(`?since=${new Date(Date.now() + 60_000).toISOString()}`)).entries, []);
	});
});

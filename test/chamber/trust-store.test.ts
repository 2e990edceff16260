/**
 * `pier trust` / `pier untrust` and the chamber share one store, `<agentDir>/trust.json`: a decision made in
 * one is seen by the other. The chamber's old `<stateDir>/trust.json` is migrated into it once.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";

interface TrustView {
	cwd: string;
	needsDecision: boolean;
	resources: string[];
	trusted: boolean;
	decided: boolean;
	source: string;
	decidedFor?: string;
	parent?: string;
}

describe("one trust store for the CLI and the chamber", () => {
	const dir = tempDir("pier-trust-");
	const agentDir = join(dir.path, "agent");
	const stateDir = join(dir.path, "state");
	const projects = join(dir.path, "projects");
	let serve: Serve;
	let api: ApiClient;

	/** A project that has only a settings file (it needs trust all the same), or only an AGENTS.md. */
	function project(name: string, file: ".pi/settings.json" | "AGENTS.md" = ".pi/settings.json"): string {
		const path = join(projects, name);
		mkdirSync(join(path, ".pi"), { recursive: true });
		writeFileSync(join(path, file), file === "AGENTS.md" ? "# the project's instructions\n" : "{}\n");
		return realpathSync(path);
	}
	const trustOf = async (cwd: string) =>
		(await api.call<TrustView>("GET", `/api/pi/projects/trust?cwd=${encodeURIComponent(cwd)}`)).body;
	const cli = (...args: string[]) => runPier(args, { agentDir });

	const migrated = project("migrated");
	before(async () => {
		mkdirSync(agentDir, { recursive: true });
		mkdirSync(stateDir, { recursive: true });
		// What older pier wrote: its own file in the state dir.
		writeFileSync(join(stateDir, "trust.json"), JSON.stringify({ projects: { [migrated]: true } }));
		({ serve, api } = await servedChamber(["--no-examples"], { agentDir, cwd: dir.path, stateDir }));
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("the chamber's old trust.json is migrated into the shared store and no longer used", async () => {
		const view = await trustOf(migrated);
		assert.deepEqual([view.trusted, view.decided, view.source, view.decidedFor], [true, true, "store", migrated]);
		assert.equal(existsSync(join(stateDir, "trust.json")), false);
		assert.equal(existsSync(join(stateDir, "trust.json.migrated")), true);
		assert.deepEqual(JSON.parse(readFileSync(join(agentDir, "trust.json"), "utf8")), { [migrated]: true });
	});

	test("a settings-only project needs a decision; the chamber asks, naming what it has and the parent", async () => {
		const cwd = project("settings-only");
		const view = await trustOf(cwd);
		assert.deepEqual([view.needsDecision, view.decided, view.trusted], [true, false, false]);
		assert.deepEqual(view.resources, [".pi/settings.json"]);
		assert.equal(view.parent, realpathSync(projects));
		const asked = await api.call<{ error: { code: string; message: string } }>("POST", "/api/pi/sessions", { cwd });
		assert.equal(asked.status, 409);
		assert.equal(asked.body.error.code, "trust_required");
		assert.match(asked.body.error.message, /\.pi\/settings\.json/);
		assert.ok(asked.body.error.message.includes(realpathSync(projects)));
	});

	test("a project with only an AGENTS.md needs a decision too", async () => {
		const view = await trustOf(project("instructions", "AGENTS.md"));
		assert.deepEqual([view.needsDecision, view.resources], [true, ["AGENTS.md"]]);
	});

	test("pier trust in the CLI is what the chamber sees, and pier untrust too", async () => {
		const cwd = project("cli-decides");
		const trusted = await cli("trust", cwd);
		assert.equal(trusted.code, 0, trusted.stderr);
		assert.match(trusted.stdout, new RegExp(`trusted ${cwd}`));
		assert.deepEqual(
			[(await trustOf(cwd)).trusted, (await trustOf(cwd)).decided],
			[true, true],
			"the chamber sees the CLI's decision",
		);
		const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", { cwd });
		assert.equal(created.status, 201, "no question once decided");
		assert.equal((await cli("untrust", cwd)).code, 0);
		const view = await trustOf(cwd);
		assert.deepEqual([view.trusted, view.decided], [false, true]);
	});

	test("a decision made in the chamber is what the CLI sees (and pier run obeys it)", async () => {
		const cwd = project("chamber-decides");
		const refused = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", { cwd, approve: false });
		assert.equal(refused.status, 201);
		const list = await cli("trust", "--list");
		assert.match(list.stdout, new RegExp(`untrusted\\s+${cwd}`));
		const run = await runPier(["run", "hello"], { agentDir, cwd });
		assert.match(run.stderr, /is not trusted \(you chose not to trust it\): skipped \.pi\/settings\.json/);
	});

	test("Trust the parent folder stores the parent and drops the project's own entry, in both", async () => {
		const cwd = project("parent-a");
		await api.call("PUT", "/api/pi/projects/trust", { cwd, trusted: false });
		const put = await api.call<TrustView>("PUT", "/api/pi/projects/trust", { cwd, trusted: true, parent: true });
		assert.equal(put.status, 200);
		assert.deepEqual([put.body.trusted, put.body.decidedFor], [true, realpathSync(projects)]);
		const store = JSON.parse(readFileSync(join(agentDir, "trust.json"), "utf8")) as Record<string, boolean>;
		assert.equal(store[realpathSync(projects)], true);
		assert.equal(cwd in store, false);
		// A sibling is covered by the parent's decision, in the CLI as well.
		const status = await cli("trust", "--status", project("parent-b"));
		assert.match(status.stdout, new RegExp(`: trusted\\n[^]*decided for ${realpathSync(projects)} in`));
		// A project's own decision is nearer than the parent's.
		const own = await cli("untrust", join(projects, "parent-b"));
		assert.equal(own.code, 0);
		assert.equal((await trustOf(join(projects, "parent-b"))).trusted, false);
		const forgot = await cli("trust", "--forget", join(projects, "parent-b"));
		assert.match(forgot.stdout, /applies to it/);
		assert.equal((await trustOf(join(projects, "parent-b"))).trusted, true);
	});

	test("a decision for a path that is not a directory is refused", async () => {
		const put = await api.call("PUT", "/api/pi/projects/trust", { cwd: join(dir.path, "nope"), trusted: true });
		assert.equal(put.status, 422);
		const cliPut = await cli("trust", join(dir.path, "nope"));
		assert.equal(cliPut.code, 2);
		assert.match(cliPut.stderr, /is not a directory/);
	});

	test("creating a session with trustParent trusts the parent folder", async () => {
		const other = join(dir.path, "other");
		mkdirSync(other);
		const cwd = join(other, "p");
		mkdirSync(join(cwd, ".pi"), { recursive: true });
		writeFileSync(join(cwd, ".pi", "settings.json"), "{}");
		const created = await api.call("POST", "/api/pi/sessions", { cwd, approve: true, trustParent: true });
		assert.equal(created.status, 201);
		const view = await trustOf(cwd);
		assert.deepEqual([view.trusted, view.decidedFor], [true, realpathSync(other)]);
	});

	test("a corrupt store is an error, in the CLI and in the chamber, never trusted", async () => {
		const file = join(agentDir, "trust.json");
		const saved = readFileSync(file, "utf8");
		writeFileSync(file, '{"/x": "yes"}');
		try {
			const run = await runPier(["run", "hello"], { agentDir, cwd: project("while-corrupt") });
			assert.equal(run.code, 2);
			assert.match(run.stderr, new RegExp(`invalid trust store ${file}.*fix it or delete it`));
			const view = await api.call<{ error: { message: string } }>(
				"GET",
				`/api/pi/projects/trust?cwd=${encodeURIComponent(migrated)}`,
			);
			assert.notEqual(view.status, 200);
			assert.match(JSON.stringify(view.body), /invalid trust store/);
		} finally {
			writeFileSync(file, saved);
		}
	});
});

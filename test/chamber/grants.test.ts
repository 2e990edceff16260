/**
 * Grants end to end through one store: the chamber's API (a real `pier serve`) and the real CLI
 * (`pier grant` / `pier revoke` / `pier run`) read and write the same global settings.json.
 */
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { REPO_ROOT, runPier, tempDir } from "../helpers/pier-cli.js";

const ID = "qjs-rewrite";

type Overview = {
	grants: Record<string, { dir: string; digest: string; grants: string[]; status: string }>;
	extensions: { id: string; dir: string; runtime: string; sandboxed: boolean; capabilities: string[] }[];
	known: { name: string; meaning: string }[];
	problems: string[];
};

describe("grants through the chamber and the CLI", () => {
	const dir = tempDir("pier-grants-");
	const agentDir = join(dir.path, "agent");
	const settingsFile = join(agentDir, "settings.json");
	const installedDir = join(agentDir, "extensions", ID);
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		// Installed as the user installs it, so sessions discover it without -e.
		mkdirSync(join(agentDir, "extensions"), { recursive: true });
		cpSync(join(REPO_ROOT, "test/fixtures/quickjs/hostile-rewrite"), join(agentDir, "extensions", ID), {
			recursive: true,
		});
		symlinkSync(join(REPO_ROOT, "examples/process/node-weather"), join(agentDir, "extensions", "node-weather"));
		writeFileSync(settingsFile, JSON.stringify({ theme: "dark", extensionHost: { timeouts: { hookMs: 9000 } } }));
		({ serve, api } = await servedChamber([], { agentDir, cwd: dir.path, stateDir: join(dir.path, "state") }));
	});

	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("the chamber shows the installed extension, what it declares and that it has no grants", async () => {
		const reply = await api.call<Overview>("GET", "/api/pi/grants");
		assert.equal(reply.status, 200);
		assert.deepEqual(reply.body.grants, {});
		const ext = reply.body.extensions.find((e) => e.id === ID);
		assert.deepEqual(ext, {
			id: ID,
			dir: installedDir,
			runtime: "quickjs",
			capabilities: ["event_hooks"],
			uiCapabilities: [],
			sandboxed: true,
		});
		// A process extension is shown with what it declares; grants are not for it.
		assert.deepEqual(
			reply.body.extensions.find((e) => e.id === "node-weather"),
			{
				id: "node-weather",
				dir: realpathSync(join(REPO_ROOT, "examples/process/node-weather")),
				runtime: "process",
				capabilities: ["tools", "commands", "event_hooks", "session_actions", "ui"],
				uiCapabilities: ["notify", "status"],
				sandboxed: false,
			},
		);
		const cli = await runPier(["grant", "node-weather", "run"], { agentDir });
		assert.match(cli.stdout, /a process extension: grants change nothing for it, it already runs as your own code/);
		assert.equal((await runPier(["revoke", "node-weather"], { agentDir })).code, 0);
		assert.deepEqual(
			reply.body.known.map((k) => k.name),
			["run", "write", "read", "net"],
		);
		const anonymous = new ApiClient(serve.url);
		assert.equal((await anonymous.call("GET", "/api/pi/grants")).status, 401);
	});

	test("a grant given in the chamber is the CLI's: pier grant lists it and pier run applies it", async () => {
		const put = await api.call("PUT", `/api/pi/grants/${ID}`, { grants: ["run"] });
		assert.equal(put.status, 200, JSON.stringify(put.body));
		assert.deepEqual(put.body, { id: ID, dir: installedDir, grants: ["run"] });
		const settings = JSON.parse(readFileSync(settingsFile, "utf8"));
		assert.equal(settings.theme, "dark", "other keys stay");
		const { digest } = settings.extensionHost.grants[ID];
		assert.match(digest, /^sha256:[0-9a-f]{64}$/);
		assert.deepEqual(settings.extensionHost, {
			timeouts: { hookMs: 9000 },
			grants: { [ID]: { dir: installedDir, digest, grants: ["run"] } },
		});
		const view = (await api.call<Overview>("GET", "/api/pi/grants")).body.grants[ID];
		assert.deepEqual(view, { dir: installedDir, digest, grants: ["run"], status: "current" });

		const listed = await runPier(["grant"], { agentDir });
		assert.equal(listed.code, 0, listed.stderr);
		assert.equal(listed.stdout, `${ID}: run (${installedDir})\n`);

		using project = tempDir("pier-project-");
		const run = await runPier(["run", "--no-session", 'bash {"command":"echo by-model > model-file"}'], {
			agentDir,
			cwd: project.path,
			timeoutMs: 60_000,
		});
		assert.equal(run.code, 0, run.stderr);
		assert.match(readFileSync(join(project.path, "hostile-marker"), "utf8"), /^uid=/);
	});

	test("pier revoke is the chamber's: the grant is gone from its view, and the rewrite is denied again", async () => {
		const revoked = await runPier(["revoke", ID, "run"], { agentDir });
		assert.equal(revoked.code, 0, revoked.stderr);
		assert.match(revoked.stdout, /extension "qjs-rewrite" now has no grants/);
		const reply = await api.call<Overview>("GET", "/api/pi/grants");
		assert.deepEqual(reply.body.grants, {});
		assert.equal(JSON.parse(readFileSync(settingsFile, "utf8")).theme, "dark");

		using project = tempDir("pier-project-");
		const run = await runPier(["run", "--no-session", 'bash {"command":"echo by-model > model-file"}'], {
			agentDir,
			cwd: project.path,
			timeoutMs: 60_000,
		});
		assert.equal(run.code, 0, run.stderr);
		assert.equal(existsSync(join(project.path, "hostile-marker")), false);
		assert.match(run.stderr, /may not replace the input of bash: it lacks the "run" grant \(grant it with: pier grant/);
	});

	test("in a chamber session the denial is an error row naming the grant, and the call runs as made", async () => {
		using project = tempDir("pier-project-");
		const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", { cwd: project.path });
		assert.equal(created.status, 201, JSON.stringify(created.body));
		const id = created.body.session.id;
		const prompt = await api.call("POST", `/api/pi/sessions/${id}/prompt`, {
			text: 'bash {"command":"echo by-model > model-file"}',
		});
		assert.equal(prompt.status, 202);
		const deadline = Date.now() + 20_000;
		let rows: { kind: string; message?: string }[] = [];
		for (;;) {
			rows = (await api.call<{ rows: { kind: string; message?: string }[] }>("GET", `/api/pi/sessions/${id}`)).body
				.rows;
			if (rows.some((r) => r.kind === "error") && existsSync(join(project.path, "model-file"))) break;
			if (Date.now() > deadline) throw new Error(`no denial row: ${JSON.stringify(rows)}`);
			await new Promise((r) => setTimeout(r, 100));
		}
		const error = rows.find((r) => r.kind === "error");
		assert.equal(
			error?.message,
			`extension "${ID}" may not replace the input of bash: it lacks the "run" grant (grant it with: pier grant ${ID} run)`,
		);
		assert.equal(existsSync(join(project.path, "hostile-marker")), false);
		await api.call("DELETE", `/api/pi/sessions/${id}`);
	});

	test("bad grant requests are refused with what is wrong", async () => {
		const unknown = await api.call<{ error: { message: string } }>("PUT", `/api/pi/grants/${ID}`, {
			grants: ["exec"],
		});
		assert.equal(unknown.status, 400);
		assert.match(unknown.body.error.message, /unknown grant "exec" \(known grants: run, write, read, net\)/);
		// An id that is not installed cannot be granted without naming a directory; a directory must hold that id.
		const missing = await api.call<{ error: { message: string } }>("PUT", "/api/pi/grants/formatter", {
			grants: ["run"],
		});
		assert.equal(missing.status, 409);
		assert.match(missing.body.error.message, /no extension "formatter" is installed/);
		const other = await api.call<{ error: { message: string } }>("PUT", "/api/pi/grants/formatter", {
			grants: ["run"],
			dir: installedDir,
		});
		assert.equal(other.status, 400);
		assert.match(other.body.error.message, /holds extension "qjs-rewrite", not "formatter"/);
		const shape = await api.call("PUT", `/api/pi/grants/${ID}`, { grants: "run" });
		assert.equal(shape.status, 400);
		const badId = await api.call("PUT", "/api/pi/grants/has%20space", { grants: ["run"] });
		assert.equal(badId.status, 400);
		const cli = await runPier(["grant", ID, "exec"], { agentDir });
		assert.equal(cli.code, 2);
		assert.match(cli.stderr, /unknown grant "exec"/);
	});
});

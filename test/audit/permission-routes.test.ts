/**
 * The Permissions view's routes against a real `pier serve`: rules by source, added and removed in the global
 * settings.json and a trusted project's .pi/settings.json with every other key kept; a bad rule is named, a
 * project allow rule is refused, and an untrusted project is neither shown nor edited.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { PermissionsView } from "../../src/chamber/audit/wire.js";
import { ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";

type ErrorBody = { error: { code: string; message: string } };

describe("the permission rules' routes", () => {
	const dir = tempDir("pier-perms-");
	const agentDir = join(dir.path, "agent");
	const globalFile = join(agentDir, "settings.json");
	const project = join(dir.path, "project");
	const projectFile = join(project, ".pi", "settings.json");
	const stranger = join(dir.path, "stranger");
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		mkdirSync(agentDir, { recursive: true });
		mkdirSync(join(project, ".pi"), { recursive: true });
		mkdirSync(join(stranger, ".pi"), { recursive: true });
		writeFileSync(
			globalFile,
			JSON.stringify({ theme: "dark", permissions: { deny: ["read(**/.env)"], defaultMode: "x" } }, null, 2),
		);
		writeFileSync(projectFile, JSON.stringify({ model: "m", permissions: { allow: ["bash"], ask: ["write"] } }));
		writeFileSync(join(stranger, ".pi", "settings.json"), JSON.stringify({ permissions: { deny: ["bash"] } }));
		writeFileSync(join(agentDir, "trust.json"), JSON.stringify({ [realpathSync(project)]: true }));
		({ serve, api } = await servedChamber([], { agentDir, cwd: project, stateDir: join(dir.path, "state") }));
	});

	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const get = async (cwd?: string) => {
		const reply = await api.call<PermissionsView>(
			"GET",
			`/api/pi/permissions${cwd ? `?cwd=${encodeURIComponent(cwd)}` : ""}`,
		);
		assert.equal(reply.status, 200, JSON.stringify(reply.body));
		return reply.body;
	};
	const change = (method: "POST" | "DELETE", body: Record<string, unknown>) =>
		api.call<PermissionsView & ErrorBody>(method, "/api/pi/permissions", body);

	test("rules by source: the global file's, and a trusted project's with its allow rules flagged", async () => {
		const view = await get();
		assert.deepEqual(view.global, {
			scope: "global",
			file: globalFile,
			allow: [],
			ask: [],
			deny: ["read(**/.env)"],
			problems: [],
		});
		assert.equal(view.project.cwd, realpathSync(project));
		assert.equal(view.project.trusted, true);
		assert.deepEqual(view.project.source?.ask, ["write"]);
		assert.deepEqual(view.project.source?.allow, ["bash"]);
		assert.deepEqual(view.project.source?.problems, [
			`${realpathSync(projectFile)}: permissions.allow: a project's settings may only add ask and deny rules; its allow rules are ignored`,
		]);
		const anonymous = new ApiClient(serve.url);
		assert.equal((await anonymous.call("GET", "/api/pi/permissions")).status, 401);
	});

	test("add and remove keep every other key of the file and of permissions", async () => {
		const added = await change("POST", { scope: "global", list: "deny", rule: "bash(rm *)" });
		assert.equal(added.status, 200, JSON.stringify(added.body));
		assert.deepEqual(added.body.global.deny, ["read(**/.env)", "bash(rm *)"]);
		const again = await change("POST", { scope: "global", list: "deny", rule: "bash(rm *)" });
		assert.deepEqual(again.body.global.deny, ["read(**/.env)", "bash(rm *)"], "adding a rule twice stores it once");
		assert.equal((await change("POST", { scope: "global", list: "allow", rule: "mcp__github__search" })).status, 200);
		assert.deepEqual(JSON.parse(readFileSync(globalFile, "utf8")), {
			theme: "dark",
			permissions: { deny: ["read(**/.env)", "bash(rm *)"], defaultMode: "x", allow: ["mcp__github__search"] },
		});
		const removed = await change("DELETE", { scope: "global", list: "allow", rule: "mcp__github__search" });
		assert.equal(removed.status, 200, JSON.stringify(removed.body));
		assert.deepEqual(JSON.parse(readFileSync(globalFile, "utf8")), {
			theme: "dark",
			permissions: { deny: ["read(**/.env)", "bash(rm *)"], defaultMode: "x" },
		});
		const missing = await change("DELETE", { scope: "global", list: "allow", rule: "mcp__github__search" });
		assert.equal(missing.status, 404);
		assert.equal(missing.body.error.message, `${globalFile}: permissions.allow has no rule "mcp__github__search"`);

		const project = await change("POST", { scope: "project", list: "deny", rule: "edit(src/**)" });
		assert.equal(project.status, 200, JSON.stringify(project.body));
		assert.deepEqual(JSON.parse(readFileSync(projectFile, "utf8")), {
			model: "m",
			permissions: { allow: ["bash"], ask: ["write"], deny: ["edit(src/**)"] },
		});
		assert.equal((await change("DELETE", { scope: "project", list: "ask", rule: "write" })).status, 200);
		assert.deepEqual(JSON.parse(readFileSync(projectFile, "utf8")).permissions, {
			allow: ["bash"],
			deny: ["edit(src/**)"],
		});
	});

	test("a bad rule is named and stores nothing; a project allow rule is refused", async () => {
		const before = readFileSync(globalFile, "utf8");
		for (const [rule, message] of [
			["", /\/rule: an empty rule/],
			["bash()", /"bash\(\)" has an empty pattern/],
			["rm -rf", /"rm -rf" is not a rule/],
			["bash(rm *", /"bash\(rm \*" is not a rule/],
			[`bash(${"x".repeat(995)})`, /a rule is at most 1000 characters \(this one has 1001\)/],
		] as const) {
			const reply = await change("POST", { scope: "global", list: "deny", rule });
			assert.equal(reply.status, 400, rule);
			assert.equal(reply.body.error.code, "bad_rule");
			assert.match(reply.body.error.message, message);
		}
		// The limit itself is a rule.
		const longest = `bash(${"x".repeat(994)})`;
		assert.equal((await change("POST", { scope: "global", list: "deny", rule: longest })).status, 200);
		assert.equal((await change("DELETE", { scope: "global", list: "deny", rule: longest })).status, 200);
		assert.equal(readFileSync(globalFile, "utf8"), before);

		const allow = await change("POST", { scope: "project", list: "allow", rule: "bash(npm test)" });
		assert.equal(allow.status, 400);
		assert.equal(allow.body.error.code, "project_allow");
		assert.match(allow.body.error.message, /a project's settings may only add ask and deny rules/);
		assert.doesNotMatch(readFileSync(projectFile, "utf8"), /npm test/);

		for (const body of [
			{ scope: "global", list: "maybe", rule: "bash" },
			{ scope: "team", list: "deny", rule: "bash" },
			{ scope: "global", list: "deny" },
			{ scope: "global", list: "deny", rule: "bash", extra: 1 },
			{ scope: "global", list: "deny", rule: "bash", cwd: project },
		]) {
			const reply = await change("POST", body);
			assert.equal(reply.status, 400, JSON.stringify(body));
			assert.equal(reply.body.error.code, "bad_request");
		}
	});

	test("an untrusted project's rules are not shown, added to or removed from", async () => {
		const view = await get(stranger);
		assert.deepEqual(view.project, { cwd: realpathSync(stranger), trusted: false });
		for (const method of ["POST", "DELETE"] as const) {
			const reply = await change(method, { scope: "project", cwd: stranger, list: "deny", rule: "bash" });
			assert.equal(reply.status, 403);
			assert.equal(reply.body.error.code, "trust_required");
			assert.match(reply.body.error.message, /is not trusted: .* trust it first \(pier trust /);
		}
		assert.deepEqual(JSON.parse(readFileSync(join(stranger, ".pi", "settings.json"), "utf8")), {
			permissions: { deny: ["bash"] },
		});
	});

	test("a settings file that is not JSON is named, and kept as it was", async () => {
		writeFileSync(globalFile, "{ not json");
		const view = await get();
		assert.match(view.global.problems[0]!, /settings\.json: not valid JSON/);
		const reply = await change("POST", { scope: "global", list: "deny", rule: "bash" });
		assert.equal(reply.status, 409);
		assert.match(reply.body.error.message, /settings\.json: not valid JSON .*; fix it first/);
		assert.equal(readFileSync(globalFile, "utf8"), "{ not json");
	});
});

/**
 * The ask, answered four ways through a session UI's `select`: allow once, allow always (an allow rule in the
 * global settings.json, after which the same command no longer asks), reject once and reject always (a deny rule);
 * no answer (a dismissed dialog) is a rejection. Each answer is one audit line naming the rule and its file.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ASK_CHOICES, type GateOptions, gateToolCall } from "../../src/permissions/gate.js";
import { tempDir } from "../helpers/pier-cli.js";

function setup(permissions: unknown, answers: (string | undefined)[]) {
	const dir = tempDir();
	const agentDir = join(dir.path, "agent");
	const cwd = join(dir.path, "project");
	mkdirSync(agentDir);
	mkdirSync(cwd);
	const file = join(agentDir, "settings.json");
	writeFileSync(file, JSON.stringify({ theme: "dark", permissions }));
	const asked: { title: string; options: string[] }[] = [];
	const options: GateOptions = {
		cwd,
		agentDir,
		trusted: () => true,
		approve: false,
		sessionId: () => "s-1",
		auditFile: join(agentDir, "audit.jsonl"),
		ui: () => ({
			hasUI: () => true,
			select: async (title, choices) => {
				asked.push({ title, options: choices });
				return answers.shift();
			},
		}),
	};
	const bash = (command: string) => gateToolCall(options, { toolName: "bash", input: { command } });
	const audit = () =>
		readFileSync(join(agentDir, "audit.jsonl"), "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line) as Record<string, string>);
	const saved = () =>
		JSON.parse(readFileSync(file, "utf8")) as { theme: string; permissions: Record<string, string[]> };
	return { dir, file, asked, bash, audit, saved };
}

describe("the ask", () => {
	test("the dialog names the call and the rule, and offers the four choices", async () => {
		const t = setup({ ask: ["bash(git push:*)"] }, [ASK_CHOICES.allowOnce]);
		using _ = t.dir;
		assert.equal(await t.bash("git push origin main"), undefined);
		assert.deepEqual(t.asked[0]!.options, ["Allow once", "Allow always", "Reject once", "Reject always"]);
		assert.equal(t.asked[0]!.title, `Allow bash: git push origin main? (ask rule "bash(git push:*)" in ${t.file})`);
		assert.deepEqual(t.audit()[0], {
			kind: "permission",
			decision: "ask-allowed",
			subject: "git push origin main",
			tool: "bash",
			session: "s-1",
			rule: "bash(git push:*)",
			source: t.file,
			detail: "Allow once",
			time: t.audit()[0]!.time,
		});
		assert.equal(t.saved().permissions.allow, undefined, "allow once writes nothing");
	});

	test("allow always writes an allow rule for the asked part, keeps the rest of the file, and stops asking", async () => {
		const t = setup({ ask: ["bash"] }, [ASK_CHOICES.allowAlways]);
		using _ = t.dir;
		assert.equal(await t.bash("npm test"), undefined);
		assert.deepEqual(t.saved(), { theme: "dark", permissions: { ask: ["bash"], allow: ["bash(npm test)"] } });
		assert.equal(await t.bash("npm test"), undefined);
		assert.equal(t.asked.length, 1, "the same command is not asked again");
		assert.deepEqual(
			t.audit().map((e) => [e.decision, e.rule, e.detail]),
			[
				["ask-allowed", "bash", `Allow always: wrote allow bash(npm test) to ${t.file}`],
				["allow", "bash(npm test)", undefined],
			],
		);
	});

	test("reject once refuses with the rule and file; reject always writes a deny rule", async () => {
		const t = setup({ ask: ["bash(rm *)"] }, [ASK_CHOICES.rejectOnce, ASK_CHOICES.rejectAlways]);
		using _ = t.dir;
		assert.deepEqual(await t.bash("rm -rf build"), {
			block: true,
			reason: `pier permissions: you rejected bash: rm -rf build (it asks by the rule "bash(rm *)" in ${t.file})`,
		});
		assert.equal(t.saved().permissions.deny, undefined);
		assert.equal((await t.bash("rm -rf build"))?.block, true);
		assert.deepEqual(t.saved().permissions.deny, ["bash(rm -rf build)"]);
		const denied = await t.bash("rm -rf build");
		assert.equal(
			denied?.reason,
			`pier permissions: bash: rm -rf build is denied by the rule "bash(rm -rf build)" in ${t.file}`,
		);
		assert.equal(t.asked.length, 2, "a denied command is not asked");
		assert.deepEqual(
			t.audit().map((e) => e.decision),
			["ask-rejected", "ask-rejected", "deny"],
		);
	});

	test("a dismissed dialog is a rejection", async () => {
		const t = setup({ ask: ["bash"] }, [undefined]);
		using _ = t.dir;
		assert.equal((await t.bash("ls"))?.block, true);
		assert.equal(t.audit()[0]!.detail, "no answer");
	});

	test("a compound command asks once, for the parts an ask rule caught", async () => {
		const t = setup({ ask: ["bash(curl *)"], allow: ["bash(echo *)"] }, [ASK_CHOICES.allowAlways]);
		using _ = t.dir;
		assert.equal(await t.bash("echo go && curl -s a && curl -s b"), undefined);
		assert.deepEqual(t.saved().permissions.allow, ["bash(echo *)", "bash(curl -s a)", "bash(curl -s b)"]);
		assert.equal(await t.bash("echo go && curl -s a && curl -s b"), undefined);
		assert.equal(t.asked.length, 1);
	});
});

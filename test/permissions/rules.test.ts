/**
 * Permission rules: each rule form with a case just past its pattern, compound commands part by part, paths
 * checked as written and with symlinks resolved (a symlink does not escape a rule), deny over ask over allow, and
 * the settings files they come from (a project cannot allow, a rule that cannot be read stops everything).
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { decide } from "../../src/permissions/decide.js";
import { loadRules } from "../../src/permissions/load.js";
import { parseRule, type RuleList, type SourcedRule } from "../../src/permissions/rules.js";
import { commandParts } from "../../src/permissions/shell-parts.js";
import { tempDir } from "../helpers/pier-cli.js";

const SOURCE = "/agent/settings.json";

function rules(lists: Partial<Record<RuleList, string[]>>): SourcedRule[] {
	const out: SourcedRule[] = [];
	for (const [list, texts] of Object.entries(lists) as [RuleList, string[]][])
		for (const text of texts) {
			const parsed = parseRule(text);
			assert.ok(!("error" in parsed), `${text}: ${"error" in parsed ? parsed.error : ""}`);
			out.push({ ...parsed, text, list, source: SOURCE });
		}
	return out;
}

const bash = (command: string, lists: Partial<Record<RuleList, string[]>>, cwd = "/work/project") =>
	decide({ tool: "bash", input: { command }, cwd }, rules(lists));
const onPath = (tool: string, path: string, lists: Partial<Record<RuleList, string[]>>, cwd = "/work/project") =>
	decide({ tool, input: { path }, cwd }, rules(lists));

describe("parseRule", () => {
	test("tool, tool(pattern), Claude Code's capitalized built-ins, MCP and extension tools", () => {
		assert.deepEqual(parseRule("bash"), { tool: "bash" });
		assert.deepEqual(parseRule("bash(rm *)"), { tool: "bash", pattern: "rm *" });
		assert.deepEqual(parseRule("Bash(npm run test:*)"), { tool: "bash", pattern: "npm run test:*" });
		assert.deepEqual(parseRule("read(**/.env)"), { tool: "read", pattern: "**/.env" });
		assert.deepEqual(parseRule("mcp__github__create_issue"), { tool: "mcp__github__create_issue" });
		assert.deepEqual(parseRule("my-ext.Tool"), { tool: "my-ext.Tool" }, "extension tools keep their case");
	});
	test("bad rules say what is wrong", () => {
		assert.match(
			(parseRule("bash(rm *") as { error: string }).error,
			/is not a rule: write a tool name or tool\(pattern\)/,
		);
		assert.match((parseRule("") as { error: string }).error, /empty rule/);
		assert.match((parseRule("bash()") as { error: string }).error, /empty pattern: write bash alone/);
		assert.match((parseRule("deploy(prod)") as { error: string }).error, /only pi's built-in tools take a pattern/);
		assert.match((parseRule("read(src:*)") as { error: string }).error, /":\*" is for bash commands/);
		assert.match((parseRule("rm -rf") as { error: string }).error, /is not a rule/);
	});
});

describe("bash rules", () => {
	test("a glob: rm * takes rm with arguments, not rm alone, not rmdir", () => {
		assert.equal(bash("rm -rf x", { deny: ["bash(rm *)"] }).decision, "deny");
		assert.equal(bash("rm   -rf   /tmp/a/b", { deny: ["bash(rm *)"] }).decision, "deny", "* crosses / and spaces");
		assert.equal(bash("rm", { deny: ["bash(rm *)"] }).decision, "none");
		assert.equal(bash("rmdir x", { deny: ["bash(rm *)"] }).decision, "none");
		assert.equal(bash("echo rm x", { deny: ["bash(rm *)"] }).decision, "none", "matched from the start");
	});
	test("a prefix: npm run test:* takes the script and its variants, not npm run tests", () => {
		const allow = { allow: ["bash(npm run test:*)"] };
		assert.equal(bash("npm run test", allow).decision, "allow");
		assert.equal(bash("npm run test:unit", allow).decision, "allow");
		assert.equal(bash("npm run test -- --watch", allow).decision, "allow");
		assert.equal(bash("npm run tests", allow).decision, "none");
		assert.equal(bash("npm run tes", allow).decision, "none");
		assert.equal(bash("npm run build", allow).decision, "none");
	});
	test("an exact command takes only itself", () => {
		assert.equal(bash("git status", { allow: ["bash(git status)"] }).decision, "allow");
		assert.equal(bash("git status -s", { allow: ["bash(git status)"] }).decision, "none");
	});
	test("a bare bash takes every command, the empty one included", () => {
		assert.equal(bash("anything at all", { ask: ["bash"] }).decision, "ask");
		assert.equal(bash("", { deny: ["bash"] }).decision, "deny");
		assert.equal(decide({ tool: "read", input: { path: "a" }, cwd: "/" }, rules({ deny: ["bash"] })).decision, "none");
	});
});

describe("compound commands, part by part", () => {
	test("the parts of &&, ||, ;, |, &, newlines, $( ), backticks, <( ) and groups", () => {
		assert.deepEqual(commandParts("a && b || c; d | e & f\ng"), ["a", "b", "c", "d", "e", "f", "g"]);
		assert.deepEqual(commandParts("echo $(rm -rf x)"), ["echo $(rm -rf x)", "rm -rf x"]);
		assert.deepEqual(commandParts("echo `rm -rf x`"), ["echo `rm -rf x`", "rm -rf x"]);
		assert.deepEqual(commandParts('echo "now $(rm -rf x)"'), ['echo "now $(rm -rf x)"', "rm -rf x"]);
		assert.deepEqual(commandParts("diff <(rm a) b"), ["diff <(rm a) b", "rm a"]);
		assert.deepEqual(commandParts("(cd x && rm y)"), ["cd x", "rm y"]);
		assert.deepEqual(commandParts("{ rm y; }"), ["rm y"]);
		assert.deepEqual(commandParts("FOO=1 BAR='a b' rm y"), ["rm y"]);
		assert.deepEqual(commandParts("echo 'a && rm x' \"b; c\""), ["echo 'a && rm x' \"b; c\""], "quotes hold");
		assert.deepEqual(commandParts("echo hi 2>&1 &>/dev/null"), ["echo hi 2>&1 &>/dev/null"], "redirections");
		assert.deepEqual(commandParts("echo a # && rm x"), ["echo a"], "a comment runs nothing");
		assert.deepEqual(commandParts("echo $(a $(rm x))"), ["echo $(a $(rm x))", "a $(rm x)", "rm x"]);
	});
	test("a deny on any part denies", () => {
		for (const command of [
			"echo hi && rm -rf x",
			"false || rm -rf x",
			"echo hi; rm -rf x",
			"ls | rm -rf x",
			"echo $(rm -rf x)",
			"echo `rm -rf x`",
			"(rm -rf x)",
			"X=1 rm -rf x",
		])
			assert.equal(bash(command, { deny: ["bash(rm *)"], allow: ["bash(echo *)", "bash"] }).decision, "deny", command);
		assert.equal(bash("echo 'rm -rf x'", { deny: ["bash(rm *)"] }).decision, "none", "quoted text is not run");
	});
	test("allow only when every part is allowed", () => {
		const allow = { allow: ["bash(echo *)", "bash(ls:*)"] };
		assert.equal(bash("echo a && ls -l", allow).decision, "allow");
		assert.equal(bash("echo a && cat /etc/passwd", allow).decision, "none");
		assert.equal(bash("echo $(cat /etc/passwd)", allow).decision, "none");
	});
	test("an ask on any part asks, and names the parts it caught", () => {
		const verdict = bash("ls && git push origin && echo ok", { ask: ["bash(git push:*)"], allow: ["bash"] });
		assert.equal(verdict.decision, "ask");
		assert.deepEqual(verdict.asked, [{ kind: "command", command: "git push origin" }]);
	});
});

describe("path rules", () => {
	test("relative patterns resolve against the cwd, absolute ones stand; ** reaches dot files", () => {
		assert.equal(onPath("read", ".env", { deny: ["read(**/.env)"] }).decision, "deny");
		assert.equal(onPath("read", "config/deep/.env", { deny: ["read(**/.env)"] }).decision, "deny");
		assert.equal(onPath("read", ".env.example", { deny: ["read(**/.env)"] }).decision, "none");
		assert.equal(onPath("read", "/elsewhere/.env", { deny: ["read(**/.env)"] }).decision, "none", "outside the cwd");
		assert.equal(onPath("write", "/etc/passwd", { deny: ["write(/etc/**)"] }).decision, "deny");
		assert.equal(onPath("write", "/etcetera/x", { deny: ["write(/etc/**)"] }).decision, "none");
		assert.equal(onPath("write", "../../etc/hosts", { deny: ["write(/etc/**)"] }).decision, "deny", "../ resolved");
		assert.equal(onPath("edit", "src/a/b.ts", { allow: ["edit(src/**)"] }).decision, "allow");
		assert.equal(onPath("edit", "srcx/b.ts", { allow: ["edit(src/**)"] }).decision, "none");
		assert.equal(onPath("edit", "@src/b.ts", { allow: ["edit(./src/**)"] }).decision, "allow", "pi strips @");
		assert.equal(onPath("write", "src/a", { allow: ["edit(src/**)"] }).decision, "none", "another tool");
	});
	test("a symlink does not escape a write rule, for an existing file or a new one", () => {
		using dir = tempDir();
		const project = join(dir.path, "project");
		const etc = join(dir.path, "etc");
		mkdirSync(join(project, "src"), { recursive: true });
		mkdirSync(etc);
		writeFileSync(join(etc, "passwd"), "root\n");
		symlinkSync(etc, join(project, "src", "link"));
		symlinkSync(join(etc, "passwd"), join(project, "pw"));
		const deny = { deny: [`write(${etc}/**)`] };
		assert.equal(onPath("write", "src/link/passwd", deny, project).decision, "deny", "an existing file");
		assert.equal(onPath("write", "src/link/new/file", deny, project).decision, "deny", "a new file");
		assert.equal(onPath("write", "pw", deny, project).decision, "deny", "a file link");
		assert.equal(onPath("write", "src/real.ts", deny, project).decision, "none");
		// An allow takes both forms: a link inside src/ that points outside it is not allowed by src/**.
		assert.equal(onPath("write", "src/link/passwd", { allow: ["write(src/**)"] }, project).decision, "none");
		assert.equal(onPath("write", "src/own.ts", { allow: ["write(src/**)"] }, project).decision, "allow");
	});
	test("grep, find and ls are checked on their path, the cwd by default", () => {
		const verdict = decide({ tool: "ls", input: {}, cwd: "/work/project" }, rules({ deny: ["ls(/work/**)"] }));
		assert.equal(verdict.decision, "deny");
		assert.equal(verdict.subject, "/work/project");
	});
});

describe("other tools", () => {
	test("MCP tools by name, by server, by glob", () => {
		const call = (tool: string, lists: Partial<Record<RuleList, string[]>>) =>
			decide({ tool, input: { q: 1 }, cwd: "/" }, rules(lists)).decision;
		assert.equal(call("mcp__github__create_issue", { deny: ["mcp__github__create_issue"] }), "deny");
		assert.equal(call("mcp__github__create_issues", { deny: ["mcp__github__create_issue"] }), "none");
		assert.equal(call("mcp__github__list", { deny: ["mcp__github"] }), "deny");
		assert.equal(call("mcp__githubx__list", { deny: ["mcp__github"] }), "none");
		assert.equal(call("mcp__github__list", { ask: ["mcp__github__*"] }), "ask");
		assert.equal(call("mcp__gitlab__list", { ask: ["mcp__github__*"] }), "none");
	});
	test("extension tools by name, exactly", () => {
		const call = (tool: string) => decide({ tool, input: {}, cwd: "/" }, rules({ ask: ["deploy"] })).decision;
		assert.equal(call("deploy"), "ask");
		assert.equal(call("deploy2"), "none");
		assert.equal(call("Deploy"), "none");
	});
});

describe("deny wins over ask, ask over allow", () => {
	test("the stronger list decides, whatever the order in the file", () => {
		assert.equal(bash("rm x", { allow: ["bash"], ask: ["bash"], deny: ["bash(rm *)"] }).decision, "deny");
		assert.equal(bash("rm x", { allow: ["bash(rm *)"], ask: ["bash"] }).decision, "ask", "a glob allow");
		assert.equal(bash("ls", { allow: ["bash"], ask: ["bash(rm *)"] }).decision, "allow");
		assert.equal(bash("rm x", { allow: ["bash(rm x)"], deny: ["bash(rm *)"] }).decision, "deny");
	});
	test("an exact allow (what allow always writes) answers an ask for that very command, not its neighbours", () => {
		const lists = { ask: ["bash"], allow: ["bash(npm test)"] };
		assert.equal(bash("npm test", lists).decision, "allow");
		assert.equal(bash("npm test -- x", lists).decision, "ask");
		assert.equal(bash("npm test && curl x", lists).decision, "ask");
		assert.equal(onPath("write", "/p/a.txt", { ask: ["write"], allow: ["write(/p/a.txt)"] }).decision, "allow");
		assert.equal(onPath("write", "/p/b.txt", { ask: ["write"], allow: ["write(/p/a.txt)"] }).decision, "ask");
		const tool = (lists: Partial<Record<RuleList, string[]>>) =>
			decide({ tool: "deploy", input: {}, cwd: "/" }, rules(lists)).decision;
		assert.equal(tool({ ask: ["deploy"], allow: ["deploy"] }), "allow");
	});
	test("the verdict names the rule and its file", () => {
		const verdict = bash("rm x", { deny: ["bash(rm *)"] });
		assert.equal(verdict.rule?.text, "bash(rm *)");
		assert.equal(verdict.source, SOURCE);
		assert.equal(verdict.subject, "rm x");
	});
});

describe("loadRules", () => {
	function setup(global: unknown, project?: unknown) {
		const dir = tempDir();
		const agent = join(dir.path, "agent");
		const cwd = join(dir.path, "project");
		mkdirSync(agent);
		mkdirSync(join(cwd, ".pi"), { recursive: true });
		writeFileSync(join(agent, "settings.json"), typeof global === "string" ? global : JSON.stringify(global));
		if (project !== undefined) writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify(project));
		return { dir, agent, cwd };
	}
	test("global rules with their file; a trusted project adds ask and deny, its allow is ignored, naming the file", () => {
		const { dir, agent, cwd } = setup(
			{ permissions: { allow: ["bash(ls:*)"], deny: ["bash(rm *)"] } },
			{ permissions: { allow: ["bash"], ask: ["write"], deny: ["read(**/.env)"] } },
		);
		using _ = dir;
		const loaded = loadRules(cwd, true, agent);
		assert.deepEqual(
			loaded.rules.map((r) => [r.list, r.text, r.source]),
			[
				["allow", "bash(ls:*)", join(agent, "settings.json")],
				["deny", "bash(rm *)", join(agent, "settings.json")],
				["ask", "write", join(cwd, ".pi", "settings.json")],
				["deny", "read(**/.env)", join(cwd, ".pi", "settings.json")],
			],
		);
		assert.equal(loaded.diagnostics.length, 1);
		assert.match(
			loaded.diagnostics[0]!,
			/project[/].pi[/]settings\.json: "permissions\.allow" is ignored: a project's settings can only add ask and deny rules/,
		);
		assert.deepEqual(loaded.blocking, []);
	});
	test("an untrusted project's rules do not count", () => {
		const { dir, agent, cwd } = setup({}, { permissions: { deny: ["bash"] } });
		using _ = dir;
		assert.deepEqual(loadRules(cwd, false, agent).rules, []);
	});
	test("rules that cannot be read block; a bad allow only allows less", () => {
		for (const [global, expected] of [
			["{ not json", /settings\.json cannot be read .*; fix it to run tools again/],
			[{ permissions: [] }, /"permissions" must be an object/],
			[{ permissions: { deny: "bash" } }, /"permissions\.deny" must be a list of rules/],
			[{ permissions: { ask: ["bash(rm *"] } }, /"permissions\.ask": "bash\(rm \*" is not a rule/],
		] as const) {
			const { dir, agent, cwd } = setup(global);
			using _ = dir;
			const loaded = loadRules(cwd, true, agent);
			assert.match(loaded.blocking[0] ?? "", expected);
		}
		const { dir, agent, cwd } = setup({ permissions: { allow: ["bash(ls", "bash(ls *)"], defaultMode: "x" } });
		using _ = dir;
		const loaded = loadRules(cwd, true, agent);
		assert.deepEqual(loaded.blocking, []);
		assert.equal(loaded.rules.length, 1);
		assert.match(loaded.diagnostics.join("\n"), /"permissions\.allow": "bash\(ls" is not a rule/);
		assert.match(loaded.diagnostics.join("\n"), /"permissions\.defaultMode" is not used by pier/);
	});
});

/**
 * The extension policy's patterns and reading (src/extensions/policy/): each pattern form matches what it names,
 * and not what lies just past it; block wins; a non-empty allow list refuses the rest; a malformed policy refuses
 * everything, naming the file and the field.
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
	PatternError,
	parsePattern,
	patternMatches,
	type PolicySubject,
} from "../../src/extensions/policy/patterns.js";
import {
	projectPolicyIgnored,
	readExtensionPolicy,
	refusalReason,
	standingOf,
} from "../../src/extensions/policy/policy.js";
import { tempDir } from "../helpers/pier-cli.js";

const npm = (name: string): PolicySubject => ({ source: `npm:${name}`, paths: [] });
const git = (identity: string): PolicySubject => ({ source: `git:${identity}`, paths: [] });
const at = (path: string): PolicySubject => ({ paths: [path] });
const id = (value: string): PolicySubject => ({ id: value, paths: [] });
const matches = (pattern: string, subject: PolicySubject) => patternMatches(parsePattern(pattern), subject);

describe("policy patterns", () => {
	test("npm: a name, a scope's names with *, never just past them", () => {
		assert.ok(matches("npm:left-pad", npm("left-pad")));
		assert.ok(!matches("npm:left-pad", npm("left-pad2")));
		assert.ok(!matches("npm:left-pad", npm("left-pa")));
		assert.ok(!matches("npm:left-pad", npm("@x/left-pad")));
		assert.ok(matches("npm:@acme/*", npm("@acme/tools")));
		assert.ok(!matches("npm:@acme/*", npm("@acme2/tools")));
		assert.ok(!matches("npm:@acme/*", npm("@acm/tools")));
		assert.ok(!matches("npm:@acme/*", npm("acme-tools")));
		// * stays within the scope; unscoped names are not a scope's.
		assert.ok(!matches("npm:*", npm("@acme/tools")));
		assert.ok(matches("npm:*", npm("tools")));
		assert.ok(matches("npm:**", npm("@acme/tools")));
		// A git package is never an npm one of the same name.
		assert.ok(!matches("npm:tools", git("github.com/acme/tools")));
		assert.ok(matches("npm:@Acme/Tools", npm("@acme/tools")));
	});

	test("git: a repository by identity, an owner's with *, never just past them", () => {
		assert.ok(matches("git:github.com/org/repo", git("github.com/org/repo")));
		assert.ok(matches("git:github.com/org/repo.git", git("github.com/org/repo")));
		assert.ok(!matches("git:github.com/org/repo", git("github.com/org/repo2")));
		assert.ok(matches("git:github.com/org/*", git("github.com/org/anything")));
		assert.ok(!matches("git:github.com/org/*", git("github.com/org2/anything")));
		assert.ok(!matches("git:github.com/org/*", git("github.com/or/anything")));
		assert.ok(!matches("git:github.com/org/*", git("github.com.evil/org/anything")));
		assert.ok(!matches("git:github.com/org/*", git("github.com/org/group/repo")));
		assert.ok(matches("git:github.com/org/**", git("github.com/org/group/repo")));
		assert.ok(matches("git:GitHub.com/org/*", git("github.com/org/x")));
		assert.ok(!matches("git:github.com/org/*", npm("github.com/org/x")));
	});

	test("paths: a directory and everything in it, by name and by real path, never a sibling with its prefix", () => {
		using dir = tempDir();
		const exts = join(dir.path, "exts");
		mkdirSync(join(exts, "a"), { recursive: true });
		mkdirSync(join(dir.path, "exts2", "b"), { recursive: true });
		writeFileSync(join(exts, "a", "index.ts"), "");
		symlinkSync(join(exts, "a"), join(dir.path, "link"));
		assert.ok(matches(exts, at(exts)));
		assert.ok(matches(exts, at(join(exts, "a", "index.ts"))));
		assert.ok(matches(`${exts}/`, at(join(exts, "a"))));
		assert.ok(!matches(exts, at(join(dir.path, "exts2", "b"))));
		assert.ok(!matches(exts, at(dir.path)));
		// A link to a blocked directory is the blocked directory.
		assert.ok(matches(exts, at(join(dir.path, "link", "index.ts"))));
		// A pattern naming the link matches what it points to.
		assert.ok(matches(join(dir.path, "link"), at(join(exts, "a", "x.ts"))));
		assert.ok(matches(`${dir.path}/*/a`, at(join(exts, "a", "x.ts"))));
		assert.ok(!matches(`${dir.path}/*/a`, at(join(dir.path, "exts2", "b"))));
		assert.ok(matches("~/x", at(join(homedir(), "x", "y.ts"))));
		assert.ok(!matches("~/x", at(join(homedir(), "xy"))));
		// A local package's identity holds its path.
		assert.ok(matches(exts, { source: `local:${join(exts, "a")}`, paths: [] }));
		assert.ok(!matches(exts, id("exts")));
	});

	test("id: an extension id, with *, never just past it", () => {
		assert.ok(matches("id:hello", id("hello")));
		assert.ok(!matches("id:hello", id("hello2")));
		assert.ok(!matches("id:hello", id("hell")));
		assert.ok(matches("id:acme.*", id("acme.tools")));
		assert.ok(!matches("id:acme.*", id("acmex.tools")));
		assert.ok(!matches("id:hello", npm("hello")));
	});

	test("malformed patterns say what is wrong and what to write", () => {
		const problem = (text: string) => {
			try {
				parsePattern(text);
			} catch (error) {
				assert.ok(error instanceof PatternError);
				return error.message;
			}
			return assert.fail(`${text} was accepted`);
		};
		assert.match(problem("lodash"), /bare word: write id:lodash .* or npm:lodash/);
		assert.match(problem("npm:left-pad@1.0.0"), /names a version/);
		assert.match(problem("npm:"), /not an npm package name/);
		assert.match(problem("git:github.com/org/repo@v1"), /names a ref/);
		assert.match(problem("git:github.com"), /needs a host and a path/);
		assert.match(problem("git:github.com/../x"), /'\.\.' segment/);
		assert.match(problem("https://github.com/org/repo"), /is a URL: write git:/);
		assert.match(problem("./exts"), /not a pattern/);
		assert.match(problem("/"), /root directory/);
		assert.match(problem(""), /empty/);
		assert.match(problem(" npm:x"), /leading or trailing spaces/);
		assert.match(problem("id:a b"), /not an extension id/);
		assert.match(problem(`id:${"a".repeat(129)}`), /not an extension id/);
		parsePattern(`id:${"a".repeat(128)}`);
	});
});

function policyIn(dir: string, value: unknown) {
	writeFileSync(join(dir, "settings.json"), JSON.stringify({ extensionPolicy: value }));
	return readExtensionPolicy(dir);
}

describe("the policy", () => {
	test("block wins over allow, and names the pattern and the file", () => {
		using dir = tempDir();
		const policy = policyIn(dir.path, { allow: ["npm:@acme/*"], block: ["npm:@acme/bad"] });
		assert.deepEqual(standingOf(policy, npm("@acme/good")), { standing: "allowed", pattern: "npm:@acme/*" });
		const blocked = standingOf(policy, npm("@acme/bad"));
		assert.deepEqual(blocked, { standing: "blocked", pattern: "npm:@acme/bad" });
		const reason = refusalReason(policy, blocked) ?? "";
		assert.ok(reason.includes(join(dir.path, "settings.json")), reason);
		assert.match(reason, /extensionPolicy\.block pattern "npm:@acme\/bad"/);
	});

	test("a non-empty allow list refuses what it does not match; an empty one refuses nothing", () => {
		using dir = tempDir();
		const policy = policyIn(dir.path, { allow: ["npm:@acme/*", "id:helper"] });
		assert.deepEqual(standingOf(policy, npm("other")), { standing: "not-allowed" });
		assert.match(refusalReason(policy, { standing: "not-allowed" }) ?? "", /no extensionPolicy\.allow pattern/);
		// Before its ids are known, a package may still hold an extension the id: pattern allows.
		assert.deepEqual(standingOf(policy, npm("other"), true), { standing: "allowed", byId: true });
		assert.deepEqual(standingOf(policy, { ...npm("other"), id: "helper" }).standing, "allowed");
		const blockOnly = policyIn(dir.path, { block: ["npm:bad"] });
		assert.deepEqual(standingOf(blockOnly, npm("other")), { standing: "allowed" });
	});

	test("no file, no key: no policy; the key in a file pi cannot parse fails closed", () => {
		using dir = tempDir();
		assert.deepEqual(standingOf(readExtensionPolicy(dir.path), npm("x")), { standing: "allowed" });
		writeFileSync(join(dir.path, "settings.json"), "{ not json");
		assert.equal(readExtensionPolicy(dir.path).problem, undefined);
		writeFileSync(join(dir.path, "settings.json"), '{ "extensionPolicy": { "block": ["npm:x"] }, }');
		assert.match(readExtensionPolicy(dir.path).problem ?? "", /cannot be read/);
	});

	test("a malformed policy refuses everything, naming the field", () => {
		using dir = tempDir();
		const cases: Array<[unknown, RegExp]> = [
			[["npm:x"], /extensionPolicy: must be an object/],
			[{ allow: "npm:x" }, /extensionPolicy\.allow: must be an array/],
			[{ block: [1] }, /extensionPolicy\.block\[0\]: is a number/],
			[{ block: ["npm:ok", "lodash"] }, /extensionPolicy\.block\[1\]: "lodash" is a bare word/],
			[{ deny: [] }, /extensionPolicy\.deny: unknown field/],
		];
		for (const [value, expected] of cases) {
			const policy = policyIn(dir.path, value);
			assert.match(policy.problem ?? "", expected);
			const standing = standingOf(policy, npm("anything"));
			assert.equal(standing.standing, "malformed");
			const reason = refusalReason(policy, standing) ?? "";
			assert.match(reason, /is malformed, so nothing is installed or loaded until it is fixed/);
			assert.ok(reason.includes(join(dir.path, "settings.json")));
		}
	});

	test("a project's settings naming the policy are said to be ignored", () => {
		using dir = tempDir();
		const cwd = join(dir.path, "project");
		mkdirSync(join(cwd, ".pi"), { recursive: true });
		assert.equal(projectPolicyIgnored(cwd, join(dir.path, "agent")), undefined);
		writeFileSync(join(cwd, ".pi", "settings.json"), JSON.stringify({ extensionPolicy: { allow: ["npm:x"] } }));
		const said = projectPolicyIgnored(cwd, join(dir.path, "agent")) ?? "";
		assert.ok(said.startsWith(join(cwd, ".pi", "settings.json")), said);
		assert.match(said, /extensionPolicy is ignored: .* global settings only/);
	});
});

describe("the shared install functions", () => {
	test("installNpmSource and the -e source install refuse a blocked source before npm runs", async () => {
		using dir = tempDir();
		const { SettingsManager } = await import("@earendil-works/pi-coding-agent");
		const { installNpmSource } = await import("../../src/extensions/packages/npm.js");
		const { installCliSource } = await import("../../src/extensions/packages/cli-sources.js");
		const { parseSource } = await import("../../src/extensions/packages/sources.js");
		const { readAudit } = await import("../../src/audit/audit-log.js");
		policyIn(dir.path, { block: ["npm:@evil/*"] });
		const parsed = parseSource("npm:@evil/tool") as Extract<ReturnType<typeof parseSource>, { kind: "npm" }>;
		// npm itself would fail here (no such command): the refusal must come first.
		const settingsManager = SettingsManager.inMemory({ npmCommand: ["/nonexistent/npm"] });
		await assert.rejects(
			installNpmSource({ parsed, scope: "user", cwd: dir.path, agentDir: dir.path, settingsManager }),
			/not installing npm:@evil\/tool: blocked .*pattern "npm:@evil\/\*"/,
		);
		await assert.rejects(installCliSource(parsed, { agentDir: dir.path, install: true }), /pattern "npm:@evil\/\*"/);
		const audit = readAudit({ kind: "policy" }, join(dir.path, "pier-audit.jsonl"));
		assert.deepEqual(
			audit.map((e) => [e.subject, e.rule]),
			[
				["npm:@evil/tool", "npm:@evil/*"],
				["npm:@evil/tool", "npm:@evil/*"],
			],
		);
	});
});

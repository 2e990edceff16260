/** Sources and refs: parsed as pi does where pi is right, refused with a message naming the source where not. */
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
	PackageSourceError,
	parseScopedSource,
	parseSource,
	refProblem,
} from "../../src/extensions/packages/sources.js";
import { makeRepo, quickjsExtension, sandbox, writeSettings } from "./helpers.js";

describe("package sources", () => {
	test("git forms: git: shorthand, https, ssh, git://, scp, file:// — each with an optional @ref", () => {
		const cases: Array<[string, string, string, string | undefined]> = [
			["git:github.com/o/r@v1", "https://github.com/o/r", "git:github.com/o/r", "v1"],
			["https://github.com/o/r.git@main", "https://github.com/o/r.git", "git:github.com/o/r", "main"],
			["ssh://git@host.test/o/r@v2", "ssh://git@host.test/o/r", "git:host.test/o/r", "v2"],
			// pi 0.74.2 takes these two for local paths and loads nothing.
			["git://localhost/o/r", "git://localhost/o/r", "git:localhost/o/r", undefined],
			["git@github.com:o/r@v3", "git@github.com:o/r", "git:github.com/o/r", "v3"],
			["git:git@GitHub.com:o/r", "git@GitHub.com:o/r", "git:github.com/o/r", undefined],
			["file:///srv/repos/pkg.git@v1", "file:///srv/repos/pkg.git", "git:file/srv/repos/pkg", "v1"],
			["git:file:///srv/repos/pkg.git", "file:///srv/repos/pkg.git", "git:file/srv/repos/pkg", undefined],
		];
		for (const [input, repo, identity, ref] of cases) {
			const parsed = parseSource(input);
			assert.equal(parsed.kind, "git", input);
			if (parsed.kind !== "git") continue;
			assert.deepEqual(
				[parsed.repo, parsed.identity, parsed.ref, parsed.pinned],
				[repo, identity, ref, ref !== undefined],
				input,
			);
		}
	});

	test("npm and local sources keep pi's meaning", () => {
		assert.deepEqual(parseSource("npm:@scope/pkg@1.2.3"), {
			kind: "npm",
			source: "npm:@scope/pkg@1.2.3",
			identity: "npm:@scope/pkg",
			name: "@scope/pkg",
			version: "1.2.3",
			pinned: true,
		});
		assert.equal(parseSource("./pkg").kind, "local");
		assert.equal(parseScopedSource("./pkg", "/base").identity, "local:/base/pkg");
	});

	test("refs --upload-pack=…, a..b, -x and their percent-encoded forms are refused, naming the source", () => {
		for (const ref of [
			"--upload-pack=touch /tmp/x",
			"a..b",
			"-x",
			"%2Dx",
			"a%2E%2Eb",
			"x y",
			"a\u0007b",
			"@{u}",
			"v1.lock",
			"a:b",
		]) {
			assert.ok(refProblem(ref), ref);
			const source = `git:host.test/o/r@${ref}`;
			assert.throws(
				() => parseSource(source),
				(e: unknown) =>
					e instanceof PackageSourceError &&
					e.message.startsWith(`package ${JSON.stringify(source)}: `) &&
					/ref |control characters/.test(e.message),
				ref,
			);
		}
		for (const ref of ["v1", "release/2.0", "0123abcd", "feature_x-1"]) assert.equal(refProblem(ref), undefined, ref);
	});

	test("unsupported or malformed sources are refused clearly", () => {
		const refused: Array<[string, RegExp]> = [
			["ftp://host.test/o/r", /unsupported URL scheme ftp:/],
			["https://host.test/o/r?x=1", /query strings and fragments/],
			["git:github.com/o/r#v3", /query strings and fragments/],
			["https://host.test/onlyone", /needs an owner and a repository/],
			["git:nodot/o/r", /git: shorthand must be git:host\/owner\/repo/],
			["git:host.test/o/../r", /'\.\.' segment/],
			["npm:", /needs a package name/],
		];
		for (const [source, message] of refused) assert.throws(() => parseSource(source), message, source);
	});

	test("a bare repository given as a path is refused with the file:// URL to use", () => {
		using box = sandbox();
		const repo = makeRepo(box, "bare");
		repo.commit(quickjsExtension("x", "x", "x_tool", "x"), "v1");
		assert.throws(
			() => parseScopedSource(repo.bare, "/"),
			new RegExp(`is a bare git repository.*use file://${repo.bare}`),
		);
	});
});

describe("refs are refused before git sees them", () => {
	test("pier install with an --upload-pack ref fails naming the source, and runs nothing", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "evil");
		repo.commit(quickjsExtension("x", "x", "x_tool", "x"), "v1");
		const marker = join(box.root, "PWNED");
		const result = await box.pier(["install", `${repo.url}@--upload-pack=touch ${marker}`]);
		assert.equal(result.code, 2);
		assert.match(result.stderr, /pier: package ".*evil\.git@--upload-pack=touch .*": ref .* must not start with '-'/);
		assert.equal(existsSync(marker), false);
		assert.equal(existsSync(join(box.agent, "git")), false, "nothing was cloned");
	});

	test("a bad ref in settings is one diagnostic naming the package; the session runs", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "evil");
		repo.commit(quickjsExtension("x", "x", "x_tool", "x"), "v1");
		writeSettings(box.agent, { packages: [`${repo.url}@a..b`, `git:host.test/o/r@-x`] });
		const result = await box.pier(["run", "hello"]);
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stderr, /package .*evil\.git@a\.\.b \(user\) failed: ref "a\.\.b" must not contain '\.\.'/);
		assert.match(result.stderr, /package git:host\.test\/o\/r@-x \(user\) failed: ref "-x" must not start with '-'/);
		assert.equal(existsSync(join(box.agent, "git")), false);
	});

	test("-e with a git source checks its ref too (pi would hand it to git checkout)", async () => {
		using box = sandbox();
		const result = await box.pier(["run", "-e", "git:host.test/o/r@--upload-pack=x", "hello"]);
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stderr, /package "git:host\.test\/o\/r@--upload-pack=x": ref .* must not start with '-'/);
	});

	test("pier install of a bare repository path says to use its file:// URL", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "plain");
		repo.commit(quickjsExtension("x", "x", "x_tool", "x"), "v1");
		mkdirSync(join(box.root, "unused"));
		const result = await box.pier(["install", repo.bare]);
		assert.equal(result.code, 2);
		assert.match(result.stderr, new RegExp(`is a bare git repository.*file://${repo.bare}`));
	});
});

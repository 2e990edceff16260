/**
 * Issue 27, findings 9 and 12: where a git source's checkout goes.
 *
 * 9: a source with `..` as its host (`git:../sessions/x`, `git@..:…`, `https://../…`) mapped its checkout outside
 * `<agentDir>/git`, and `pier remove` deleted that directory; `git:./a/b` landed over another host's directories.
 * 12: a package whose checkout path is inside another package's checkout replaced part of it, and one whose
 * checkout would hold another's deleted it.
 *
 * The real `pier` bin, real git repositories; sentinel directories where a bad source would map prove that
 * nothing outside the git root, and nothing of another package, is touched.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { makeRepo, quickjsExtension, sandbox, writeSettings } from "../packages/helpers.js";

const BAD_HOSTS = [
	"git:../sessions/x",
	"git:git@..:sessions/x",
	"git@..:sessions/x",
	"https://../sessions/x",
	"ssh://git@../sessions/x",
	"https://%2e%2e/sessions/x",
	"git:./a/b",
	"https://./a/b",
	"https://a..b/o/r",
	"git:.example.com/o/r",
];

describe("a git source's checkout stays inside its git root", () => {
	test("'.', '..' and empty labels are refused as hosts, naming the source", async () => {
		using box = sandbox();
		for (const source of BAD_HOSTS) {
			const result = await box.pier(["install", source]);
			assert.notEqual(result.code, 0, source);
			assert.ok(result.stderr.includes(JSON.stringify(source)), `${source}: ${result.stderr}`);
			assert.match(result.stderr, /is not a host name/, source);
		}
		const empty = await box.pier(["install", "https://example.com/o//r"]);
		assert.notEqual(empty.code, 0);
		assert.match(empty.stderr, /empty segment/);
		assert.equal(existsSync(join(box.agent, "git")), false);
	});

	test("bad entries configured in settings never touch a directory outside the git root", async () => {
		using box = sandbox();
		const project = join(box.root, "project");
		mkdirSync(project);
		// Where each bad source would map: outside <agent>/git, or over the host "a"'s directory.
		const sentinels = [join(box.agent, "sessions", "x"), join(box.agent, "git", "a", "b"), join(box.agent, "o", "r")];
		for (const dir of sentinels) {
			mkdirSync(dir, { recursive: true });
			writeFileSync(join(dir, "KEEP"), "mine");
		}
		const configured = ["git:../sessions/x", "git:./a/b", "https://../o/r", "git@..:sessions/x"];
		writeSettings(box.agent, { packages: configured });

		for (const source of configured) {
			const removed = await box.pier(["remove", source]);
			assert.notEqual(removed.code, 0, source);
			assert.match(removed.stderr, /is not a host name/);
		}
		const update = await box.pier(["update"]);
		assert.notEqual(update.code, 0);
		for (const source of configured) assert.ok(update.stderr.includes(source), update.stderr);
		const list = await box.pier(["list", "--json"]);
		const states = (JSON.parse(list.stdout) as { packages: Array<{ state: string; reason: string }> }).packages;
		assert.deepEqual(
			states.map((p) => p.state),
			configured.map(() => "failed"),
		);
		for (const p of states) assert.match(p.reason, /is not a host name/);
		const run = await box.pier(["run", "no_such_tool {}"], { cwd: project });
		assert.equal(run.code, 0, run.stderr);
		assert.match(run.stderr, /git:\.\.\/sessions\/x \(user\) failed: .*is not a host name/);

		for (const dir of sentinels) assert.equal(readFileSync(join(dir, "KEEP"), "utf8"), "mine", `${dir} was touched`);
	});
});

describe("a checkout never nests in another package's checkout", () => {
	test("a package whose checkout would be inside another's is refused, and the other stays whole", async () => {
		using box = sandbox();
		const outer = makeRepo(box, "outer");
		outer.commit({ ...quickjsExtension("o", "outer", "outer_tool", "o"), "sub/KEEP": "outer's file" });
		const inner = makeRepo(box, "outer/sub");
		inner.commit(quickjsExtension("i", "inner", "inner_tool", "i"));
		assert.equal((await box.pier(["install", outer.url])).code, 0);
		const outerCheckout = join(
			box.agent,
			"git",
			"file",
			...outer.bare
				.replace(/\.git$/, "")
				.split("/")
				.filter(Boolean),
		);
		assert.ok(existsSync(join(outerCheckout, "sub", "KEEP")));

		const nested = await box.pier(["install", inner.url]);
		assert.notEqual(nested.code, 0);
		assert.match(nested.stderr, /inside the checkout of git:file\/.*\/remotes\/outer .*nested checkouts are refused/);
		assert.ok(nested.stderr.includes(JSON.stringify(inner.url)), nested.stderr);
		assert.equal(readFileSync(join(outerCheckout, "sub", "KEEP"), "utf8"), "outer's file");
		assert.equal(existsSync(join(outerCheckout, "sub", ".git")), false);

		// Configured by hand, it neither installs over the other package nor is deleted by remove.
		writeSettings(box.agent, { packages: [outer.url, inner.url] });
		const update = await box.pier(["update"]);
		assert.notEqual(update.code, 0);
		const removed = await box.pier(["remove", inner.url]);
		assert.notEqual(removed.code, 0);
		assert.match(removed.stderr, /inside the checkout .* of another package; not deleting it/);
		assert.equal(readFileSync(join(outerCheckout, "sub", "KEEP"), "utf8"), "outer's file");
	});

	test("a package whose checkout would hold another's is refused, and the other stays installed", async () => {
		using box = sandbox();
		const outer = makeRepo(box, "outer");
		outer.commit(quickjsExtension("o", "outer", "outer_tool", "o"));
		const inner = makeRepo(box, "outer/sub");
		inner.commit(quickjsExtension("i", "inner", "inner_tool", "i"));
		assert.equal((await box.pier(["install", inner.url])).code, 0);
		const innerCheckout = join(
			box.agent,
			"git",
			"file",
			...inner.bare
				.replace(/\.git$/, "")
				.split("/")
				.filter(Boolean),
		);
		assert.ok(existsSync(join(innerCheckout, ".git")));

		const holding = await box.pier(["install", outer.url]);
		assert.notEqual(holding.code, 0);
		assert.match(holding.stderr, /would hold the checkout of git:file\/.*\/remotes\/outer\/sub .*nested checkouts/);
		assert.ok(existsSync(join(innerCheckout, ".git")), "the other package's checkout was deleted");
		assert.ok(existsSync(join(innerCheckout, "extensions", "i", "index.mjs")));
	});
});

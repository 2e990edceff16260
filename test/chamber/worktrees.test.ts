/**
 * Worktrees through the chamber's API, against a real `pier serve`, real git repositories in a temp dir and the
 * offline demo model: a session in a new worktree writes a file that stays out of the main checkout until the
 * branch is merged; uncommitted work, a base checkout elsewhere or dirty, and a conflict each refuse and change
 * nothing; the list shows each session's branch; a worktree asks for trust again; and the hostile cases (branch
 * names git refuses, folders that are not pier's worktrees, a hand-edited worktrees.json, no auth) are refused.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";

type Failure = { error: { code: string; message: string } };
type Worktree = { path: string; cwd: string; branch: string; base: string; repo: string };
type Summary = { id: string; cwd: string; branch?: string; worktree?: true };

/** git with nothing of the caller's GIT_* environment (a test run from a hook must not act on pier's own repo). */
function git(dir: string, ...args: string[]): string {
	const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("GIT_")));
	return execFileSync("git", ["-C", dir, ...args], { env: { ...env, LC_ALL: "C" }, encoding: "utf8" });
}

/** A repository with one commit on `main` and a git identity in its own config. */
function makeRepo(dir: string, files: Record<string, string>): string {
	mkdirSync(dir, { recursive: true });
	git(dir, "init", "-q", "-b", "main");
	git(dir, "config", "user.name", "Pier Test");
	git(dir, "config", "user.email", "pier@example.invalid");
	git(dir, "config", "commit.gpgsign", "false");
	for (const [name, text] of Object.entries(files)) {
		mkdirSync(join(dir, name, ".."), { recursive: true });
		writeFileSync(join(dir, name), text);
	}
	git(dir, "add", "-A");
	git(dir, "commit", "-q", "-m", "first");
	return realpathSync(dir);
}

describe("worktrees in the chamber API", () => {
	const dir = tempDir("pier-worktrees-");
	const agentDir = join(dir.path, "agent");
	const stateDir = join(dir.path, "state");
	let repo: string;
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		mkdirSync(agentDir, { recursive: true });
		repo = makeRepo(join(dir.path, "repo"), { "README.md": "# Project\nline two\n", "pkg/index.ts": "export {};\n" });
		({ serve, api } = await servedChamber(["--no-examples", "--model", "pier/demo"], {
			agentDir,
			cwd: dir.path,
			stateDir,
		}));
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const newWorktree = async (body: Record<string, unknown>) => {
		const r = await api.call<{ worktree: Worktree }>("POST", "/api/pi/worktrees", body);
		assert.equal(r.status, 201, JSON.stringify(r.body));
		return r.body.worktree;
	};
	const newSession = async (cwd: string) => {
		const r = await api.call<{ session: Summary }>("POST", "/api/pi/sessions", { cwd });
		assert.equal(r.status, 201, JSON.stringify(r.body));
		return r.body.session;
	};
	const listed = async (id: string) =>
		(await api.call<{ sessions: Summary[] }>("GET", "/api/pi/sessions")).body.sessions.find((s) => s.id === id);
	const refused = async (path: string, body: unknown, status: number, code: string) => {
		const r = await api.call<Failure>("POST", path, body);
		assert.equal(r.status, status, JSON.stringify(r.body));
		assert.equal(r.body.error.code, code, JSON.stringify(r.body));
		return r.body.error.message;
	};
	/** Sends the demo model's `write {…}` and waits for the run to end. */
	const write = async (id: string, path: string, content: string) => {
		const stream = api.events(`session=${id}`);
		try {
			await stream.waitFor((e) => e.event === "session.snapshot", "the snapshot");
			const text = `write ${JSON.stringify({ path, content })}`;
			const sent = await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text });
			assert.equal(sent.status, 202, JSON.stringify(sent.body));
			await stream.waitFor((e) => e.event === "agent.end", "the write's run to end");
		} finally {
			stream.close();
		}
	};

	test("a worktree session's edits stay out of the main checkout until merged; then the worktree is removed", async () => {
		const wt = await newWorktree({ cwd: join(repo, "pkg"), branch: "feature/x" });
		assert.equal(wt.branch, "feature/x");
		assert.equal(wt.base, "main");
		assert.equal(wt.repo, repo);
		assert.ok(wt.path.startsWith(join(realpathSync(stateDir), "worktrees")), wt.path);
		assert.equal(wt.cwd, join(wt.path, "pkg"), "the session works in the same sub-folder of the worktree");
		assert.ok(existsSync(join(wt.path, "README.md")));
		assert.match(git(repo, "worktree", "list"), /\[feature\/x\]/);

		const session = await newSession(wt.cwd);
		assert.equal(session.branch, "feature/x");
		assert.equal(session.worktree, true);
		const main = await newSession(repo);
		assert.equal(main.branch, "main");
		assert.equal(main.worktree, undefined);
		assert.equal((await listed(session.id))?.branch, "feature/x");

		await write(session.id, "x.ts", "export const x = 1;\n");
		assert.equal(readFileSync(join(wt.cwd, "x.ts"), "utf8"), "export const x = 1;\n");
		assert.ok(!existsSync(join(repo, "pkg", "x.ts")), "the main checkout does not have the worktree's file");

		const status = await api.call<{ worktree: { uncommitted: string[]; ahead: number } }>(
			"GET",
			`/api/pi/sessions/${session.id}/worktree`,
		);
		assert.deepEqual(status.body.worktree.uncommitted, ["pkg/x.ts"]);
		assert.equal(status.body.worktree.ahead, 0);
		const notInOne = await api.call<{ worktree: null }>("GET", `/api/pi/sessions/${main.id}/worktree`);
		assert.equal(notInOne.body.worktree, null);

		const base = `/api/pi/sessions/${session.id}/worktree`;
		assert.match(await refused(`${base}/merge`, {}, 409, "worktree_dirty"), /pkg\/x\.ts/);
		assert.match(await refused(`${base}/remove`, {}, 409, "worktree_dirty"), /pkg\/x\.ts/);
		assert.ok(existsSync(join(wt.cwd, "x.ts")), "a refused remove leaves the work");
		assert.ok(!existsSync(join(repo, "pkg", "x.ts")), "a refused merge leaves the main checkout");

		const merged = await api.call<{ merged: true; commit: string; committed: string; message: string }>(
			"POST",
			`${base}/merge`,
			{ commit: "Add x" },
		);
		assert.equal(merged.status, 200, JSON.stringify(merged.body));
		assert.equal(readFileSync(join(repo, "pkg", "x.ts"), "utf8"), "export const x = 1;\n", "merged into main");
		assert.equal(git(repo, "rev-parse", "HEAD").trim(), merged.body.commit);
		assert.equal(git(repo, "log", "-1", "--format=%s", merged.body.committed).trim(), "Add x");
		assert.equal(git(repo, "status", "--porcelain").trim(), "", "the main checkout is clean after the merge");
		assert.match(merged.body.message, /Merged feature\/x into main \(1 commit\)/);
		await refused(`${base}/merge`, {}, 409, "nothing_to_merge");

		const removed = await api.call<{ removed: true; branchDeleted: boolean }>("POST", `${base}/remove`, {});
		assert.equal(removed.status, 200, JSON.stringify(removed.body));
		assert.equal(removed.body.branchDeleted, true, "main has all of the branch");
		assert.ok(!existsSync(wt.path));
		assert.doesNotMatch(git(repo, "worktree", "list"), /feature\/x/);
		assert.equal(git(repo, "branch", "--list", "feature/x").trim(), "");
		assert.equal((await listed(session.id))?.branch, undefined, "a removed worktree's session has no branch");
		await refused(`${base}/merge`, {}, 409, "not_a_worktree");
	});

	test("the list reads a checkout's branch again once it changes", async () => {
		const other = makeRepo(join(dir.path, "switching"), { "a.txt": "a\n" });
		const session = await newSession(other);
		assert.equal((await listed(session.id))?.branch, "main");
		git(other, "checkout", "-q", "-b", "topic");
		assert.equal((await listed(session.id))?.branch, "topic");
		git(other, "checkout", "-q", "--detach");
		assert.match((await listed(session.id))?.branch ?? "", /^[0-9a-f]{7}$/);
	});

	test("a base checkout elsewhere or dirty refuses the merge; a conflict aborts it and changes nothing", async () => {
		const wt = await newWorktree({ cwd: repo });
		assert.match(wt.branch, /^pier\/[0-9a-f]{6}$/, "pier names the branch when the user does not");
		const session = await newSession(wt.cwd);
		const base = `/api/pi/sessions/${session.id}/worktree`;
		writeFileSync(join(wt.path, "README.md"), "# Project\nfrom the worktree\n");
		git(wt.path, "commit", "-q", "-am", "worktree edit");

		writeFileSync(join(repo, "README.md"), "# Project\nuncommitted in main\n");
		assert.match(await refused(`${base}/merge`, {}, 409, "base_dirty"), /README\.md/);
		git(repo, "checkout", "-q", "--", "README.md");

		git(repo, "checkout", "-q", "-b", "elsewhere");
		assert.match(await refused(`${base}/merge`, {}, 409, "base_moved"), /on branch elsewhere, not main/);
		git(repo, "checkout", "-q", "main");

		writeFileSync(join(repo, "README.md"), "# Project\nfrom main\n");
		git(repo, "commit", "-q", "-am", "main edit");
		const head = git(repo, "rev-parse", "HEAD").trim();
		const wtHead = git(wt.path, "rev-parse", "HEAD").trim();
		const conflict = await refused(`${base}/merge`, {}, 409, "merge_conflict");
		assert.match(conflict, /conflicts in README\.md/);
		assert.match(conflict, /aborted/);
		assert.equal(git(repo, "rev-parse", "HEAD").trim(), head);
		assert.equal(git(repo, "status", "--porcelain").trim(), "", "no half-merge is left in the main checkout");
		assert.ok(!existsSync(join(repo, ".git", "MERGE_HEAD")));
		assert.equal(readFileSync(join(repo, "README.md"), "utf8"), "# Project\nfrom main\n");
		assert.equal(git(wt.path, "rev-parse", "HEAD").trim(), wtHead);

		// Forced removal drops uncommitted work; the branch, with commits main lacks, is kept.
		writeFileSync(join(wt.path, "scratch.txt"), "draft\n");
		assert.match(await refused(`${base}/remove`, {}, 409, "worktree_dirty"), /scratch\.txt/);
		const removed = await api.call<{ branchDeleted: boolean; message: string }>("POST", `${base}/remove`, {
			force: true,
		});
		assert.equal(removed.status, 200, JSON.stringify(removed.body));
		assert.equal(removed.body.branchDeleted, false);
		assert.match(removed.body.message, new RegExp(`${wt.branch.replace("/", "\\/")} is kept`));
		assert.ok(!existsSync(wt.path));
		assert.equal(git(repo, "rev-parse", "--verify", "--quiet", wt.branch).trim(), wtHead);
	});

	test("a worktree asks for trust again, even when its repository is trusted", async () => {
		const trusted = makeRepo(join(dir.path, "trusted"), { ".pi/settings.json": "{}\n", "a.txt": "a\n" });
		const decided = await api.call("PUT", "/api/pi/projects/trust", { cwd: trusted, trusted: true });
		assert.equal(decided.status, 200, JSON.stringify(decided.body));
		const wt = await newWorktree({ cwd: trusted, branch: "try" });
		const asked = await api.call<Failure>("POST", "/api/pi/sessions", { cwd: wt.cwd });
		assert.equal(asked.status, 409, JSON.stringify(asked.body));
		assert.equal(asked.body.error.code, "trust_required");
		const view = await api.call<{ decided: boolean; trusted: boolean; resources: string[] }>(
			"GET",
			`/api/pi/projects/trust?cwd=${encodeURIComponent(wt.cwd)}`,
		);
		assert.equal(view.body.decided, false);
		assert.equal(view.body.trusted, false);
		assert.deepEqual(view.body.resources, [".pi/settings.json"]);
		// Answering the card starts the session; the repository's own decision is untouched.
		const untrusted = await api.call<{ session: Summary }>("POST", "/api/pi/sessions", { cwd: wt.cwd, approve: false });
		assert.equal(untrusted.status, 201, JSON.stringify(untrusted.body));
		const repoTrust = await api.call<{ trusted: boolean; decidedFor: string }>(
			"GET",
			`/api/pi/projects/trust?cwd=${encodeURIComponent(trusted)}`,
		);
		assert.equal(repoTrust.body.trusted, true);
		assert.equal(repoTrust.body.decidedFor, trusted);
	});

	test("hostile: branch names git refuses, folders outside git or outside pier's worktrees, and no auth", async () => {
		for (const branch of ["../escape", "-x", "a b", "x..y", "end.", "a:b", "HEAD", "x".repeat(101)]) {
			const r = await api.call<Failure>("POST", "/api/pi/worktrees", { cwd: repo, branch });
			assert.ok(r.status === 422 || r.status === 400, `${branch}: ${JSON.stringify(r.body)}`);
			assert.match(r.body.error.message, /branch/, branch);
		}
		assert.match(await refused("/api/pi/worktrees", { cwd: repo, branch: "main" }, 409, "branch_exists"), /main/);
		const plain = join(dir.path, "plain");
		mkdirSync(plain, { recursive: true });
		assert.match(await refused("/api/pi/worktrees", { cwd: plain }, 422, "not_a_repository"), /plain/);
		await refused("/api/pi/worktrees", { cwd: join(dir.path, "nowhere") }, 422, "bad_request");
		assert.doesNotMatch(git(repo, "branch", "--list"), /escape|x\.\.y/);

		// Merge and remove act on the session's own folder, and only on a worktree pier made.
		const inMain = await newSession(repo);
		await refused(`/api/pi/sessions/${inMain.id}/worktree/merge`, {}, 409, "not_a_worktree");
		await refused(`/api/pi/sessions/${inMain.id}/worktree/remove`, { force: true }, 409, "not_a_worktree");
		const own = join(dir.path, "own-worktree");
		git(repo, "worktree", "add", "-q", "-b", "users-own", own);
		const inOwn = await newSession(own);
		assert.equal((await listed(inOwn.id))?.worktree, true, "the list still marks it a worktree");
		await refused(`/api/pi/sessions/${inOwn.id}/worktree/remove`, { force: true }, 409, "not_a_worktree");
		assert.ok(existsSync(own), "a worktree pier did not make is never removed");

		// A hand-edited worktrees.json naming the main checkout, or a folder outside pier's, is ignored.
		const records = join(stateDir, "worktrees.json");
		const rest = existsSync(records)
			? (JSON.parse(readFileSync(records, "utf8")) as { worktrees: unknown[] })
			: { worktrees: [] };
		const forged = [
			{ path: repo, branch: "main", base: "main", repo, createdAt: "" },
			{
				path: join(realpathSync(stateDir), "worktrees", "..", "..", "own-worktree"),
				branch: "users-own",
				base: "main",
				repo,
				createdAt: "",
			},
			{ path: realpathSync(own), branch: "users-own", base: "main", repo, createdAt: "" },
		];
		writeFileSync(records, JSON.stringify({ version: 1, worktrees: [...rest.worktrees, ...forged] }));
		await refused(`/api/pi/sessions/${inMain.id}/worktree/remove`, { force: true }, 409, "not_a_worktree");
		await refused(`/api/pi/sessions/${inOwn.id}/worktree/remove`, { force: true }, 409, "not_a_worktree");
		assert.ok(existsSync(join(repo, "README.md")) && existsSync(own));

		await refused("/api/pi/sessions/no-such-session/worktree/merge", {}, 404, "not_found");
		const stranger = new ApiClient(serve.url);
		assert.equal((await stranger.call("POST", "/api/pi/worktrees", { cwd: repo })).status, 401);
		assert.equal(
			(await stranger.call("POST", `/api/pi/sessions/${inMain.id}/worktree/remove`, { force: true })).status,
			401,
		);
		assert.equal((await stranger.call("GET", `/api/pi/sessions/${inMain.id}/worktree`)).status, 401);
	});
});

/**
 * The Changes view over HTTP, against a real `pier serve` driving the offline demo model's tools in a real git
 * repository and in a plain directory: what each turn changed (write, edit and bash; new, deleted, binary and
 * ignored files), revert of a file and of a turn, a revert refused after the user's own edit, stage and commit
 * (and their clear refusals), a row in the transcript per revert, and the attacks: paths out of the project by
 * `..`, by absolute name and through symbolic links, for reads and writes, another session's id, no credentials.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
	existsSync,
	mkdirSync,
	readFileSync,
	renameSync,
	rmSync,
	symlinkSync,
	unlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { ChangesView, FileChangeView } from "../../src/chamber/changes/wire.js";
import { ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";

type ErrorBody = { error: { code: string; message: string } };

describe("the Changes view over HTTP", () => {
	const dir = tempDir("pier-changes-");
	const agentDir = join(dir.path, "agent");
	const repo = join(dir.path, "repo");
	const plain = join(dir.path, "plain");
	const outside = join(dir.path, "outside");
	const gitEnv = { GIT_CONFIG_GLOBAL: join(dir.path, "gitconfig"), GIT_CONFIG_NOSYSTEM: "1" };
	const gitIn = (cwd: string, ...args: string[]) =>
		execFileSync("git", args, { cwd, env: { ...process.env, ...gitEnv }, encoding: "utf8" });
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		mkdirSync(agentDir, { recursive: true });
		mkdirSync(repo);
		mkdirSync(plain);
		mkdirSync(outside);
		writeFileSync(gitEnv.GIT_CONFIG_GLOBAL, "");
		writeFileSync(join(outside, "secret.txt"), "OUTSIDE\n");
		gitIn(repo, "init", "-q", "-b", "main");
		gitIn(repo, "config", "user.name", "Test User");
		gitIn(repo, "config", "user.email", "test@example.com");
		writeFileSync(join(repo, "keep.txt"), "kept\n");
		writeFileSync(join(repo, ".gitignore"), "ignored/\n");
		gitIn(repo, "add", "-A");
		gitIn(repo, "commit", "-q", "-m", "start");
		symlinkSync(outside, join(repo, "escape"));
		symlinkSync(outside, join(plain, "escape"));
		({ serve, api } = await servedChamber(["--no-examples", "--model", "pier/demo"], {
			agentDir,
			cwd: repo,
			stateDir: join(dir.path, "state"),
			env: gitEnv,
		}));
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const session = async (cwd: string) => {
		const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", { cwd });
		assert.equal(created.status, 201, JSON.stringify(created.body));
		const id = created.body.session.id;
		const stream = api.events(`session=${id}`);
		await stream.waitFor((e) => e.event === "session.snapshot", "the first snapshot");
		/** Sends a prompt and waits for its run to end. */
		const run = async (text: string) => {
			const ends = stream.events.filter((e) => e.event === "agent.end").length;
			const reply = await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text });
			assert.equal(reply.status, 202, JSON.stringify(reply.body));
			await stream.waitFor(
				() => stream.events.filter((e) => e.event === "agent.end").length > ends,
				`the run of ${text.slice(0, 40)} to end`,
			);
		};
		return { id, stream, run };
	};
	const changes = async (id: string) => {
		const reply = await api.call<ChangesView>("GET", `/api/pi/sessions/${id}/changes`);
		assert.equal(reply.status, 200, JSON.stringify(reply.body));
		return reply.body;
	};
	const revert = (id: string, body: { path?: string; turn?: number }) =>
		api.call<ErrorBody & { reverted: string[] }>("POST", `/api/pi/sessions/${id}/changes/revert`, body);
	const byPath = (files: FileChangeView[], path: string) => {
		const file = files.find((f) => f.path === path);
		assert.ok(file, `${path} in ${files.map((f) => f.path).join(", ")}`);
		return file;
	};
	const changeRows = async (id: string) => {
		const reply = await api.call<{ rows: { kind: string; text?: string }[] }>("GET", `/api/pi/sessions/${id}`);
		return reply.body.rows.filter((r) => r.kind === "changes").map((r) => r.text ?? "");
	};

	test("in git: each turn's files (write, bash, edit), revert of a file and of a turn, a user's edit refused, stage and commit", async () => {
		const head = gitIn(repo, "rev-parse", "HEAD").trim();
		const { id, stream, run } = await session(repo);
		await run('write {"path":"app.ts","content":"export const a = 1;\\nexport const b = 2;\\n"}');
		await run(
			`bash {"command":"printf 'new' > from-bash.txt && rm keep.txt && mkdir -p ignored && echo no > ignored/skip.txt && printf 'a\\\\000b' > blob.bin"}`,
		);
		await run('edit {"path":"app.ts","edits":[{"oldText":"export const b = 2;","newText":"export const b = 3;"}]}');
		assert.equal(readFileSync(join(repo, "app.ts"), "utf8"), "export const a = 1;\nexport const b = 3;\n");

		const view = await changes(id);
		assert.equal(view.mode, "git");
		assert.equal(view.git?.branch, "main");
		assert.deepEqual(
			view.turns.map((t) => t.turn),
			[3, 2, 1],
			"newest first, one per run",
		);
		assert.deepEqual(
			view.files.map((f) => [f.path, f.status]),
			[
				["app.ts", "added"],
				["blob.bin", "added"],
				["from-bash.txt", "added"],
				["keep.txt", "deleted"],
			],
			"the session's files; .gitignore'd ignored/skip.txt is not one",
		);
		assert.equal(byPath(view.files, "blob.bin").binary, true);
		assert.equal(byPath(view.files, "blob.bin").diff, undefined);
		assert.match(
			byPath(view.files, "app.ts").diff ?? "",
			/^--- \/dev\/null\n\+\+\+ b\/app\.ts\n@@ -0,0 \+1,2 @@\n\+export const a = 1;\n\+export const b = 3;\n$/,
		);
		const edit = byPath(view.turns[0]!.files, "app.ts");
		assert.equal(edit.status, "modified");
		assert.match(edit.diff ?? "", /-export const b = 2;\n\+export const b = 3;/);
		assert.equal([edit.added, edit.removed].join(), "1,1");
		assert.match(view.turns[2]!.prompt, /^write /);
		// The user's index and HEAD are untouched: the snapshots go through pier's own index.
		assert.equal(gitIn(repo, "rev-parse", "HEAD").trim(), head);
		assert.equal(gitIn(repo, "diff", "--cached", "--name-only"), "");

		// One file of a turn: app.ts as the edit found it.
		const one = await revert(id, { path: "app.ts", turn: 3 });
		assert.equal(one.status, 200, JSON.stringify(one.body));
		assert.equal(readFileSync(join(repo, "app.ts"), "utf8"), "export const a = 1;\nexport const b = 2;\n");
		await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { kind: string }).kind === "changes",
			"the revert's row",
		);
		// A whole turn: what bash did is undone, the deleted file back.
		const turn = await revert(id, { turn: 2 });
		assert.equal(turn.status, 200, JSON.stringify(turn.body));
		assert.deepEqual(turn.body.reverted, ["blob.bin", "from-bash.txt", "keep.txt"]);
		assert.equal(existsSync(join(repo, "from-bash.txt")), false);
		assert.equal(existsSync(join(repo, "blob.bin")), false);
		assert.equal(readFileSync(join(repo, "keep.txt"), "utf8"), "kept\n");
		assert.equal(existsSync(join(repo, "ignored", "skip.txt")), true, "an ignored file is not the view's to touch");
		const again = await revert(id, { turn: 2 });
		assert.equal(again.status, 409);
		assert.equal(again.body.error.code, "already_reverted");
		// Each revert left a row that a reload shows.
		const rows = await changeRows(id);
		assert.equal(rows.length, 2);
		assert.match(rows[0]!, /Reverted app\.ts \(turn 3\)/);
		assert.match(rows[1]!, /Reverted turn 2: blob\.bin, from-bash\.txt, keep\.txt/);

		// The user edits app.ts: reverting the turn that wrote it refuses, names it, and keeps the edit.
		writeFileSync(join(repo, "app.ts"), "// mine\n");
		const refused = await revert(id, { turn: 1 });
		assert.equal(refused.status, 409);
		assert.equal(refused.body.error.code, "changed_since");
		assert.match(refused.body.error.message, /app\.ts changed since/);
		assert.equal(readFileSync(join(repo, "app.ts"), "utf8"), "// mine\n");
		assert.equal(byPath((await changes(id)).files, "app.ts").changedSince, true);

		// Stage and commit from the view.
		const nothing = await api.call<ErrorBody>("POST", `/api/pi/sessions/${id}/changes/commit`, { message: "x" });
		assert.equal(nothing.status, 409);
		assert.equal(nothing.body.error.code, "nothing_staged");
		const staged = await api.call("POST", `/api/pi/sessions/${id}/changes/stage`, { paths: ["app.ts"] });
		assert.equal(staged.status, 200, JSON.stringify(staged.body));
		assert.deepEqual((await changes(id)).git?.staged, ["app.ts"]);
		// Without an identity, git's refusal is said plainly, and nothing is lost.
		gitIn(repo, "config", "user.useConfigOnly", "true");
		gitIn(repo, "config", "--unset", "user.email");
		const noIdentity = await api.call<ErrorBody>("POST", `/api/pi/sessions/${id}/changes/commit`, {
			message: "Add app",
		});
		assert.equal(noIdentity.status, 422, JSON.stringify(noIdentity.body));
		assert.equal(noIdentity.body.error.code, "no_identity");
		assert.match(noIdentity.body.error.message, /git config user\.email/);
		gitIn(repo, "config", "user.email", "test@example.com");
		const committed = await api.call<{ commit: string; summary: string }>(
			"POST",
			`/api/pi/sessions/${id}/changes/commit`,
			{ message: "Add app\n\nfrom the Changes view" },
		);
		assert.equal(committed.status, 201, JSON.stringify(committed.body));
		assert.equal(committed.body.summary, "Add app");
		assert.equal(gitIn(repo, "rev-parse", "HEAD").trim(), committed.body.commit);
		assert.equal(gitIn(repo, "show", "HEAD:app.ts"), "// mine\n");

		// Limits, just past each: a side over 1 MiB is listed without its diff; stage takes at most 1,000 paths.
		await run(`bash {"command":"head -c ${1024 * 1024 + 1} /dev/zero | tr '\\\\000' a > big.txt"}`);
		const big = byPath((await changes(id)).turns[0]!.files, "big.txt");
		assert.equal(big.diff, undefined);
		assert.match(big.note ?? "", /larger than 1048576 bytes/);
		const many = Array.from({ length: 1001 }, (_, i) => `f${i}`);
		const tooMany = await api.call<ErrorBody>("POST", `/api/pi/sessions/${id}/changes/stage`, { paths: many });
		assert.equal(tooMany.status, 400);
		assert.match(tooMany.body.error.message, /paths/);
		stream.close();
	});

	test("outside git: snapshots before each write and edit; revert of a file, then of a turn", async () => {
		const { id, stream, run } = await session(plain);
		await run('write {"path":"notes/a.txt","content":"one\\ntwo\\n"}');
		await run('edit {"path":"notes/a.txt","edits":[{"oldText":"two","newText":"TWO"}]}');
		// A write through a link out of the project is not the project's change.
		await run('write {"path":"escape/planted.txt","content":"x\\n"}');
		const view = await changes(id);
		assert.equal(view.mode, "snapshots");
		assert.equal(view.git, undefined);
		assert.deepEqual(
			view.files.map((f) => [f.path, f.status]),
			[["notes/a.txt", "added"]],
		);
		assert.deepEqual(
			view.turns.map((t) => t.turn),
			[2, 1],
		);
		assert.match(byPath(view.turns[0]!.files, "notes/a.txt").diff ?? "", /-two\n\+TWO/);
		const one = await revert(id, { path: "notes/a.txt", turn: 2 });
		assert.equal(one.status, 200, JSON.stringify(one.body));
		assert.equal(readFileSync(join(plain, "notes/a.txt"), "utf8"), "one\ntwo\n");
		const whole = await revert(id, { turn: 1 });
		assert.equal(whole.status, 200, JSON.stringify(whole.body));
		assert.equal(existsSync(join(plain, "notes/a.txt")), false);
		const stage = await api.call<ErrorBody>("POST", `/api/pi/sessions/${id}/changes/stage`, { paths: ["x"] });
		assert.equal(stage.status, 409);
		assert.equal(stage.body.error.code, "not_git");
		stream.close();
	});

	test("hostile: paths out of the project are refused for reads and writes, and a revert never writes outside", async () => {
		const { id, stream, run } = await session(plain);
		for (const path of ["escape/secret.txt", "../outside/secret.txt", join(outside, "secret.txt")]) {
			const read = await api.call<ErrorBody>(
				"GET",
				`/api/pi/sessions/${id}/changes/file?path=${encodeURIComponent(path)}`,
			);
			assert.equal(read.status, 403, `${path}: ${JSON.stringify(read.body)}`);
			assert.equal(read.body.error.code, "outside_project");
			const write = await revert(id, { path });
			assert.equal(write.status, 403, `${path}: ${JSON.stringify(write.body)}`);
		}
		const { id: gitId, stream: gitStream } = await session(repo);
		const stage = await api.call<ErrorBody>("POST", `/api/pi/sessions/${gitId}/changes/stage`, {
			paths: ["escape/secret.txt"],
		});
		assert.equal(stage.status, 403, JSON.stringify(stage.body));
		assert.equal(gitIn(repo, "diff", "--cached", "--name-only"), "");
		gitStream.close();

		// The agent writes w.txt and sub/f.txt; the user swaps each for a link out of the project holding the same
		// content. A revert must neither delete nor overwrite what the links point at.
		await run('write {"path":"w.txt","content":"agent\\n"}');
		await run('write {"path":"sub/f.txt","content":"agent\\n"}');
		writeFileSync(join(outside, "w.txt"), "agent\n");
		unlinkSync(join(plain, "w.txt"));
		symlinkSync(join(outside, "w.txt"), join(plain, "w.txt"));
		mkdirSync(join(outside, "sub"));
		writeFileSync(join(outside, "sub", "f.txt"), "agent\n");
		renameSync(join(plain, "sub"), join(dir.path, "sub-moved"));
		symlinkSync(join(outside, "sub"), join(plain, "sub"));
		const viaFile = await revert(id, { path: "w.txt" });
		assert.equal(viaFile.status, 409, JSON.stringify(viaFile.body));
		assert.equal(viaFile.body.error.code, "changed_since");
		const viaDir = await revert(id, { path: "sub/f.txt" });
		assert.equal(viaDir.status, 403, JSON.stringify(viaDir.body));
		const file = await api.call<ErrorBody>("GET", `/api/pi/sessions/${id}/changes/file?path=sub%2Ff.txt`);
		assert.equal(file.status, 403, "the diff of a file now reached through a link out of the project is refused");
		assert.equal(readFileSync(join(outside, "w.txt"), "utf8"), "agent\n");
		assert.equal(readFileSync(join(outside, "sub", "f.txt"), "utf8"), "agent\n");
		assert.equal(readFileSync(join(outside, "secret.txt"), "utf8"), "OUTSIDE\n");
		rmSync(join(plain, "sub"));

		// Another session's id, and no credentials.
		const unknown = await revert("no-such-session", { path: "w.txt" });
		assert.equal(unknown.status, 404);
		const stranger = new ApiClient(serve.url);
		assert.equal((await stranger.call("GET", `/api/pi/sessions/${id}/changes`)).status, 401);
		stream.close();
	});
});

/**
 * Finding 15 of issue 27: a session lease naming a live but unrelated pid (a reused pid, or a lease written by
 * hand) locked the session until the lease file was deleted by hand, and the error did not say so.
 * Guarantee: a lease counts only while its pid runs the process that took it (its start time, recorded in the
 * lease, matches /proc; a lease without one counts only for a pier command line); any other is stale and taken
 * over. A lease held by a live pier process is still respected, and its error says how to break a stale lease.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { processStart } from "../../src/agent/process-start.js";
import { type ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";

describe("hostile session leases: a live unrelated pid does not lock a session", () => {
	const dir = tempDir("pier-hostile-lease-");
	const agentDir = join(dir.path, "agent");
	let sleeper: ChildProcess;
	let file: string;

	before(async () => {
		sleeper = spawn("sleep", ["600"], { stdio: "ignore" });
		await new Promise((done) => sleeper.once("spawn", done));
		const first = await runPier(["run", "--session-dir", join(dir.path, "own"), "hello"], { agentDir, cwd: dir.path });
		assert.equal(first.code, 0, first.stderr);
		file = join(dir.path, "own", readdirSync(join(dir.path, "own")).find((n) => n.endsWith(".jsonl"))!);
	});

	after(() => {
		sleeper?.kill("SIGKILL");
		dir[Symbol.dispose]();
	});

	const lease = (fields: Record<string, unknown>) =>
		writeFileSync(
			`${file}.lease`,
			JSON.stringify({ pid: sleeper.pid, host: hostname(), holder: "pier serve", since: "earlier", ...fields }),
		);
	const runAgain = async (text: string) => {
		const again = await runPier(["run", "--session", file, text], { agentDir, cwd: dir.path });
		assert.equal(again.code, 0, again.stderr);
		assert.ok(readFileSync(file, "utf8").includes(text), `"${text}" reached the session`);
		assert.ok(!existsSync(`${file}.lease`), "the lease is released when the run ends");
	};

	test("a lease without a start time naming a live `sleep` is stale: the session opens", async () => {
		assert.equal(sleeper.exitCode, null, "the unrelated process runs");
		lease({});
		await runAgain("past a sleep's lease");
	});

	test("a lease whose start time is not the live pid's is stale: the session opens", async () => {
		const real = processStart(sleeper.pid!);
		assert.ok(real, "this host tells start times (/proc)");
		const [boot, ticks] = real.split(":");
		lease({ started: `${boot}:${Number(ticks) + 1}` });
		await runAgain("past a reused pid");
		lease({ started: `00000000-0000-0000-0000-000000000000:${ticks}` });
		await runAgain("past a lease from another boot");
	});

	describe("a lease held by a live pier process", () => {
		let serve: Serve;
		let api: ApiClient;
		before(async () => {
			({ serve, api } = await servedChamber(["--no-examples"], {
				agentDir,
				cwd: dir.path,
				stateDir: join(dir.path, "state"),
			}));
		});
		after(async () => {
			await serve?.stop();
		});

		test("is still respected, and the refusal says how to break a stale lease", async () => {
			const { id, stream } = await api.newSession();
			await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" });
			await stream.waitFor((e) => e.event === "agent.end", "the first answer");
			stream.close();
			const sessions = join(agentDir, "sessions");
			const name = readdirSync(sessions, { recursive: true, encoding: "utf8" }).find((n) => n.endsWith(`_${id}.jsonl`));
			assert.ok(name);
			const held = join(sessions, name);
			const recorded = JSON.parse(readFileSync(`${held}.lease`, "utf8")) as { pid: number; started?: string };
			assert.equal(recorded.pid, serve.process.pid);
			assert.equal(recorded.started, processStart(serve.process.pid!), "the lease records its holder's start");

			const second = await runPier(["run", "--session", held, "me too"], { agentDir, cwd: dir.path });
			assert.equal(second.code, 1, second.stderr);
			assert.match(second.stderr, /is in use by pier serve \(pid \d+ on .+, since .+\)/);
			assert.ok(
				second.stderr.includes(`If no pier process holds it any more, delete ${held}.lease to break the lease`),
				second.stderr,
			);
			assert.ok(!readFileSync(held, "utf8").includes("me too"), "nothing was written");

			// The same lease as an older pier wrote it, with no start time: the pid's command line is pier's.
			const { started: _, ...older } = recorded;
			writeFileSync(`${held}.lease`, JSON.stringify(older));
			const third = await runPier(["run", "--session", held, "me three"], { agentDir, cwd: dir.path });
			assert.equal(third.code, 1, third.stderr);
			assert.match(third.stderr, /is in use by pier serve/);
			assert.ok(!readFileSync(held, "utf8").includes("me three"), "nothing was written");
		});
	});
});

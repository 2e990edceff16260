/**
 * `npm run soak` (not part of `npm test`): the daemon under a working day's load, compressed.
 *
 * A daemon process (soak-daemon.ts) runs SESSIONS chamber sessions, each doing tool-calling turns against
 * the offline demo model back to back (`bash {"command":"echo …"}`: the model calls pi's bash tool, then
 * quotes its output) for SECONDS, while CLIENTS SSE clients stream the sessions' events. Then:
 * - memory: what the daemon keeps (heap and external memory after a full collection). While the sessions run it
 *   grows by at most what pi's own history costs for the entries written after the first minute (an open pi
 *   session keeps every entry and agent message in memory, by design); once the clients have gone and the
 *   daemon has closed the idle sessions, it is within 10% of what it kept after the first minute. Its resident
 *   set (which also counts garbage V8 has not collected yet) is reported beside it;
 * - rows: every client received each of its session's transcript rows exactly once (checked against the
 *   session's rows read back over HTTP at the end);
 * - delivery: publish → parsed by a client, p99 under 50 ms (the daemon stamps each publish with the
 *   monotonic clock the clients read too).
 *
 * `PIER_SOAK_SECONDS` (300), `PIER_SOAK_SESSIONS` (20), `PIER_SOAK_CLIENTS` (50); `--json` prints one JSON
 * line with every figure. Exits 1 when a check fails. `PIER_SOAK_NODE_ARGS` passes node flags to the daemon.
 * `PIER_SOAK_HEAP=1` writes a heap snapshot after the first minute and at the end, each with every session held
 * between turns, and reports which owners the growth between them belongs to (heap-growth.ts).
 */
import { type Serializable, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { SessionView } from "../src/chamber/wire.js";
import { median, quantile } from "./figures.js";
import { HeapProbe, growthByOwner } from "./heap-growth.js";
import { Client, type Daemon } from "./soak-client.js";
import { httpCall } from "./http.js";

const SECONDS = Number(process.env.PIER_SOAK_SECONDS ?? 300);
const SESSIONS = Number(process.env.PIER_SOAK_SESSIONS ?? 20);
const CLIENTS = Number(process.env.PIER_SOAK_CLIENTS ?? 50);
const MEMORY_TOLERANCE = 0.1;
/**
 * What an open pi session keeps per entry, at most: its SessionManager entry and the agent's message, measured
 * in-process at about 1,000 bytes for this soak's turns (pi alone, no chamber). The daemon growing faster than
 * this while its sessions run is memory of its own.
 */
const HISTORY_BYTES_PER_ENTRY = 1024;
/** How long the daemon may take to see the clients gone and close every session. */
const CLOSE_WAIT_MS = 10_000;
const DELIVERY_P99_MS = 50;
const TURN_TIMEOUT_MS = 60_000;
const HEAP = process.env.PIER_SOAK_HEAP === "1";
const json = process.argv.includes("--json");
const say = (text: string) => void (json ? process.stderr : process.stdout).write(`${text}\n`);

async function call<T>(d: Daemon, method: string, path: string, body?: unknown): Promise<T> {
	return JSON.parse(await httpCall(d.port, d.token, method, `/api/pi${path}`, body)) as T;
}

function startDaemon(
	root: string,
	timesFile: string,
): Promise<{
	daemon: Daemon;
	measure: () => Promise<MemoryBreakdown>;
	heap: (path: string) => Promise<void>;
	closeIdle: () => Promise<string[]>;
	stop: () => Promise<void>;
}> {
	const script = join(dirname(fileURLToPath(import.meta.url)), "soak-daemon.js");
	// PIER_SOAK_NODE_ARGS: node flags for the daemon when looking into it (`--heapsnapshot-signal=SIGUSR2`).
	const nodeArgs = process.env.PIER_SOAK_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
	const child = spawn(process.execPath, ["--expose-gc", ...nodeArgs, script, root, timesFile], {
		stdio: ["ignore", "pipe", "inherit", "ipc"],
	});
	const exited = new Promise<void>((done) => child.once("exit", () => done()));
	// A minute's measurement and a heap snapshot may be asked for at once: each waits for its own kind of reply.
	const ask = <T>(message: Serializable, replyKey: string) =>
		new Promise<T>((done) => {
			const onReply = (reply: unknown) => {
				if (typeof reply !== "object" || reply === null || !(replyKey in reply)) return;
				child.off("message", onReply);
				done(reply as T);
			};
			child.on("message", onReply);
			child.send(message);
		});
	return new Promise((resolve, reject) => {
		child.once("exit", (code) => reject(new Error(`the soak daemon exited (${code}) before listening`)));
		createInterface({ input: child.stdout! }).once("line", (line) =>
			resolve({
				daemon: JSON.parse(line) as Daemon,
				measure: () => ask<Parameters<typeof breakdownOf>[0]>("measure", "collected").then(breakdownOf),
				heap: (path) => ask({ heap: path }, "heapWritten").then(() => undefined),
				closeIdle: () => ask<{ closed: string[] }>("closeIdle", "closed").then((reply) => reply.closed),
				stop: async () => {
					child.kill("SIGTERM");
					await exited;
				},
			}),
		);
	});
}

/**
 * The daemon's memory right after a full collection, in MiB: what it keeps (live heap + external), the heap V8
 * has reserved around it, and the rest of the resident set (code, stacks, malloc arenas, native buffers), so a
 * growing resident set can be told apart: V8 sizing its heap, or memory outside it.
 */
interface MemoryBreakdown {
	kept: number;
	heapUsed: number;
	heapReserved: number;
	external: number;
	outsideHeap: number;
	rss: number;
	/** What the sessions' replay windows hold: encoded frames (MiB, as UTF-8) and how many events. */
	replayMiB: number;
	replayEvents: number;
}

function breakdownOf(m: NodeJS.MemoryUsage & { replay: { events: number; bytes: number } }): MemoryBreakdown {
	const mib = (bytes: number) => bytes / 2 ** 20;
	return {
		kept: mib(m.heapUsed + m.external),
		heapUsed: round(mib(m.heapUsed)),
		heapReserved: round(mib(m.heapTotal)),
		external: round(mib(m.external)),
		outsideHeap: round(mib(m.rss - m.heapTotal - m.external)),
		rss: round(mib(m.rss)),
		replayMiB: round(mib(m.replay.bytes)),
		replayEvents: m.replay.events,
	};
}

function residentMiB(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, "utf8");
	return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function soak(): Promise<boolean> {
	const root = mkdtempSync(join(tmpdir(), "pier-soak-"));
	const timesFile = join(root, "publish-times");
	const { daemon, measure, heap, closeIdle, stop } = await startDaemon(root, timesFile);
	// The heap probe keeps its snapshots outside the soak's directory, which goes at the end.
	const probe = HEAP ? new HeapProbe(mkdtempSync(join(tmpdir(), "pier-soak-heap-")), SESSIONS, heap) : undefined;
	const clients: Client[] = [];
	try {
		say(`pier soak · ${SESSIONS} sessions · ${CLIENTS} SSE clients · ${SECONDS} s · daemon pid ${daemon.pid}`);
		const before = await measure();
		const sessions: string[] = [];
		for (let i = 0; i < SESSIONS; i++)
			sessions.push((await call<{ session: { id: string } }>(daemon, "POST", "/sessions", {})).session.id);
		for (let c = 0; c < CLIENTS; c++) {
			const id = sessions[c % SESSIONS]!;
			const { seq } = await call<SessionView>(daemon, "GET", `/sessions/${id}`);
			const client = new Client(daemon, id, seq);
			await client.connect();
			clients.push(client);
		}

		const memory: { t: number; mib: number }[] = [];
		const started = Date.now();
		const sampler = setInterval(
			() => memory.push({ t: (Date.now() - started) / 1000, mib: residentMiB(daemon.pid) }),
			1000,
		);
		const deadline = started + SECONDS * 1000;
		const warmMark = Math.min(60, SECONDS / 5);
		// What the daemon keeps, measured twice (each a full collection, a pause): after the first minute, and as
		// the last turns end.
		// Every session's rows as its first client has them: the entries written so far (one row each).
		const rowsSeen = () => sessions.reduce((n, _, s) => n + clients[s]!.rows.size, 0);
		let rowsAtWarm = 0;
		const atWarm = new Promise<MemoryBreakdown>((done) =>
			setTimeout(() => {
				rowsAtWarm = rowsSeen();
				void measure().then(done);
			}, warmMark * 1000),
		);
		setTimeout(() => probe?.hold("first-minute"), warmMark * 1000);
		// And every further minute, so growth that levels off (caches filling) can be told from growth that does not.
		const kept: { t: number; kept: number; replay: number }[] = [];
		const sample = (t: number, b: MemoryBreakdown) => kept.push({ t, kept: round(b.kept), replay: b.replayMiB });
		void atWarm.then((b) => sample(warmMark, b));
		const minutes = setInterval(() => {
			const t = Math.round((Date.now() - started) / 1000);
			// The first minute is the warm mark's own measurement; the last is the end's.
			if (t <= warmMark + 5 || t >= SECONDS - 5) return;
			void measure().then((b) => sample(t, b));
		}, 60_000);
		let turns = 0;
		let stalls = 0;
		await Promise.all(
			sessions.map(async (id, s) => {
				// The session's first client tells when a turn is over.
				const watcher = clients[s]!;
				for (let n = 0; Date.now() < deadline; n++) {
					await probe?.beforeTurn(s);
					const ended = new Promise<boolean>((done) => {
						const timer = setTimeout(() => done(false), TURN_TIMEOUT_MS);
						watcher.onAgentEnd = () => {
							clearTimeout(timer);
							done(true);
						};
					});
					await call(daemon, "POST", `/sessions/${id}/prompt`, { text: `bash {"command":"echo soak ${s} ${n}"}` });
					if (await ended) turns++;
					else stalls++;
				}
				await probe?.done(s);
			}),
		);
		await probe?.snapshot("end");
		clearInterval(sampler);
		clearInterval(minutes);
		const warmBreakdown = await atWarm;
		const endBreakdown = await measure();
		const keptWarm = warmBreakdown.kept;
		const keptEnd = endBreakdown.kept;
		// Let the last frames arrive.
		await new Promise((done) => setTimeout(done, 2000));

		// Rows: each client against its session's rows as the daemon reports them now.
		let lost = 0;
		let duplicated = 0;
		let unknown = 0;
		const rowsOf = new Map<string, string[]>();
		for (const id of sessions)
			rowsOf.set(
				id,
				(await call<SessionView>(daemon, "GET", `/sessions/${id}`)).rows.map((r) => r.id),
			);
		for (const client of clients) {
			const expected = rowsOf.get(client.sessionId)!;
			for (const id of expected) if (!client.rows.has(id)) lost++;
			for (const [id, count] of client.rows) {
				if (count > 1) duplicated += count - 1;
				if (!expected.includes(id)) unknown++;
			}
		}

		// Delivery: publish → parsed, over every numbered frame every client received.
		const published = new Map<string, number>();
		for (const line of readFileSync(timesFile, "utf8").split("\n")) {
			const [session, seq, at] = line.split(" ");
			if (at) published.set(`${session} ${seq}`, Number(at));
		}
		const latencies: number[] = [];
		let unmatched = 0;
		for (const client of clients) {
			for (const { seq, at } of client.arrivals) {
				const sent = published.get(`${client.sessionId} ${seq}`);
				if (sent === undefined) unmatched++;
				else latencies.push((at - sent) / 1e6);
			}
		}

		// The end of the working day: the clients go, and the daemon closes the sessions nobody uses.
		for (const client of clients) client.close();
		const closedSessions = new Set<string>();
		for (const waitUntil = Date.now() + CLOSE_WAIT_MS; closedSessions.size < SESSIONS && Date.now() < waitUntil; ) {
			for (const id of await closeIdle()) closedSessions.add(id);
			if (closedSessions.size < SESSIONS) await new Promise((done) => setTimeout(done, 200));
		}
		const closedBreakdown = await measure();
		const keptClosed = closedBreakdown.kept;
		const closedGrowth = (keptClosed - keptWarm) / keptWarm;
		const rowsEnd = [...rowsOf.values()].reduce((n, r) => n + r.length, 0);
		const entriesAfterWarm = rowsEnd - rowsAtWarm;
		const bytesPerEntry = ((keptEnd - keptWarm) * 2 ** 20) / Math.max(1, entriesAfterWarm);

		const warm = median(memory.filter((m) => Math.abs(m.t - warmMark) <= 5).map((m) => m.mib));
		const end = median(memory.filter((m) => m.t >= SECONDS - 10).map((m) => m.mib));
		const growth = (keptEnd - keptWarm) / keptWarm;
		const rssGrowth = (end - warm) / warm;
		const report = {
			id: "soak",
			seconds: SECONDS,
			sessions: SESSIONS,
			clients: CLIENTS,
			turns,
			stalls,
			reconnects: clients.reduce((n, c) => n + c.reconnects, 0),
			memory: {
				keptAfterFirstMinuteMiB: round(keptWarm),
				keptEndMiB: round(keptEnd),
				growth: round(growth, 3),
				keptBeforeSessionsMiB: round(before.kept),
				entriesAfterFirstMinute: entriesAfterWarm,
				growthBytesPerEntry: Math.round(bytesPerEntry),
				sessionsClosed: closedSessions.size,
				keptSessionsClosedMiB: round(keptClosed),
				sessionsClosedGrowth: round(closedGrowth, 3),
				residentAfterFirstMinuteMiB: round(warm),
				residentEndMiB: round(end),
				residentGrowth: round(rssGrowth, 3),
				residentPeakMiB: round(Math.max(...memory.map((m) => m.mib))),
				keptSeries: [
					...kept.filter((k) => k.t > warmMark).sort((a, b) => a.t - b.t),
					{ t: SECONDS, kept: round(keptEnd), replay: endBreakdown.replayMiB },
				],
				// The windows are bounded (1,024 events or 8 MiB each): growth beyond theirs is the sessions' own.
				keptLessReplayGrowth: round(
					(keptEnd - endBreakdown.replayMiB - (keptWarm - warmBreakdown.replayMiB)) /
						(keptWarm - warmBreakdown.replayMiB),
					3,
				),
				afterCollection: {
					firstMinute: { ...warmBreakdown, kept: round(keptWarm) },
					end: { ...endBreakdown, kept: round(keptEnd) },
					sessionsClosed: { ...closedBreakdown, kept: round(keptClosed) },
				},
			},
			rows: { checked: rowsEnd, lost, duplicated, unknown },
			delivery: {
				frames: latencies.length,
				unmatched,
				p50Ms: round(quantile(latencies, 0.5), 2),
				p99Ms: round(quantile(latencies, 0.99), 2),
				maxMs: round(
					latencies.reduce((a, b) => Math.max(a, b), 0),
					2,
				),
			},
		};
		const checks = [
			[
				`memory grew by at most pi's own history while the sessions ran (≤ ${HISTORY_BYTES_PER_ENTRY} bytes per entry)`,
				entriesAfterWarm > 0 && bytesPerEntry <= HISTORY_BYTES_PER_ENTRY,
			],
			[
				`memory within ${MEMORY_TOLERANCE * 100}% of the first minute's once every session is closed`,
				closedSessions.size === SESSIONS && closedGrowth <= MEMORY_TOLERANCE,
			],
			["no row lost, duplicated or unknown", lost === 0 && duplicated === 0 && unknown === 0],
			[`delivery p99 < ${DELIVERY_P99_MS} ms`, report.delivery.p99Ms < DELIVERY_P99_MS],
			["every turn ended", stalls === 0 && turns > 0],
		] as const;
		say(`turns ${turns} (stalls ${stalls}) · reconnects ${report.reconnects}`);
		say(
			`memory kept (heap + external after a full collection): ${round(keptWarm)} MiB at ${warmMark} s → ${round(keptEnd)} MiB at the end (${(growth * 100).toFixed(1)}%)`,
		);
		say(
			`while running: ${entriesAfterWarm} entries written after the first minute, ${Math.round(bytesPerEntry)} bytes kept per entry`,
		);
		say(
			`sessions closed: ${closedSessions.size} of ${SESSIONS} · memory kept ${round(keptClosed)} MiB (${(closedGrowth * 100).toFixed(1)}% against the first minute; ${round(before.kept)} MiB before the first session)`,
		);
		say(
			`resident set: ${round(warm)} MiB at ${warmMark} s → ${round(end)} MiB at the end (${(rssGrowth * 100).toFixed(1)}%), peak ${report.memory.residentPeakMiB} MiB`,
		);
		say(
			`memory kept, minute by minute: ${[{ t: warmMark, kept: round(keptWarm), replay: warmBreakdown.replayMiB }, ...report.memory.keptSeries].map((k) => `${k.kept} MiB at ${k.t} s (replay windows ${k.replay})`).join(" · ")}`,
		);
		say(
			`memory kept less the replay windows' frames: ${round(keptWarm - warmBreakdown.replayMiB)} → ${round(keptEnd - endBreakdown.replayMiB)} MiB (${(report.memory.keptLessReplayGrowth * 100).toFixed(1)}%); the windows hold ${warmBreakdown.replayEvents} → ${endBreakdown.replayEvents} events`,
		);
		const parts = (b: MemoryBreakdown) =>
			`rss ${b.rss} = heap ${b.heapReserved} (${b.heapUsed} live) + external ${b.external} + outside ${b.outsideHeap}`;
		say(`after a full collection, first minute: ${parts(warmBreakdown)} MiB`);
		say(`after a full collection, at the end:   ${parts(endBreakdown)} MiB`);
		say(`after a full collection, all closed:   ${parts(closedBreakdown)} MiB`);
		say(
			`rows: ${report.rows.checked} checked × their clients · lost ${lost} · duplicated ${duplicated} · unknown ${unknown}`,
		);
		say(
			`delivery: ${latencies.length} frames · p50 ${report.delivery.p50Ms} ms · p99 ${report.delivery.p99Ms} ms · max ${report.delivery.maxMs} ms`,
		);
		if (probe) {
			const [first, last] = probe.files as [string, string];
			const owners = growthByOwner(first, last);
			Object.assign(report.memory, { growthByOwner: owners, heapSnapshots: probe.files });
			say(`heap growth by owner, first minute → end (MiB): ${owners.map((o) => `${o.owner} ${o.mib}`).join(" · ")}`);
			say(`heap snapshots: ${probe.files.join(" ")}`);
		}
		for (const [what, ok] of checks) say(`${ok ? "ok  " : "FAIL"} ${what}`);
		if (json) process.stdout.write(`${JSON.stringify({ ...report, checks: Object.fromEntries(checks) })}\n`);
		return checks.every(([, ok]) => ok);
	} finally {
		for (const client of clients) client.close();
		await stop();
		rmSync(root, { recursive: true, force: true });
	}
}

function round(x: number, digits = 1): number {
	const f = 10 ** digits;
	return Math.round(x * f) / f;
}

process.exit((await soak()) ? 0 : 1);

/**
 * The chamber (`pier serve`): SSE delivery latency (an extension's entry → a client has parsed the event) for
 * 1 and 100 clients beside a raw loopback HTTP stream of the same frame, and hydration of a 10,000-entry
 * session over HTTP beside pi's own parse of the same file.
 *
 * Everything runs in this process on 127.0.0.1 with a temporary pi agent dir. The SSE clients are real
 * node:http connections in one worker thread, so their reading and JSON parsing does not steal the server's
 * event loop (a browser would not either); both threads read the same monotonic clock (process.hrtime).
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer, get, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { sessionDirFor } from "../src/agent/paths.js";
import { encodeFrame } from "../src/chamber/events/channel.js";
import { startChamber } from "../src/chamber/server.js";
import { EVENTS_VERSION, type SessionView } from "../src/chamber/wire.js";
import { measure, printRows, type Stats, stats } from "./harness.js";

const HOST = "127.0.0.1";
const HYDRATION_ENTRIES = 10_000;

/**
 * N SSE clients on one worker thread. Each parses every `data:` line as JSON; the k-th sample is the
 * `transcript.row` whose data carries `bench-<k>`. When every client has it, the worker posts the
 * receive times (hrtime, ns) to the main thread.
 */
const CLIENTS = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const { port, path, headers, clients } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const pending = new Map();
let connected = 0;
const fail = (message) => parentPort.postMessage({ type: "error", message });
for (let c = 0; c < clients; c++) {
	const req = http.get({ host: "${HOST}", port, path, headers, agent }, (res) => {
		if (res.statusCode !== 200) return fail("status " + res.statusCode);
		res.setEncoding("utf8");
		let buffer = "";
		res.on("data", (chunk) => {
			buffer += chunk;
			let end = buffer.indexOf("\\n\\n");
			while (end >= 0) {
				const frame = buffer.slice(0, end);
				buffer = buffer.slice(end + 2);
				end = buffer.indexOf("\\n\\n");
				for (const line of frame.split("\\n")) {
					if (!line.startsWith("data: ")) continue;
					const envelope = JSON.parse(line.slice(6));
					if (envelope.event !== "transcript.row") continue;
					const k = /"bench-(\\d+)"/.exec(line);
					if (!k) continue;
					const at = process.hrtime.bigint();
					let times = pending.get(k[1]);
					if (!times) pending.set(k[1], (times = []));
					times.push(at);
					if (times.length === clients) {
						pending.delete(k[1]);
						parentPort.postMessage({ type: "sample", k: Number(k[1]), times });
					}
				}
			}
		});
		res.on("error", (e) => fail(String(e)));
		if (++connected === clients) parentPort.postMessage({ type: "ready" });
	});
	req.on("error", (e) => fail(String(e)));
}
`;

type FromClients =
	| { type: "ready" }
	| { type: "error"; message: string }
	| { type: "sample"; k: number; times: bigint[] };

/**
 * Connects `clients` SSE clients to `path`, then for each sample stamps the time, calls `fire(k)` (which must
 * make the server write the k-th frame) and waits until every client has parsed it. Milliseconds, one
 * sample per client per firing.
 */
async function delivery(
	port: number,
	path: string,
	headers: Record<string, string>,
	clients: number,
	samples: number,
	warmup: number,
	fire: (k: number) => void,
): Promise<number[]> {
	const worker = new Worker(CLIENTS, { eval: true, workerData: { port, path, headers, clients } });
	let waiter: { resolve: (m: FromClients) => void; reject: (e: Error) => void } | undefined;
	worker.on("message", (m: FromClients) => {
		if (m.type === "error") waiter?.reject(new Error(`SSE client: ${m.message}`));
		else waiter?.resolve(m);
	});
	worker.on("error", (e) => waiter?.reject(e));
	const next = () =>
		new Promise<FromClients>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`SSE clients stalled (${path})`)), 15_000);
			waiter = {
				resolve: (m) => {
					clearTimeout(timer);
					resolve(m);
				},
				reject: (e) => {
					clearTimeout(timer);
					reject(e);
				},
			};
		});
	try {
		await next(); // ready: every client has its response headers, so the server has attached it
		const latencies: number[] = [];
		for (let k = 0; k < warmup + samples; k++) {
			const arrived = next();
			const start = process.hrtime.bigint();
			fire(k);
			const m = await arrived;
			if (m.type !== "sample" || m.k !== k) throw new Error(`expected sample ${k}, got ${JSON.stringify(m)}`);
			if (k >= warmup) for (const at of m.times) latencies.push(Number(at - start) / 1e6);
		}
		return latencies;
	} finally {
		await worker.terminate();
	}
}

/** The floor: a plain node:http server writing one ready-made SSE frame to every open response. */
async function rawStream() {
	const responses = new Set<ServerResponse>();
	const server = createServer((req, res) => {
		res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
		res.write("retry: 1000\n\n");
		responses.add(res);
		req.on("close", () => responses.delete(res));
	});
	await new Promise<void>((done) => server.listen(0, HOST, done));
	return {
		port: (server.address() as AddressInfo).port,
		broadcast(frame: string) {
			for (const res of responses) res.write(frame);
		},
		close: () =>
			new Promise<void>((done) => {
				server.close(() => done());
				server.closeAllConnections();
			}),
	};
}

/** A frame shaped like the chamber's `transcript.row` for a `pichamber.ui` card. */
function rawFrame(k: number): string {
	const card = { kind: "card", id: "bench", component: "markdown", props: { body: `bench-${k}` }, actions: [] };
	return encodeFrame({
		version: EVENTS_VERSION,
		event: "transcript.row",
		seq: k + 1,
		sessionId: "019700000000-0000-0000-0000-000000000000",
		payload: { row: { kind: "card", id: "a1b2c3d4", source: "entry", card } },
	} as Parameters<typeof encodeFrame>[0]);
}

/** GET over a fresh connection; resolves with the body once it is fully read. */
function httpGet(port: number, path: string, token: string): Promise<string> {
	return new Promise((resolve, reject) => {
		get({ host: HOST, port, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
			const chunks: Buffer[] = [];
			res.on("data", (c: Buffer) => chunks.push(c));
			res.on("end", () => {
				const body = Buffer.concat(chunks).toString("utf8");
				if (res.statusCode !== 200) reject(new Error(`GET ${path}: ${res.statusCode} ${body.slice(0, 300)}`));
				else resolve(body);
			});
			res.on("error", reject);
		}).on("error", reject);
	});
}

const usage = {
	input: 1200,
	output: 300,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 1500,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const prose = (n: number, i: number) =>
	`Entry ${i}: ${"lorem ipsum dolor sit amet ".repeat(Math.ceil(n / 27))}`.slice(0, n);

function user(i: number) {
	return { role: "user" as const, content: prose(200, i), timestamp: Date.now() };
}

function assistant(i: number, toolCallId?: string) {
	return {
		role: "assistant" as const,
		content: [
			{ type: "text" as const, text: prose(toolCallId ? 150 : 800, i) },
			...(toolCallId
				? [{ type: "toolCall" as const, id: toolCallId, name: "read", arguments: { path: `src/file-${i}.ts` } }]
				: []),
		],
		api: "openai-completions" as const,
		provider: "bench",
		model: "bench-model",
		usage,
		stopReason: toolCallId ? ("toolUse" as const) : ("stop" as const),
		timestamp: Date.now(),
	};
}

/**
 * A session file written through pi's own SessionManager (so its format is pi's): user/assistant turns,
 * every third turn with a tool call and its result, and every 25th entry a `pichamber.ui` panel (12 ids, so
 * hydration rebuilds a dock). pi writes the file synchronously once an assistant message exists.
 */
function writeSession(cwd: string, sessionDir: string, entries: number): { id: string; file: string } {
	const manager = SessionManager.create(cwd, sessionDir);
	let count = 0;
	let turn = 0;
	const add = (append: () => void) => {
		if (count < entries) {
			append();
			count++;
		}
	};
	while (count < entries) {
		if (count % 25 === 24) {
			const id = `panel-${Math.floor(count / 25) % 12}`;
			add(() =>
				manager.appendCustomEntry("pichamber.ui", { id, component: "markdown", props: { body: prose(300, count) } }),
			);
			continue;
		}
		add(() => manager.appendMessage(user(count)));
		if (turn++ % 3 === 2) {
			const callId = `call_${count}`;
			add(() => manager.appendMessage(assistant(count, callId)));
			add(() =>
				manager.appendMessage({
					role: "toolResult",
					toolCallId: callId,
					toolName: "read",
					content: [{ type: "text", text: prose(1500, count) }],
					isError: false,
					timestamp: Date.now(),
				}),
			);
		}
		add(() => manager.appendMessage(assistant(count)));
	}
	const file = manager.getSessionFile();
	if (!file) throw new Error("pi did not name a session file");
	return { id: manager.getSessionId(), file };
}

export async function benchChamber(runs: number): Promise<void> {
	const root = mkdtempSync(join(tmpdir(), "pier-bench-chamber-"));
	const agentDir = join(root, "agent");
	const stateDir = join(root, "state");
	const project = mkdtempSync(join(root, "project-"));
	const saved = {
		agentDir: process.env.PI_CODING_AGENT_DIR,
		sessionDir: process.env.PI_CODING_AGENT_SESSION_DIR,
		offline: process.env.PI_OFFLINE,
	};
	// pi and pier read these when a session is made, not at import: setting them here is early enough.
	process.env.PI_CODING_AGENT_DIR = agentDir;
	delete process.env.PI_CODING_AGENT_SESSION_DIR;
	process.env.PI_OFFLINE = "1";
	const options = { host: HOST, port: 0, stateDir, defaultCwd: project, heartbeatMs: 3_600_000 };
	try {
		// ---- 1. SSE delivery --------------------------------------------------------------------------
		const chamber = await startChamber(options);
		const { token } = chamber.auth.createDeviceToken("bench");
		const auth = { authorization: `Bearer ${token}` };
		const session = await chamber.chamber.create({});
		const manager = session.pier.runtime.session.sessionManager;
		// A conversation is under way (an assistant message exists), so pi persists every entry as it comes,
		// as it would when an extension appends mid-session.
		manager.appendMessage(user(0));
		manager.appendMessage(assistant(0));
		// `pi.appendEntry(type, data)` is `sessionManager.appendCustomEntry(type, data)` in pi's runner, so this
		// is the extension's path minus the command dispatch around it, and the stamp is taken just before it.
		const append = (k: number) =>
			manager.appendCustomEntry("pichamber.ui", { id: "bench", component: "markdown", props: { body: `bench-${k}` } });
		const eventsPath = () => `/api/pi/events?session=${session.id}&since=${session.channel.latest}`;
		const raw = await rawStream();
		const deliveries: Array<{ clients: number; chamber: number[]; raw: number[] }> = [];
		for (const [clients, samples, warmup] of [
			[1, 200, 20],
			[100, 50, 5],
		] as const) {
			deliveries.push({
				clients,
				raw: await delivery(raw.port, "/", {}, clients, samples, warmup, (k) => raw.broadcast(rawFrame(k))),
				chamber: await delivery(chamber.port, eventsPath(), auth, clients, samples, warmup, append),
			});
		}
		await raw.close();
		await chamber.close();

		// ---- 2. hydration -----------------------------------------------------------------------------
		const sessionDir = sessionDirFor(project, agentDir);
		const big = writeSession(project, sessionDir, HYDRATION_ENTRIES);
		const small = writeSession(project, sessionDir, 2);
		const hydrationRuns = Math.max(5, Math.floor(runs / 4));
		let view: SessionView | undefined;
		let viewBytes = 0;
		/** A fresh daemon per run; `listed` first fetches the session list, as the web app does. */
		const hydrate = async (id: string, listed: boolean): Promise<Stats> => {
			const samples: number[] = [];
			for (let r = 0; r < hydrationRuns + 1; r++) {
				const fresh = await startChamber(options);
				try {
					if (listed) await httpGet(fresh.port, "/api/pi/sessions", token);
					const start = process.hrtime.bigint();
					const body = await httpGet(fresh.port, `/api/pi/sessions/${id}`, token);
					if (r > 0) samples.push(Number(process.hrtime.bigint() - start) / 1e6);
					if (id === big.id) {
						viewBytes = Buffer.byteLength(body);
						view = JSON.parse(body) as SessionView;
					}
				} finally {
					await fresh.close();
				}
			}
			return stats(samples);
		};
		const piOpen = await measure(() => SessionManager.open(big.file), hydrationRuns * 2);
		const bigListed = await hydrate(big.id, true);
		const bigCold = await hydrate(big.id, false);
		const smallListed = await hydrate(small.id, true);
		const live = await startChamber(options);
		let viewOnly: Stats;
		let liveGet: Stats;
		try {
			const open = await live.chamber.get(big.id);
			viewOnly = await measure(() => open.view(), runs, 2);
			liveGet = await measure(() => httpGet(live.port, `/api/pi/sessions/${big.id}`, token), runs, 2);
		} finally {
			await live.close();
		}

		const rows = deliveries.map((d) => ({
			figure: `SSE delivery, ${d.clients} client${d.clients > 1 ? "s" : ""} (appendCustomEntry → parsed transcript.row)`,
			value: stats(d.chamber),
			baseline: "raw node:http stream, same frame",
			base: stats(d.raw),
		}));
		const hydration = `hydrate ${HYDRATION_ENTRIES.toLocaleString("en")}-entry session: GET /sessions/:id, fresh daemon`;
		printRows("chamber", [
			...rows,
			{ figure: `${hydration}, listed`, value: bigListed, baseline: "pi SessionManager.open(file)", base: piOpen },
			{ figure: `${hydration}, listed`, value: bigListed, baseline: "same, 2-entry session", base: smallListed },
			{
				figure: `${hydration}, not listed yet`,
				value: bigCold,
				baseline: "pi SessionManager.open(file)",
				base: piOpen,
			},
			{
				figure: "view() of the open 10,000-entry session",
				value: viewOnly,
				baseline: "pi SessionManager.open(file)",
				base: piOpen,
			},
			{ figure: "GET /sessions/:id, session already live", value: liveGet, baseline: "view() only", base: viewOnly },
		]);
		const v = view as SessionView | undefined;
		process.stdout.write(
			`\n${HYDRATION_ENTRIES.toLocaleString("en")}-entry session: ${(statSync(big.file).size / 2 ** 20).toFixed(1)} MiB file → ` +
				`${(viewBytes / 2 ** 20).toFixed(1)} MiB view, ${v?.rows.length} rows, ${v?.ui.panels.length} panels\n`,
		);
	} finally {
		for (const [key, value] of [
			["PI_CODING_AGENT_DIR", saved.agentDir],
			["PI_CODING_AGENT_SESSION_DIR", saved.sessionDir],
			["PI_OFFLINE", saved.offline],
		] as const) {
			if (value === undefined) delete process.env[key];
			else process.env[key] = value;
		}
		rmSync(root, { recursive: true, force: true });
	}
}

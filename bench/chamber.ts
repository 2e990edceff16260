/**
 * The chamber (`pier serve`), in this process on 127.0.0.1 with a temporary pi agent dir:
 *
 * - `sse.delivery.N`: an extension's entry → N SSE clients have parsed the `transcript.row`, beside
 *   `sse.raw.N`, a plain node:http server writing a ready-made frame of the same shape to N responses.
 * - `sessions.list.1000`: `GET /api/pi/sessions` over 1,000 session files of ~100 KB, warm, and
 *   `sessions.list.1000.cold`, the chamber's index (session-index.ts) with nothing kept, each beside reading
 *   those files in full.
 * - `hydrate.N`: `GET /api/pi/sessions/:id?rows=300` of a session not running, so the chamber rebuilds its
 *   view from the N-entry file (session-file.ts: viewOfFile, rows parsed for the page only), beside pi's own
 *   `SessionManager.open(file)` of the same file.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { sessionDirFor } from "../src/agent/paths.js";
import { encodeFrame } from "../src/chamber/events/channel.js";
import { startChamber } from "../src/chamber/server.js";
import { SessionIndex } from "../src/chamber/session-index.js";
import { EVENTS_VERSION } from "../src/chamber/wire.js";
import type { Result } from "./figures.js";
import { httpCall } from "./http.js";
import { type BenchContext, compareAll, type FigureSpec, timeOnce } from "./harness.js";
import { assistant, sizeOf, user, writeSession, writeSessions } from "./session-files.js";
import { SseClients } from "./sse-clients.js";

const HOST = "127.0.0.1";
/** Firings per SSE block (each gives one sample per client). */
const FIRINGS = { 1: 50, 1000: 5 } as const;
const LISTED = 1_000;
const LISTED_BYTES = 100 * 1024;
const HYDRATED = [10_000, 100_000] as const;

/** The floor: a plain node:http server writing one ready-made SSE frame to every open response. */
async function rawStream() {
	const responses = new Set<ServerResponse>();
	const server = createServer((req, res) => {
		res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" });
		res.write("retry: 1000\n\n");
		responses.add(res);
		req.on("close", () => responses.delete(res));
	});
	server.maxConnections = 10_000;
	await new Promise<void>((done) => server.listen(0, HOST, 1024, done));
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

/** A daemon on its own pi agent dir (pi and pier read the variable when they list or open, not at import). */
async function daemon(root: string, name: string) {
	const agentDir = join(root, name, "agent");
	const project = join(root, name, "project");
	mkdirSync(project, { recursive: true });
	process.env.PI_CODING_AGENT_DIR = agentDir;
	const chamber = await startChamber({
		host: HOST,
		port: 0,
		stateDir: join(root, name, "state"),
		defaultCwd: project,
		heartbeatMs: 3_600_000,
		// The default cap (256 sockets) is for real devices; the bench's clients are many on purpose.
		connections: { maxConnections: 4_096 },
	});
	const { token } = chamber.auth.createDeviceToken("bench");
	return { chamber, token, project, sessionDir: sessionDirFor(project, agentDir) };
}

async function sseFigures(ctx: BenchContext, root: string): Promise<Result[]> {
	const counts = ([1, 1000] as const).filter((n) => ctx.wants(`sse.delivery.${n}`) || ctx.wants(`sse.raw.${n}`));
	if (counts.length === 0) return [];
	const { chamber, token } = await daemon(root, "sse");
	const raw = await rawStream();
	const pools: SseClients[] = [];
	try {
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
		// One client count at a time: clients of another count still connected would receive every frame too.
		const results: Result[] = [];
		for (const clients of counts) {
			const viaRaw = await SseClients.connect(`raw ${clients}`, {
				host: HOST,
				port: raw.port,
				path: "/",
				headers: {},
				clients,
			});
			pools.push(viaRaw);
			const viaChamber = await SseClients.connect(`chamber ${clients}`, {
				host: HOST,
				port: chamber.port,
				path: `/api/pi/events?session=${session.id}&since=${session.channel.latest}`,
				headers: { authorization: `Bearer ${token}` },
				clients,
			});
			pools.push(viaChamber);
			const plural = clients > 1 ? "s" : "";
			const unit = clients > 1 ? "ms" : "µs";
			results.push(
				...(await compareAll(ctx, [
					{
						id: `sse.delivery.${clients}`,
						title: `SSE delivery, ${clients} client${plural} (appendCustomEntry → parsed transcript.row)`,
						unit,
						run: () => viaChamber.block(FIRINGS[clients], append, unit),
						baseline: {
							id: `sse.raw.${clients}`,
							title: `raw node:http stream, same frame, ${clients} client${plural}`,
							run: () => viaRaw.block(FIRINGS[clients], (k) => raw.broadcast(rawFrame(k)), unit),
						},
					},
				])),
			);
			for (const pool of pools.splice(0)) await pool.close();
		}
		return results;
	} finally {
		for (const pool of pools) await pool.close();
		await raw.close();
		await chamber.close();
	}
}

async function listFigure(ctx: BenchContext, root: string): Promise<Result[]> {
	const id = `sessions.list.${LISTED}`;
	if (!ctx.wants(id)) return [];
	const { chamber, token, project, sessionDir } = await daemon(root, "list");
	try {
		const files = writeSessions(project, sessionDir, LISTED, LISTED_BYTES);
		ctx.log(`  ${files.length} session files, ${(sizeOf(files) / 2 ** 20).toFixed(0)} MiB`);
		const list = async () => {
			const body = await httpCall(chamber.port, token, "GET", "/api/pi/sessions");
			const n = (JSON.parse(body) as { sessions: unknown[] }).sessions.length;
			if (n < LISTED) throw new Error(`the chamber listed ${n} sessions, not ${LISTED}`);
		};
		const readAll = () => timeOnce(() => files.reduce((n, f) => n + readFileSync(f, "utf8").length, 0));
		return await compareAll(ctx, [
			{
				id: `${id}.cold`,
				title: `the chamber's session index with nothing kept, ${LISTED.toLocaleString("en")} files of ~100 KB`,
				unit: "ms",
				run: () =>
					timeOnce(async () => {
						const n = (await new SessionIndex().listAll()).length;
						if (n < LISTED) throw new Error(`the index listed ${n} sessions, not ${LISTED}`);
					}),
				baseline: { title: "read every file in full (readFileSync)", run: readAll },
			},
			{
				id,
				title: `GET /api/pi/sessions, ${LISTED.toLocaleString("en")} session files of ~100 KB, warm`,
				unit: "ms",
				run: () => timeOnce(list),
				baseline: { title: "read every file in full (readFileSync)", run: readAll },
			},
		]);
	} finally {
		await chamber.close();
	}
}

async function hydrateFigures(ctx: BenchContext, root: string): Promise<Result[]> {
	const sizes = HYDRATED.filter((n) => ctx.wants(`hydrate.${n}`));
	if (sizes.length === 0) return [];
	const { chamber, token, project, sessionDir } = await daemon(root, "hydrate");
	try {
		const specs: FigureSpec[] = [];
		for (const entries of sizes) {
			const session = writeSession(project, sessionDir, entries);
			ctx.log(`  ${entries}-entry session: ${(sizeOf([session.file]) / 2 ** 20).toFixed(1)} MiB`);
			specs.push({
				id: `hydrate.${entries}`,
				title: `GET /sessions/:id?rows=300 of a ${entries.toLocaleString("en")}-entry session not running`,
				unit: "ms",
				run: () =>
					timeOnce(async () => {
						const view = JSON.parse(
							await httpCall(chamber.port, token, "GET", `/api/pi/sessions/${session.id}?rows=300`),
						);
						if ((view as { rows: unknown[] }).rows.length !== 300) throw new Error("expected 300 rows");
					}),
				baseline: {
					title: "pi SessionManager.open(file)",
					run: () => timeOnce(() => SessionManager.open(session.file)),
				},
			});
		}
		return await compareAll(ctx, specs);
	} finally {
		await chamber.close();
	}
}

export async function benchChamber(ctx: BenchContext): Promise<Result[]> {
	const root = mkdtempSync(join(tmpdir(), "pier-bench-chamber-"));
	const saved = {
		agentDir: process.env.PI_CODING_AGENT_DIR,
		sessionDir: process.env.PI_CODING_AGENT_SESSION_DIR,
		offline: process.env.PI_OFFLINE,
	};
	delete process.env.PI_CODING_AGENT_SESSION_DIR;
	process.env.PI_OFFLINE = "1";
	try {
		return [...(await sseFigures(ctx, root)), ...(await listFigure(ctx, root)), ...(await hydrateFigures(ctx, root))];
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

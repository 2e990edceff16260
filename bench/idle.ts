/**
 * `idle.cpu`: the share of one core a `pier serve` uses while nothing happens, with 5 open sessions (each has
 * answered a prompt from the offline demo model, so its runtime and extensions run) and extensions of every
 * kind loaded in each: 10 process, 10 QuickJS, 2 native and one in-process. No client is connected. Its
 * baseline, `idle.cpu.empty`, is a `pier serve` with no session and no extension.
 *
 * `idle.cpu.after-turn`: the same daemon in the 30 s right after each of its sessions answered a prompt with a tool
 * call (its stream open only for the turn): what the runtimes, pi and V8 (collecting and shrinking the heap) still
 * do then.
 *
 * Both daemons run side by side; their 30 s windows alternate (A B A B …): first the after-turn pairs, then, after
 * one untimed window, the idle ones. A window's figure is the CPU time of the daemon and every process under it
 * (proc-cpu.ts), over the window's wall time.
 * A window is long, so the pairs are `PIER_BENCH_IDLE_PAIRS` (default 3, at least 3), not `PIER_BENCH_PAIRS`;
 * `PIER_BENCH_IDLE_SECONDS` (default 30) sets the window.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ApiClient, servedChamber } from "../test/helpers/chamber.js";
import { alternation, type Result, resultOf } from "./figures.js";
import { fixtureDirs } from "./fixture-copies.js";
import { type BenchContext, runAlternated } from "./harness.js";
import { nativePackage } from "./native.js";
import { cpuShare, treeNs } from "./proc-cpu.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SESSIONS = 5;
const EXTENSIONS = { process: 10, quickjs: 10, native: 2, typescript: 1 } as const;
const IN_PROCESS = join(ROOT, "examples", "extensions", "chamber-demo.ts");
const NATIVE = [
	{ crate: "native-echo", manifest: join(ROOT, "examples", "native", "echo") },
	{ crate: "native-crash", manifest: join(ROOT, "test", "fixtures", "native", "crash") },
];
const MIN_IDLE_PAIRS = 3;

interface ExtensionEntry {
	name: string;
	kind: string;
	phase?: string;
}

/**
 * One prompt to the demo model, answered: it calls the `echo` tool (the first process extension's), so a turn
 * crosses a runtime as well as pi's hooks; the session's stream is open only meanwhile.
 */
async function turn(api: ApiClient, id: string): Promise<void> {
	const stream = api.events(`session=${id}`);
	try {
		await stream.waitFor((e) => e.event === "session.snapshot", "the first snapshot");
		const sent = await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: 'echo {"text":"idle"}' });
		if (sent.status !== 202) throw new Error(`prompt: ${sent.status} ${JSON.stringify(sent.body)}`);
		await stream.waitFor((e) => e.event === "agent.end", "the demo model's answer", 120_000);
	} finally {
		stream.close();
	}
}

/** A session made and answered once; its extensions are checked to be the ones asked for, all running. */
async function answeredSession(api: ApiClient): Promise<string> {
	const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {});
	if (created.status !== 201) throw new Error(`creating a session failed: ${JSON.stringify(created.body)}`);
	const id = created.body.session.id;
	await turn(api, id);
	const list = await api.call<{ extensions: ExtensionEntry[] }>("GET", `/api/pi/extensions?session=${id}`);
	const running = list.body.extensions.filter((e) => e.kind !== "builtin");
	const broken = running.filter((e) => e.phase !== undefined && e.phase !== "active");
	if (broken.length > 0) throw new Error(`extensions not active: ${JSON.stringify(broken)}`);
	for (const [kind, count] of Object.entries(EXTENSIONS)) {
		const have = running.filter((e) => e.kind === kind).length;
		if (have !== count) throw new Error(`session ${id} runs ${have} ${kind} extensions, not ${count}`);
	}
	return id;
}

export async function benchIdle(ctx: BenchContext): Promise<Result[]> {
	if (!ctx.wants("idle.cpu")) return [];
	const pairs = Math.max(MIN_IDLE_PAIRS, Number(process.env.PIER_BENCH_IDLE_PAIRS ?? MIN_IDLE_PAIRS) || 0);
	const windowMs = Math.max(1, Number(process.env.PIER_BENCH_IDLE_SECONDS ?? 30) || 30) * 1000;
	const root = mkdtempSync(join(tmpdir(), "pier-bench-idle-"));
	const stops: (() => Promise<unknown>)[] = [];
	try {
		const natives = await Promise.all(NATIVE.map((n) => nativePackage(join(root, "native"), n.crate, n.manifest)));
		const extensions = [
			...fixtureDirs("process", EXTENSIONS.process),
			...fixtureDirs("quickjs", EXTENSIONS.quickjs),
			...natives,
			IN_PROCESS,
		];
		const daemon = async (name: string, args: string[]) => {
			const dirs = { agentDir: join(root, name, "agent"), cwd: join(root, name, "project") };
			for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
			const served = await servedChamber(args, { ...dirs, stateDir: join(root, name, "state") });
			stops.push(() => served.serve.stop());
			return served;
		};
		ctx.log(`  starting a daemon with ${SESSIONS} sessions and ${extensions.length} extensions each`);
		const empty = await daemon("empty", ["--no-examples"]);
		const busy = await daemon(
			"loaded",
			extensions.flatMap((path) => ["-e", path]),
		);
		const sessions: string[] = [];
		for (let i = 0; i < SESSIONS; i++) sessions.push(await answeredSession(busy.api));
		const busyPid = busy.serve.process.pid!;
		const emptyPid = empty.serve.process.pid!;
		const window = async (name: string, pid: number) => {
			const { tree, own } = await cpuShare(pid, windowMs);
			ctx.log(`  ${name}: ${tree.toFixed(3)}% (the daemon process itself ${own.toFixed(3)}%)`);
			return tree;
		};
		const emptyWindow = () => window("empty", emptyPid);
		ctx.log(`  ${treeNs(busyPid).size} processes in the loaded daemon's tree; ${pairs} pairs of ${windowMs / 1000} s`);
		const what = `${SESSIONS} open sessions × 10 process + 10 QuickJS + 2 native + 1 in-process extensions, no client`;
		const baseline = { id: "idle.cpu.empty", title: "pier serve idle, no session, no extension" };
		// Right after a turn in every session: what the runtimes, pi and V8 still do once the answers are in.
		const afterTurn = await runAlternated(
			alternation(pairs, true),
			async () => {
				for (const id of sessions) await turn(busy.api, id);
				return window("loaded, after a turn in each session", busyPid);
			},
			emptyWindow,
		);
		// Then left alone: the window after the last one above is the first of these, and is not counted.
		await window("loaded (untimed)", busyPid);
		const blocks = await runAlternated(alternation(pairs, true), () => window("loaded", busyPid), emptyWindow);
		return [
			resultOf({ id: "idle.cpu", title: `pier serve idle, ${what}`, unit: "%", baseline }, blocks.a, blocks.b),
			resultOf(
				{
					id: "idle.cpu.after-turn",
					title: `pier serve, the ${windowMs / 1000} s after a turn in each of ${what}`,
					unit: "%",
					baseline,
				},
				afterTurn.a,
				afterTurn.b,
			),
		];
	} finally {
		for (const stop of stops) await stop();
		rmSync(root, { recursive: true, force: true });
	}
}

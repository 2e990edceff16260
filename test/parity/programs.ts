/**
 * Runs pi's CLI or pier's bin once, in a fresh world of its own: a new root directory holding the agent
 * directory (PI_CODING_AGENT_DIR, with a models.json naming the parity model server), HOME and the project
 * (the working directory) — at the same path for both programs of one comparison, so paths in the
 * model's streamed text (split across deltas, where no normaliser could find them) agree — a cleared environment with PI_OFFLINE=1, and a model server of its own, so what
 * that server received belongs to this run alone.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ReceivedRequest, startModelServer } from "./model-server.js";
import { driveRpc, type RpcScript } from "./rpc-driver.js";

export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));
export const PI_PACKAGE = join(REPO_ROOT, "node_modules", "@earendil-works", "pi-coding-agent");
export const PI_EXAMPLES = join(PI_PACKAGE, "examples", "extensions");

export type Program = "pi" | "pier";
export const PROGRAM_ENTRY: Record<Program, string> = {
	pi: join(PI_PACKAGE, "dist", "cli.js"),
	pier: join(REPO_ROOT, "bin", "pier.js"),
};

/** The one model both programs see: `parity/parity-model` from models.json, over the local server. */
export const MODEL_PROVIDER = "parity";
export const MODEL_ID = "parity-model";

export interface World {
	root: string;
	agentDir: string;
	home: string;
	project: string;
}

export interface RunOutput {
	/** null when the process was killed at its time limit (then `timedOut`). */
	code: number | null;
	timedOut: boolean;
	stdout: string;
	stderr: string;
	/** Every session file under the agent directory, by path relative to it, in sorted order. */
	sessions: Array<{ path: string; text: string }>;
	requests: ReceivedRequest[];
	world: World;
}

export interface RunSpec {
	program: Program;
	args: string[];
	/** Print mode: text sent to stdin, then closed (pi reads piped stdin as part of the first prompt). */
	stdin?: string;
	/** RPC mode: a scripted conversation instead of fixed stdin. */
	rpc?: RpcScript;
	/** Where the world is made (emptied first); a new directory when absent. */
	root?: string;
	/** Prepares the project (git init, files) before the run. */
	setup?: (world: World) => void;
	timeoutMs?: number;
}

/** A root directory for one comparison: pi's run and pier's run each get it fresh, at the same path. */
export function newRoot(): string {
	return realpathSync(mkdtempSync(join(tmpdir(), "parity-")));
}

function newWorld(root: string): World {
	rmSync(root, { recursive: true, force: true });
	mkdirSync(root);
	const world = { root, agentDir: join(root, "agent"), home: join(root, "home"), project: join(root, "project") };
	for (const dir of [world.agentDir, world.home, world.project]) mkdirSync(dir);
	writeFileSync(join(world.project, "notes.txt"), "first line\nsecond line\n");
	return world;
}

function writeModels(agentDir: string, baseUrl: string): void {
	const provider = {
		baseUrl,
		api: "openai-completions",
		apiKey: "parity-key",
		compat: { supportsDeveloperRole: false, supportsReasoningEffort: false, supportsUsageInStreaming: true },
		models: [{ id: MODEL_ID, name: "Parity model", contextWindow: 128000, maxTokens: 4096 }],
	};
	writeFileSync(join(agentDir, "models.json"), `${JSON.stringify({ providers: { [MODEL_PROVIDER]: provider } })}\n`);
}

/** Nothing of the developer's configuration: pier's test helper's rule, with HOME in the world too. */
function worldEnv(world: World): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const key of ["PATH", "LANG", "TERM"]) if (process.env[key] !== undefined) env[key] = process.env[key];
	return { ...env, HOME: world.home, TMPDIR: tmpdir(), PI_CODING_AGENT_DIR: world.agentDir, PI_OFFLINE: "1" };
}

function sessionFiles(agentDir: string): RunOutput["sessions"] {
	let names: string[];
	try {
		names = readdirSync(agentDir, { recursive: true, encoding: "utf8" });
	} catch {
		return [];
	}
	return names
		.filter((name) => name.endsWith(".jsonl") && name.startsWith("sessions"))
		.sort()
		.map((path) => ({ path, text: readFileSync(join(agentDir, path), "utf8") }));
}

export async function runProgram(spec: RunSpec): Promise<RunOutput> {
	const world = newWorld(spec.root ?? newRoot());
	const server = await startModelServer();
	try {
		writeModels(world.agentDir, server.baseUrl);
		spec.setup?.(world);
		const child = spawn(process.execPath, [PROGRAM_ENTRY[spec.program], ...spec.args], {
			cwd: world.project,
			env: worldEnv(world),
			stdio: ["pipe", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stdout.setEncoding("utf8").on("data", (d: string) => {
			stdout += d;
		});
		child.stderr.setEncoding("utf8").on("data", (d: string) => {
			stderr += d;
		});
		let timedOut = false;
		const exited = new Promise<number | null>((resolve, reject) => {
			child.on("error", reject);
			child.on("close", (code) => resolve(code));
		});
		const timer = setTimeout(() => {
			timedOut = true;
			child.kill("SIGKILL");
		}, spec.timeoutMs ?? 45_000);
		if (spec.rpc) {
			await driveRpc(child, spec.rpc, exited);
		} else {
			child.stdin.on("error", () => {}); // a program that never reads stdin closes it early
			child.stdin.end(spec.stdin ?? "");
		}
		const code = await exited;
		clearTimeout(timer);
		return { code, timedOut, stdout, stderr, sessions: sessionFiles(world.agentDir), requests: server.requests, world };
	} finally {
		await server.close();
	}
}

/**
 * Cold start-up: `pier --version` and `pier run "hello"` (pier/demo, `startup.run-demo`) beside bare Node and a bare
 * pi SDK import, and beside pi's own CLI doing the same: `pi --version`, and `startup.run` against `startup.pi-print`,
 * one print-mode answer from the same local OpenAI-compatible model (a server in a process of its own, because each
 * cold start blocks this one).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Result } from "./figures.js";
import { type BenchContext, coldProcess, compareAll, timeOnce } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PIER = join(ROOT, "bin", "pier.js");
/** pi's CLI beside its package entry (`dist/index.js`). */
const PI = join(fileURLToPath(new URL(".", import.meta.resolve("@earendil-works/pi-coding-agent"))), "cli.js");
const SERVER = new URL("../test/helpers/openai-server.js", import.meta.url).href;
const node = process.execPath;
/** Linux's USER_HZ, in which /proc reports CPU times. */
const TICKS_PER_SECOND = 100;

/** The test suite's local OpenAI-compatible server, in a child process; resolves with it and its base URL. */
function localModelServer(): Promise<{ child: ChildProcess; baseUrl: string }> {
	const script = `const { startFakeOpenAI } = await import(${JSON.stringify(SERVER)});
const server = await startFakeOpenAI({ reply: "text" });
process.stdout.write(server.baseUrl + "\\n");`;
	const child = spawn(node, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
	return new Promise((resolve, reject) => {
		child.once("error", reject);
		child.once("exit", (code) => reject(new Error(`the local model server exited ${code}`)));
		child.stdout!.setEncoding("utf8").once("data", (line: string) => resolve({ child, baseUrl: line.trim() }));
	});
}

/** User + system time of this process's waited-for children so far (/proc/self/stat cutime + cstime), in ms. */
function childrenCpuMs(): number {
	const stat = readFileSync("/proc/self/stat", "utf8");
	const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	return ((Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND) * 1000;
}

export async function benchStartup(ctx: BenchContext): Promise<Result[]> {
	const agentDir = mkdtempSync(join(tmpdir(), "pier-bench-"));
	const server = await localModelServer();
	try {
		const provider = { baseUrl: server.baseUrl, api: "openai-completions", apiKey: "k", models: [{ id: "m" }] };
		writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { local: provider } }));
		const env = {
			PATH: process.env.PATH ?? "",
			HOME: process.env.HOME ?? "",
			PI_CODING_AGENT_DIR: agentDir,
			PI_OFFLINE: "1",
		};
		/** One cold process, in ms. */
		const cold = (args: string[], cwd = ROOT) => {
			const spawn = coldProcess(node, args, env, cwd);
			return () => timeOnce(spawn, "ms");
		};
		/** One cold process's CPU time (user + system), in ms: steadier than its wall time on a busy machine. */
		const coldCpu = (args: string[], cwd = ROOT) => {
			const spawn = coldProcess(node, args, env, cwd);
			return () => {
				const before = childrenCpuMs();
				spawn();
				return childrenCpuMs() - before;
			};
		};
		const answer = ["--no-session", "--model", "local/m", "hello"];
		const bareNode = { title: "node -e 0", run: cold(["-e", "0"]) };
		// Run from the checkout so the bare specifier resolves to the same installed SDK.
		const sdkImport = cold(["--input-type=module", "-e", 'await import("@earendil-works/pi-coding-agent")']);
		return await compareAll(ctx, [
			{
				id: "startup.version",
				title: "pier --version",
				unit: "ms",
				run: cold([PIER, "--version"]),
				baseline: { ...bareNode, id: "startup.node" },
			},
			{ id: "startup.sdk-import", title: "import pi SDK only", unit: "ms", run: sdkImport, baseline: bareNode },
			{
				id: "startup.run-demo",
				title: 'pier run "hello" (pier/demo)',
				unit: "ms",
				run: cold([PIER, "run", "--no-session", "hello"], agentDir),
				baseline: { title: "import pi SDK only", run: sdkImport },
			},
			{
				id: "startup.version-vs-pi",
				title: "pier --version",
				unit: "ms",
				run: cold([PIER, "--version"]),
				baseline: { title: "pi --version (pi's own CLI)", run: cold([PI, "--version"]) },
			},
			{
				id: "startup.run",
				title: "pier run: one answer from a local server",
				unit: "ms",
				run: cold([PIER, "run", ...answer], agentDir),
				baseline: {
					id: "startup.pi-print",
					title: "pi -p: the same answer (pi's own CLI)",
					run: cold([PI, "-p", ...answer], agentDir),
				},
			},
			{
				id: "startup.run.cpu",
				title: "pier run: one answer from a local server, CPU time",
				unit: "ms",
				run: coldCpu([PIER, "run", ...answer], agentDir),
				baseline: {
					id: "startup.pi-print.cpu",
					title: "pi -p: the same answer, CPU time",
					run: coldCpu([PI, "-p", ...answer], agentDir),
				},
			},
		]);
	} finally {
		server.child.kill();
		rmSync(agentDir, { recursive: true, force: true });
	}
}

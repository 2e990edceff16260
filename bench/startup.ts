/** Cold start-up: `pier --version` and `pier run "hello"` beside bare Node and a bare pi SDK import. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Result } from "./figures.js";
import { type BenchContext, coldProcess, compareAll, timeOnce } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PIER = join(ROOT, "bin", "pier.js");
const node = process.execPath;

export async function benchStartup(ctx: BenchContext): Promise<Result[]> {
	const agentDir = mkdtempSync(join(tmpdir(), "pier-bench-"));
	try {
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
				id: "startup.run",
				title: 'pier run "hello" (pier/demo)',
				unit: "ms",
				run: cold([PIER, "run", "--no-session", "hello"], agentDir),
				baseline: { title: "import pi SDK only", run: sdkImport },
			},
		]);
	} finally {
		rmSync(agentDir, { recursive: true, force: true });
	}
}

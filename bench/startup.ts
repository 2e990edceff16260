/** Cold start-up: `pier --version` and `pier run "hello"` beside bare Node and a bare pi SDK import. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { coldProcess, measure, printRows } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PIER = join(ROOT, "bin", "pier.js");
const node = process.execPath;

export async function benchStartup(runs: number): Promise<void> {
	const agentDir = mkdtempSync(join(tmpdir(), "pier-bench-"));
	try {
		const env = {
			PATH: process.env.PATH ?? "",
			HOME: process.env.HOME ?? "",
			PI_CODING_AGENT_DIR: agentDir,
			PI_OFFLINE: "1",
		};
		const bareNode = await measure(coldProcess(node, ["-e", "0"], env, ROOT), runs);
		const version = await measure(coldProcess(node, [PIER, "--version"], env, ROOT), runs);
		const sdkImport = await measure(
			// Run from the checkout so the bare specifier resolves to the same installed SDK.
			coldProcess(node, ["--input-type=module", "-e", 'await import("@earendil-works/pi-coding-agent")'], env, ROOT),
			runs,
		);
		const hello = await measure(coldProcess(node, [PIER, "run", "--no-session", "hello"], env, agentDir), runs);
		printRows("cold start-up", [
			{ figure: "pier --version", value: version, baseline: "node -e 0", base: bareNode },
			{ figure: 'pier run "hello" (pier/demo)', value: hello, baseline: "import pi SDK only", base: sdkImport },
			{ figure: "import pi SDK only", value: sdkImport, baseline: "node -e 0", base: bareNode },
		]);
	} finally {
		rmSync(agentDir, { recursive: true, force: true });
	}
}

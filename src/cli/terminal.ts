/** The two long-lived stdio modes, both pi's own: the interactive terminal and RPC. */
import { InteractiveMode, initTheme, runRpcMode } from "@earendil-works/pi-coding-agent";
import { agentDir } from "../agent/paths.js";
import { createPierRuntime, modelRefOf } from "../agent/session-factory.js";
import { TrustStore } from "../extensions/trust-store.js";
import type { CliArgs } from "./args.js";
import { reportDiagnostics, sessionOptionsFrom } from "./session-options.js";
import { askTrustInTerminal } from "./trust-prompt.js";

export async function runInteractive(args: CliArgs): Promise<number> {
	if (!process.stdin.isTTY) {
		process.stderr.write('pier: the interactive terminal needs a TTY; for one prompt use pier run "<prompt>"\n');
		return 2;
	}
	const options = sessionOptionsFrom(args);
	const { runtime, diagnostics } = await createPierRuntime({
		...options,
		mode: "tui",
		askProjectTrust: (decision) => askTrustInTerminal(new TrustStore(options.agentDir ?? agentDir()), decision),
	});
	reportDiagnostics(diagnostics);
	initTheme(runtime.services.settingsManager.getTheme(), true);
	const mode = new InteractiveMode(runtime, {
		migratedProviders: [],
		modelFallbackMessage: runtime.modelFallbackMessage,
		...(args.prompt ? { initialMessage: args.prompt } : {}),
		initialImages: [],
		initialMessages: [],
	});
	await mode.run();
	return 0;
}

export async function runRpc(args: CliArgs): Promise<number> {
	const { runtime, diagnostics } = await createPierRuntime({ ...sessionOptionsFrom(args), mode: "rpc" });
	// stdout belongs to the protocol; everything for people goes to stderr.
	reportDiagnostics(diagnostics);
	process.stderr.write(`pier: rpc mode · model ${modelRefOf(runtime) ?? "(none)"}\n`);
	await runRpcMode(runtime);
	return 0;
}

/** The two long-lived stdio modes, both pi's own: the interactive terminal and RPC. */
import { InteractiveMode, runRpcMode } from "@earendil-works/pi-coding-agent";
import { agentDir } from "../agent/paths.js";
import { createPierRuntime, modelRefOf } from "../agent/session-factory.js";
import { TrustStore } from "../extensions/trust-store.js";
import type { CliArgs } from "./args.js";
import { initialInput } from "./initial-message.js";
import { initPiTheme, takeOverStdout } from "./pi-output.js";
import { withChosenSession } from "./session-choice.js";
import { reportDiagnostics, sessionOptionsFrom } from "./session-options.js";
import { askTrustInTerminal } from "./trust-prompt.js";

export async function runInteractive(args: CliArgs): Promise<number> {
	if (!process.stdin.isTTY) {
		process.stderr.write('pier: the interactive terminal needs a TTY; for one prompt use pier run "<prompt>"\n');
		return 2;
	}
	const options = await withChosenSession(args, sessionOptionsFrom(args));
	if (!options) {
		process.stdout.write("No session selected\n");
		return 0;
	}
	const { runtime, diagnostics } = await createPierRuntime({
		...options,
		mode: "tui",
		askProjectTrust: (decision) => askTrustInTerminal(new TrustStore(options.agentDir ?? agentDir()), decision),
	});
	reportDiagnostics(diagnostics);
	initPiTheme(runtime.services.settingsManager, true);
	const input = await initialInput(args, undefined);
	const mode = new InteractiveMode(runtime, {
		migratedProviders: [],
		modelFallbackMessage: runtime.modelFallbackMessage,
		...(input.initialMessage !== undefined ? { initialMessage: input.initialMessage } : {}),
		initialImages: input.initialImages ?? [],
		initialMessages: input.messages,
		verbose: args.verbose,
	});
	await mode.run();
	return 0;
}

export async function runRpc(args: CliArgs): Promise<number> {
	if (args.fileArgs.length > 0) {
		process.stderr.write("pier: @file arguments are not supported in RPC mode\n");
		return 1;
	}
	// stdout belongs to the protocol from the start: what extensions write there while loading goes to stderr.
	await takeOverStdout();
	const options = await withChosenSession(args, sessionOptionsFrom(args));
	if (!options) return 0;
	const pier = await createPierRuntime({ ...options, mode: "rpc" });
	const { runtime, diagnostics } = pier;
	initPiTheme(runtime.services.settingsManager, false);
	reportDiagnostics(diagnostics);
	// As pi: an extension pi failed to load, or a bad flag, ends RPC mode before it starts.
	if (pier.piErrors.length > 0) {
		await pier.dispose();
		return 1;
	}
	process.stderr.write(`pier: rpc mode · model ${modelRefOf(runtime) ?? "(none)"}\n`);
	await runRpcMode(runtime);
	return 0;
}

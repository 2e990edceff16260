/** The two long-lived stdio modes, both pi's own: the interactive terminal and RPC. */
import { InteractiveMode, runRpcMode } from "@earendil-works/pi-coding-agent";
import { agentDir } from "../agent/paths.js";
import { createPierRuntime, modelRefOf } from "../agent/session-factory.js";
import { stdioOwner } from "../extensions/runtimes/native/stdio-owner.js";
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
	const { chamberLinkExtension } = await import("./attach/chamber-link.js");
	const pier = await createPierRuntime({
		...options,
		// `/chamber`: this session's address in a running chamber, and a move there (issue 35).
		extensionFactories: [...(options.extensionFactories ?? []), chamberLinkExtension()],
		mode: "tui",
		askProjectTrust: (decision) => askTrustInTerminal(new TrustStore(options.agentDir ?? agentDir()), decision),
	});
	const { runtime, diagnostics } = pier;
	reportDiagnostics(diagnostics);
	if (await refusedForStdioOwner(pier, "the interactive terminal")) return 1;
	initPiTheme(runtime.services.settingsManager, true);
	const input = await initialInput(args, undefined);
	const mode = new InteractiveMode(runtime, {
		migratedProviders: [],
		modelFallbackMessage: runtime.modelFallbackMessage,
		...(input.initialMessage !== undefined ? { initialMessage: input.initialMessage } : {}),
		initialImages: input.initialImages ?? [],
		initialMessages: input.messages,
		verbose: args.verbose,
		...(args.tuiMode ? { tuiMode: args.tuiMode } : {}),
		...(args.useTheme !== undefined ? { initialThemeSetting: args.useTheme } : {}),
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
	if (await refusedForStdioOwner(pier, "RPC mode")) return 1;
	process.stderr.write(`pier: rpc mode · model ${modelRefOf(runtime) ?? "(none)"}\n`);
	await runRpcMode(runtime);
	return 0;
}

/**
 * A native plugin that declared ownsStdio serves pier's stdin/stdout itself: the terminal UI and RPC mode need
 * them too, so they refuse to start (pier run is the headless mode such a plugin runs in).
 */
async function refusedForStdioOwner(pier: { dispose(): Promise<void> }, what: string): Promise<boolean> {
	const owner = stdioOwner();
	if (!owner) return false;
	process.stderr.write(
		`pier: extension ${owner} owns stdin/stdout (its plugin declares ownsStdio), so ${what} cannot use them; run it headless with pier run -e <dir>\n`,
	);
	await pier.dispose();
	return true;
}

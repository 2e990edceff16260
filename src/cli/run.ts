/** `pier run` / `pier -p`: headless, through pi's own print mode, set up as pi's `main()` sets it up. */
import { runPrintMode } from "@earendil-works/pi-coding-agent";
import { createPierRuntime, modelRefOf } from "../agent/session-factory.js";
import { ArgsError, type CliArgs } from "./args.js";
import { initialInput, readPipedStdin } from "./initial-message.js";
import { initPiTheme, restoreStdout, takeOverStdout } from "./pi-output.js";
import { withChosenSession } from "./session-choice.js";
import { reportDiagnostics, sessionOptionsFrom } from "./session-options.js";

export async function runOnce(args: CliArgs, stdin?: string): Promise<number> {
	const input = await initialInput(args, stdin ?? (await readPipedStdin()));
	// With extension flags the words may have gone to them: pi decides once extensions have loaded.
	if (input.initialMessage === undefined && args.extensionFlags.size === 0)
		throw new ArgsError('pier run needs a prompt: pier run "hello" (or pipe one in, or @file)');
	// Before any extension loads: what it writes to stdout goes to stderr, the answer stays clean.
	await takeOverStdout();
	try {
		const options = await withChosenSession(args, sessionOptionsFrom(args));
		if (!options) return 0;
		const pier = await createPierRuntime({ ...options, mode: args.output === "json" ? "json" : "print" });
		const { runtime, diagnostics } = pier;
		initPiTheme(runtime.services.settingsManager, false);
		reportDiagnostics(diagnostics);
		// As pi: a broken or missing `-e` extension, an unknown flag or a flag without its value ends
		// the run before any prompt.
		if (pier.piErrors.length > 0) {
			await pier.dispose();
			return 1;
		}
		const file = runtime.session.sessionFile;
		process.stderr.write(`pier: model ${modelRefOf(runtime) ?? "(none)"}${file ? ` · session ${file}` : ""}\n`);
		if (!runtime.session.model) {
			process.stderr.write("pier: no model is available; see pier --help for configuration\n");
			await pier.dispose();
			return 1;
		}
		// Each message argument is its own prompt, as in pi: `"/pirate" "hello"` toggles, then asks.
		const code = await runPrintMode(runtime, { mode: args.output, ...input });
		await pier.extensionHost.shutdown("run finished");
		return code;
	} finally {
		await restoreStdout();
	}
}

/** `pier run`: one prompt, headless, through pi's own print mode. */
import { runPrintMode } from "@earendil-works/pi-coding-agent";
import { createPierRuntime, modelRefOf } from "../agent/session-factory.js";
import type { CliArgs } from "./args.js";
import { reportDiagnostics, sessionOptionsFrom } from "./session-options.js";

export async function runOnce(args: CliArgs): Promise<number> {
	const pier = await createPierRuntime({
		...sessionOptionsFrom(args),
		mode: args.output === "json" ? "json" : "print",
	});
	const { runtime, diagnostics } = pier;
	// A broken extension is reported, not fatal: the session still answers.
	reportDiagnostics(diagnostics);
	const file = runtime.session.sessionFile;
	process.stderr.write(`pier: model ${modelRefOf(runtime) ?? "(none)"}${file ? ` · session ${file}` : ""}\n`);
	if (!runtime.session.model) {
		process.stderr.write("pier: no model is available; see pier --help for configuration\n");
		await pier.dispose();
		return 1;
	}
	const code = await runPrintMode(runtime, { mode: args.output, initialMessage: args.prompt! });
	await pier.extensionHost.shutdown("run finished");
	return code;
}

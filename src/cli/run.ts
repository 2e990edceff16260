/** `pier run` / `pier -p`: headless, through pi's own print mode, set up as pi's `main()` sets it up. */
import { runPrintMode } from "@earendil-works/pi-coding-agent";
import { unpaceDemoModel } from "../agent/demo-model.js";
import { createPierRuntime, modelRefOf } from "../agent/session-factory.js";
import { stdioFinished, stdioOwner } from "../extensions/runtimes/native/stdio-owner.js";
import { ArgsError, type CliArgs } from "./args.js";
import { initialInput, readPipedStdin } from "./initial-message.js";
import { initPiTheme, restoreStdout, takeOverStdout } from "./pi-output.js";
import { withChosenSession } from "./session-choice.js";
import { reportDiagnostics, sessionOptionsFrom } from "./session-options.js";

const NEEDS_PROMPT = 'pier run needs a prompt: pier run "hello" (or pipe one in, or @file)';

export async function runOnce(args: CliArgs, stdin?: string): Promise<number> {
	unpaceDemoModel();
	// Piped stdin is read once the extensions have loaded: a native plugin that owns stdio (declare.ownsStdio)
	// serves it, and then it is not the prompt. Without a pipe the prompt is checked before anything loads.
	const piped = stdin === undefined && !process.stdin.isTTY;
	let input = piped ? undefined : await initialInput(args, stdin);
	// With extension flags the words may have gone to them: pi decides once extensions have loaded.
	if (input && input.initialMessage === undefined && args.extensionFlags.size === 0) throw new ArgsError(NEEDS_PROMPT);
	// Before any extension loads: what it writes to stdout goes to stderr, the answer stays clean.
	await takeOverStdout();
	try {
		const options = await withChosenSession(args, sessionOptionsFrom(args));
		if (!options) return 0;
		const pier = await createPierRuntime({
			...options,
			mode: args.output === "json" ? "json" : "print",
			onMcpConfigErrors: reportMcpConfigErrors,
		});
		const { runtime, diagnostics } = pier;
		pier.mcp.onReport(reportMcpProblem);
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
		// A native plugin that owns stdio serves pier's stdin/stdout itself: the session shuts down
		// (SessionShutdown) only once it has finished, and pier ends with its code.
		const owner = stdioOwner();
		input ??= await initialInput(args, owner ? undefined : await readPipedStdin());
		if (input.initialMessage === undefined && args.extensionFlags.size === 0 && !owner) {
			await pier.dispose();
			throw new ArgsError(NEEDS_PROMPT);
		}
		let ownerCode: number | undefined;
		const host = owner
			? holdShutdown(runtime, async () => {
					ownerCode = await stdioFinished();
				})
			: runtime;
		// Each message argument is its own prompt, as in pi: `"/pirate" "hello"` toggles, then asks.
		const printed = await runPrintMode(host, { mode: args.output, ...input });
		await pier.extensionHost.shutdown("run finished");
		return ownerCode ?? printed;
	} finally {
		await restoreStdout();
	}
}

/** pi shows these in its UI; a headless run has none, so they go to stderr, where its other problems go. */
function reportMcpConfigErrors(errors: readonly string[]): void {
	for (const error of errors)
		process.stderr.write(`pier: MCP config error (skipped; the other servers still connect): ${error}\n`);
}

/**
 * pi's MCP warnings (a server that failed or needs sign-in, named by pi) go where pi's UI would show them. pi's
 * report repeats the config errors as `config:` lines; those were printed when the config loaded.
 */
function reportMcpProblem(message: string): void {
	const lines = message.split("\n").filter((line) => !line.startsWith("  config: "));
	if (lines[0]?.startsWith("MCP servers need attention:") && !lines.some((line) => line.startsWith("  "))) return;
	process.stderr.write(`pier: ${lines.join("\n")}\n`);
}

/** The runtime, with its dispose (which shuts the session down) waiting for `before` first. */
function holdShutdown<T extends { dispose(): Promise<void> }>(runtime: T, before: () => Promise<void>): T {
	return new Proxy(runtime, {
		get(target, property) {
			if (property === "dispose")
				return async () => {
					await before();
					await target.dispose();
				};
			const value = Reflect.get(target, property, target);
			return typeof value === "function" ? value.bind(target) : value;
		},
	});
}

/**
 * pier's entry point. Only argument parsing happens eagerly: each command loads
 * the pi SDK (about a second of start-up) only when it needs it.
 */
import { pierVersion } from "../version.js";
import { ArgsError, type CliArgs, HELP, parseArgs } from "./args.js";

export async function main(argv: readonly string[]): Promise<number> {
	let args: CliArgs;
	try {
		args = parseArgs(argv);
	} catch (error) {
		if (error instanceof ArgsError) {
			process.stderr.write(`pier: ${error.message}\n(see pier --help)\n`);
			return 2;
		}
		throw error;
	}
	// pi's --offline: its network-free start-up, for pi's code and every child that inherits the environment.
	if (args.offline) process.env.PI_OFFLINE = "1";
	try {
		const piCommand = ["run", "rpc", "interactive"].includes(args.command);
		if (args.export !== undefined && piCommand)
			return await (await import("./session-choice.js")).exportSession(args.export, args.messages[0]);
		if (args.listModels !== undefined && piCommand)
			return await (await import("./list-models.js")).listModelsCommand(args);
		switch (args.command) {
			case "version":
				process.stdout.write(`${pierVersion()}\n`);
				return 0;
			case "help":
				process.stdout.write(HELP);
				return 0;
			case "sessions":
				return await (await import("./sessions.js")).listSessions(args);
			case "ext":
				return await (await import("./ext.js")).extCommand(args.rest);
			case "grant":
			case "revoke":
				return await (await import("./grant.js")).grantCommand(args.command, args.rest);
			case "audit":
				return (await import("./audit.js")).auditCommand(args.rest);
			case "pair":
				return await (await import("./pair.js")).pairCommand(args.rest);
			case "attach":
				return await (await import("./attach/command.js")).attachCommand(args.rest);
			case "serve":
				return await (await import("./serve.js")).serveCommand(args.rest);
			case "trust":
			case "untrust":
				return await (await import("./trust.js")).trustCommand(args.command, args.rest);
			case "install":
			case "remove":
			case "update":
			case "list":
				return await (await import("./packages.js")).packagesCommand(args.command, args.rest);
			case "search":
				return await (await import("./search.js")).searchCommand(args.rest);
			case "auth":
			case "config":
			case "mcp":
				return await (await import("./pi-command.js")).piCommand(args.command, args.rest);
			case "run":
				return await (await import("./run.js")).runOnce(args);
			case "rpc":
				return await (await import("./terminal.js")).runRpc(args);
			case "interactive": {
				// As pi: without a terminal, `pier` is print mode on what was piped in and the message arguments.
				if (!process.stdin.isTTY) {
					const { readPipedStdin } = await import("./initial-message.js");
					const stdin = await readPipedStdin();
					if (stdin !== undefined || args.messages.length > 0 || args.fileArgs.length > 0)
						return await (await import("./run.js")).runOnce({ ...args, command: "run" }, stdin);
				}
				return await (await import("./terminal.js")).runInteractive(args);
			}
		}
	} catch (error) {
		const { PierUsageError } = await import("../agent/session-factory.js");
		const { TrustStoreError } = await import("../extensions/trust-store.js");
		const { PackageSourceError } = await import("../extensions/packages/sources.js");
		if (error instanceof ArgsError || error instanceof TrustStoreError || error instanceof PackageSourceError) {
			process.stderr.write(`pier: ${error.message}\n`);
			return 2;
		}
		if (error instanceof PierUsageError) {
			process.stderr.write(`pier: ${error.message}\n`);
			return error.exitCode;
		}
		throw error;
	}
}

/**
 * Which session file a command line means, as pi's CLI decides it: `--session` and `--fork` take a path or
 * a session id prefix (this project's sessions first, then every project's), `-r/--resume` asks with pi's
 * own session picker. SDK-loading: only the modes that open a session call it.
 */
import { SessionManager, SettingsManager } from "@earendil-works/pi-coding-agent";
import { resolve } from "node:path";
import { type PierSessionOptions, PierUsageError, type SessionTarget } from "../agent/session-factory.js";
import { agentDir } from "../agent/paths.js";
import { exportSessionFile } from "../pi-seams/export-html.js";
import { pickSession } from "../pi-seams/session-picker.js";
import type { CliArgs } from "./args.js";

/** pi's rule: a path if it has a separator or ends in .jsonl; otherwise an id prefix. */
async function sessionFile(arg: string, cwd: string, sessionDir: string | undefined): Promise<string> {
	if (arg.includes("/") || arg.includes("\\") || arg.endsWith(".jsonl")) return arg;
	const local = (await SessionManager.list(cwd, sessionDir)).find((s) => s.id.startsWith(arg));
	if (local) return local.path;
	const anywhere = (await SessionManager.listAll()).find((s) => s.id.startsWith(arg));
	if (anywhere) return anywhere.path;
	throw new PierUsageError(`No session found matching '${arg}'`, 1);
}

/** The session target, or undefined when the picker was closed without a choice (pi exits 0). */
export async function chooseSession(args: CliArgs, cwd: string): Promise<SessionTarget | undefined> {
	if (args.fork) {
		const conflicts = [
			args.session ? "--session" : undefined,
			args.continue ? "--continue" : undefined,
			args.resume ? "--resume" : undefined,
			args.noSession ? "--no-session" : undefined,
		].filter((flag) => flag !== undefined);
		if (conflicts.length > 0) throw new PierUsageError(`--fork cannot be combined with ${conflicts.join(", ")}`, 1);
		return { kind: "fork", file: await sessionFile(args.fork, cwd, args.sessionDir) };
	}
	if (args.noSession) return { kind: "memory" };
	if (args.session) return { kind: "open", file: await sessionFile(args.session, cwd, args.sessionDir) };
	if (args.resume) {
		if (!process.stdin.isTTY) throw new PierUsageError("-r/--resume picks a session in a terminal; use --session <id>");
		// As pi's main(): the picker's theme and keys come from the settings, the project's only once trusted.
		const settings = SettingsManager.create(cwd, agentDir(), { projectTrusted: false });
		const chosen = await pickSession(
			(onProgress, signal) => SessionManager.list(cwd, args.sessionDir, onProgress, signal),
			(onProgress, signal) => SessionManager.listAll(args.sessionDir, onProgress, signal),
			settings,
		);
		return chosen ? { kind: "open", file: chosen } : undefined;
	}
	if (args.continue) return { kind: "continue" };
	return { kind: "new" };
}

/** The session options of a mode that opens one; undefined: the picker was closed (exit 0, as pi). */
export async function withChosenSession(
	args: CliArgs,
	options: PierSessionOptions,
): Promise<PierSessionOptions | undefined> {
	const session = await chooseSession(args, resolve(args.cwd ?? process.cwd()));
	if (!session) return undefined;
	return { ...options, session, ...(args.sessionDir ? { sessionDir: args.sessionDir } : {}) };
}

/** pi's `--export <session.jsonl> [output.html]`: pi's own HTML export, then exit. */
export async function exportSession(file: string, output: string | undefined): Promise<number> {
	try {
		process.stdout.write(`Exported to: ${await exportSessionFile(file, output)}\n`);
		return 0;
	} catch (error) {
		process.stderr.write(`pier: ${error instanceof Error ? error.message : "Failed to export session"}\n`);
		return 1;
	}
}

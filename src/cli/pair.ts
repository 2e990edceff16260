/**
 * `pier pair`: a fresh one-time sign-in link for the chamber that owns a state directory, whether it runs
 * now or starts later (the link waits in the state directory, pairing-inbox.ts). Whoever can run this can
 * read the state directory anyway: it proves the same thing as the link printed at start.
 */
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { agentDir } from "../agent/paths.js";
import { mintPairingToken, runningDaemon } from "../chamber/auth/pairing-inbox.js";
import { ArgsError } from "./args.js";

export const PAIR_HELP = `pier pair — a one-time sign-in link for the chamber

Usage: pier pair [--state-dir DIR] [--minutes N]

  --state-dir <dir>   the chamber's state directory (default: <pi agent dir>/pier-chamber)
  --minutes <n>       how long the link works, 1–1440 (default 10)

Prints a link for every address the running daemon serves; if none runs, the link works when
\`pier serve\` starts on that state directory within the time.
`;

export async function pairCommand(argv: readonly string[]): Promise<number> {
	let values: { "state-dir"?: string; minutes?: string; help?: boolean };
	try {
		values = parseArgs({
			args: [...argv],
			strict: true,
			allowPositionals: false,
			options: { "state-dir": { type: "string" }, minutes: { type: "string" }, help: { type: "boolean", short: "h" } },
		}).values;
	} catch (error) {
		throw new ArgsError((error as Error).message);
	}
	if (values.help) {
		process.stdout.write(PAIR_HELP);
		return 0;
	}
	const minutes = Number(values.minutes ?? "10");
	if (!Number.isInteger(minutes) || minutes < 1 || minutes > 1440)
		throw new ArgsError(`--minutes must be a whole number from 1 to 1440, got ${values.minutes}`);
	const stateDir = resolve(values["state-dir"] ?? join(agentDir(), "pier-chamber"));
	const token = randomBytes(32).toString("base64url");
	mintPairingToken(stateDir, token, Date.now() + minutes * 60_000);
	const daemon = runningDaemon(stateDir);
	const urls = daemon?.urls ?? ["http://127.0.0.1:7777/"];
	if (!daemon) {
		process.stderr.write(
			`pier pair: no chamber runs on ${stateDir} now; the link works once \`pier serve\` starts there (within ${minutes} min)\n`,
		);
	}
	for (const url of urls) process.stdout.write(`${url}#pair=${token}\n`);
	process.stderr.write(`one use, ${minutes} minutes\n`);
	return 0;
}

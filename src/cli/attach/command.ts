/**
 * `pier attach [session]`: a terminal on a session that the chamber (`pier serve`) runs. The terminal is a client
 * of the daemon, never a second writer: detaching leaves the session running there.
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { agentDir } from "../../agent/paths.js";
import type { SessionSummary } from "../../chamber/wire.js";
import { ArgsError } from "../args.js";
import { ChamberClient, PierApiError, type Credential } from "./client.js";
import { localDaemonUrl, remoteCredential, signInLocally } from "./credential.js";

export const ATTACH_HELP = `pier attach — a terminal on a session the chamber runs

Usage: pier attach [session] [--state-dir DIR | --url URL [--token TOKEN]]

  session             a session id (or the start of one) or its name; default: the chamber's running
                      session that changed last (else its newest session)
  --state-dir <dir>   the chamber's state directory (default: <pi agent dir>/pier-chamber); pier attach
                      signs in through it, as pier pair does, and signs out when it detaches
  --url <url>         another chamber, reached with a device token: --token or $PIER_TOKEN
                      (plain http only to a loopback address)

In the terminal: Enter sends a prompt (while the agent works: steers), Alt+Enter queues a follow-up,
Esc aborts, /model and /tree pick from lists, !cmd runs bash, Ctrl+D or /detach leaves. The session
keeps running in the chamber; the web app shows the same session at the printed address.
`;

interface AttachOptions {
	session?: string;
	stateDir: string;
	url?: string;
	token?: string;
}

function parseRaw(argv: readonly string[]) {
	return parseArgs({
		args: [...argv],
		strict: true,
		allowPositionals: true,
		options: {
			"state-dir": { type: "string" },
			url: { type: "string" },
			token: { type: "string" },
			help: { type: "boolean", short: "h" },
		},
	});
}

function parse(argv: readonly string[]): AttachOptions | "help" {
	let parsed: ReturnType<typeof parseRaw>;
	try {
		parsed = parseRaw(argv);
	} catch (error) {
		throw new ArgsError((error as Error).message);
	}
	const values = parsed.values;
	if (values.help) return "help";
	if (parsed.positionals.length > 1)
		throw new ArgsError(`pier attach takes one session, got ${parsed.positionals.join(" ")}`);
	if (values.url && values["state-dir"]) throw new ArgsError("--url and --state-dir name two chambers: give one");
	if (values.token && !values.url)
		throw new ArgsError("--token goes with --url (on this machine pier attach signs in itself)");
	const session = parsed.positionals[0];
	const token = values.token ?? process.env.PIER_TOKEN;
	return {
		...(session ? { session } : {}),
		stateDir: resolve(values["state-dir"] ?? join(agentDir(), "pier-chamber")),
		...(values.url ? { url: values.url } : {}),
		...(token ? { token } : {}),
	};
}

/** The session `wanted` names, or the one a user most likely means: the running one that changed last. */
export function chooseSession(sessions: readonly SessionSummary[], wanted: string | undefined): SessionSummary {
	if (wanted) {
		const exact = sessions.find((s) => s.id === wanted || s.name === wanted);
		if (exact) return exact;
		const prefixed = sessions.filter((s) => s.id.startsWith(wanted));
		if (prefixed.length === 1) return prefixed[0]!;
		if (prefixed.length > 1)
			throw new ArgsError(
				`"${wanted}" starts ${prefixed.length} sessions' ids: ${prefixed
					.slice(0, 5)
					.map((s) => s.id)
					.join(", ")}…`,
			);
		throw new ArgsError(`the chamber has no session "${wanted}" (pier sessions lists them)`);
	}
	const byChange = [...sessions].sort((a, b) => b.modifiedAt.localeCompare(a.modifiedAt));
	const chosen = byChange.find((s) => s.streaming) ?? byChange.find((s) => s.live) ?? byChange[0];
	if (!chosen) throw new ArgsError("the chamber has no session yet: start one in the web app, or name one");
	return chosen;
}

export async function attachCommand(argv: readonly string[]): Promise<number> {
	const options = parse(argv);
	if (options === "help") {
		process.stdout.write(ATTACH_HELP);
		return 0;
	}
	// Everything that can be refused without a terminal is, first: where the credential would go included.
	const remote = options.url ? remoteCredential(options.url, options.token) : undefined;
	const url = options.url ? new URL(options.url).href : localDaemonUrl(options.stateDir);
	if (!process.stdin.isTTY || !process.stdout.isTTY) {
		process.stderr.write("pier attach: the terminal needs a TTY\n");
		return 2;
	}
	const credential: Credential = remote ?? (await signInLocally(options.stateDir, url));
	const client = new ChamberClient(url, credential);
	try {
		const session = chooseSession(await client.sessions(), options.session);
		await client.open(session.id);
		const view = await client.view(session.id);
		// pi's components read pi's theme and keybindings, as in pi's own terminal.
		const { initTheme, SettingsManager } = await import("@earendil-works/pi-coding-agent");
		const { setKeybindings } = await import("@earendil-works/pi-tui");
		const { keybindingsFor } = await import("../../pi-seams/tui-render.js");
		initTheme(SettingsManager.create(agentDir(), agentDir()).getGlobalSettings().theme, false);
		setKeybindings(await keybindingsFor(agentDir()));
		const { AttachScreen } = await import("./screen.js");
		const result = await new AttachScreen(client, session.id, url).run(view);
		const link = `${new URL(`/?s=${encodeURIComponent(result.sessionId)}`, url).href}`;
		if (result.reason === "refused") {
			process.stderr.write(`pier attach: the chamber refused this terminal: ${result.message ?? ""}\n`);
			return 1;
		}
		process.stdout.write(`Detached. The session keeps running in the chamber: ${link}\n`);
		return 0;
	} catch (error) {
		if (error instanceof PierApiError) {
			process.stderr.write(`pier attach: ${error.message} (${error.code})\n`);
			return 1;
		}
		throw error;
	} finally {
		await client.signOut().catch(() => {});
		// Whatever a drawn component or a keep-alive socket still holds must not keep a detached terminal open.
		setTimeout(() => process.exit(), 3_000).unref();
	}
}

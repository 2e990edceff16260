/** `pier serve`: the chamber daemon. Runs until SIGINT/SIGTERM, then ends every session cleanly. */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { join, resolve } from "node:path";
import { agentDir } from "../agent/paths.js";
import { ArgsError } from "./args.js";

export const SERVE_HELP = `pier serve — the chamber: pi sessions in a daemon, with a web app

Usage: pier serve [options]

  --host <addr>          address to bind (default 127.0.0.1; any other needs a UI password)
  --port <n>             port (default 7777; 0 picks a free one)
  --ui-password <pw>     sign-in password (or $PIER_UI_PASSWORD); stored only as a scrypt hash
  --state-dir <dir>      auth, trust and UI settings (default: <pi agent dir>/pier-chamber)
  --cwd <dir>            project for sessions that name none (default: the current directory)
  -e, --extension <path> load an extension into every session (repeatable; replaces the examples)
  --no-examples          do not load pier's example extensions
  --model <provider/id>  model for new sessions (default: pi's choice, else pier/demo)
  --approve / --no-approve  trust / refuse every project's .pi extensions without asking
  --<flag> [value]       an extension's flag, for every session (pi's rules; a session created
                         through the API may add its own: POST /api/pi/sessions {"flags": {...}})

Without a password, sign in with the one-time pairing link printed at start.
A deleted session waits in the trash for 7 days ($PIER_SESSION_UNDO_MS sets another window, in ms); then its
file is deleted for good.
`;

const EXAMPLES = ["examples/extensions/chamber-demo.ts", "examples/quickjs/hello", "examples/process/node-weather"];

export async function serveCommand(argv: readonly string[]): Promise<number> {
	let values: ReturnType<typeof parse>["values"];
	const { own, extensionFlags } = splitExtensionFlags(argv);
	try {
		values = parse(own).values;
	} catch (error) {
		throw new ArgsError((error as Error).message);
	}
	if (values.help) {
		process.stdout.write(SERVE_HELP);
		return 0;
	}
	const host = values.host ?? "127.0.0.1";
	const port = Number(values.port ?? "7777");
	if (!Number.isInteger(port) || port < 0 || port > 65535)
		throw new ArgsError(`--port must be 0–65535, got ${values.port}`);
	const password = values["ui-password"] ?? process.env.PIER_UI_PASSWORD;
	const undoMs = undoWindow(process.env.PIER_SESSION_UNDO_MS);
	if (values.approve && values["no-approve"]) throw new ArgsError("--approve and --no-approve cannot be combined");
	// Loading the chamber, pi's SDK and the example extensions takes seconds on a cold start: say at once
	// that something is happening (the address line follows once the port is bound).
	process.stdout.write(`pier chamber: starting on ${host}:${port === 0 ? "a free port" : port}\n`);
	const { isLoopback, startChamber } = await import("../chamber/server.js");
	if (!isLoopback(host) && !password) {
		throw new ArgsError(`--host ${host} is reachable from other machines: set --ui-password (or PIER_UI_PASSWORD)`);
	}
	const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
	const extensionPaths =
		values.extension && values.extension.length > 0
			? values.extension.map((p) => resolve(p))
			: values["no-examples"]
				? []
				: EXAMPLES.map((p) => join(repoRoot, p));

	// pi's theme is one per process: the daemon's sessions share the user's, never a project's
	// (the chamber serves several projects, trusted or not).
	const { initTheme, SettingsManager } = await import("@earendil-works/pi-coding-agent");
	initTheme(SettingsManager.create(agentDir(), agentDir()).getGlobalSettings().theme, false);
	// The marker PiChamber extensions look for; set before any session loads an extension.
	(globalThis as Record<string, unknown>).__PICHAMBER__ = { version: 1 };
	const chamber = await (async () => {
		try {
			return await startChamber({
				host,
				port,
				stateDir: resolve(values["state-dir"] ?? join(agentDir(), "pier-chamber")),
				defaultCwd: resolve(values.cwd ?? process.cwd()),
				extensionPaths,
				...(password ? { password } : {}),
				...(values.model ? { model: values.model } : {}),
				...(extensionFlags.size > 0 ? { extensionFlags } : {}),
				...(values.approve ? { approve: true } : values["no-approve"] ? { approve: false } : {}),
				...(undoMs !== undefined ? { undoMs } : {}),
			});
		} catch (error) {
			const code = (error as NodeJS.ErrnoException).code;
			// Loaded here, not at the top: session-factory.js imports pi's SDK, which the starting line precedes.
			const { PierUsageError } = await import("../agent/session-factory.js");
			if (code === "EADDRINUSE") throw new PierUsageError(`${host}:${port} is in use; choose another --port`);
			if (code === "EADDRNOTAVAIL") throw new PierUsageError(`${host} is not an address of this machine`);
			throw error;
		}
	})();
	const { serveBanner, defaultModelRef } = await import("./serve-banner.js");
	process.stdout.write(serveBanner({ urls: chamber.urls, model: await defaultModelRef(values.model), extensionPaths }));
	process.stdout.write(`sign in on this or another device (one use, 10 minutes): ${chamber.pairingUrl}\n`);

	const signal = await new Promise<NodeJS.Signals>((done) => {
		process.once("SIGINT", () => done("SIGINT"));
		process.once("SIGTERM", () => done("SIGTERM"));
	});
	process.stdout.write(`pier chamber: stopping (${signal})\n`);
	// Closing sessions is bounded (each extension gets its shutdown timeout), but whatever still hangs
	// must not keep a stopped daemon alive: a second signal, or the deadline, ends it at once.
	const force = (why: string) => {
		process.stderr.write(`pier chamber: ${why}; exiting without waiting further\n`);
		process.exit(1);
	};
	process.once("SIGINT", () => force("second signal"));
	process.once("SIGTERM", () => force("second signal"));
	const deadline = setTimeout(
		() => force(`sessions did not close within ${STOP_DEADLINE_MS / 1000} s`),
		STOP_DEADLINE_MS,
	);
	await chamber.close();
	clearTimeout(deadline);
	// A handle something left open (a socket, a timer) must not keep the process up after a clean stop.
	setTimeout(() => process.exit(0), 1_000).unref();
	return 0;
}

/** `$PIER_SESSION_UNDO_MS`: how long a deleted session can be restored, in ms (unset: the default). */
function undoWindow(value: string | undefined): number | undefined {
	if (value === undefined || value === "") return undefined;
	const ms = Number(value);
	if (!Number.isSafeInteger(ms) || ms < 1)
		throw new ArgsError(
			`PIER_SESSION_UNDO_MS must be a whole number of milliseconds, at least 1; got ${JSON.stringify(value)}`,
		);
	return ms;
}

/** How long `pier serve` waits for its sessions to close after SIGTERM/SIGINT before it exits anyway. */
const STOP_DEADLINE_MS = 8_000;

const OWN_OPTIONS = new Set([
	"host",
	"port",
	"ui-password",
	"state-dir",
	"cwd",
	"extension",
	"no-examples",
	"model",
	"approve",
	"no-approve",
	"help",
]);

/** `--name [value]` words no serve option claims are extension flags, taken as pi takes them. */
function splitExtensionFlags(argv: readonly string[]): {
	own: string[];
	extensionFlags: Map<string, boolean | string>;
} {
	const own: string[] = [];
	const extensionFlags = new Map<string, boolean | string>();
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i]!;
		const eq = arg.indexOf("=");
		const name = arg.startsWith("--") ? arg.slice(2, eq > 0 ? eq : undefined) : "";
		if (name === "" || OWN_OPTIONS.has(name)) {
			own.push(arg);
			continue;
		}
		const next = argv[i + 1];
		if (eq > 0) extensionFlags.set(name, arg.slice(eq + 1));
		else if (next !== undefined && !next.startsWith("-") && !next.startsWith("@")) extensionFlags.set(name, argv[++i]!);
		else extensionFlags.set(name, true);
	}
	return { own, extensionFlags };
}

function parse(argv: readonly string[]) {
	return parseArgs({
		args: [...argv],
		strict: true,
		allowPositionals: false,
		options: {
			host: { type: "string" },
			port: { type: "string" },
			"ui-password": { type: "string" },
			"state-dir": { type: "string" },
			cwd: { type: "string" },
			extension: { type: "string", short: "e", multiple: true },
			"no-examples": { type: "boolean" },
			model: { type: "string" },
			approve: { type: "boolean" },
			"no-approve": { type: "boolean" },
			help: { type: "boolean", short: "h" },
		},
	});
}

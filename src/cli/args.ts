/**
 * pier's command line, parsed by hand: extension-registered flags (`--name value`)
 * must pass through to pi untouched, which generic parsers do not allow.
 */
import { ArgsError, piOption } from "./pi-options.js";

export type Command =
	| "run"
	| "sessions"
	| "ext"
	| "serve"
	| "trust"
	| "untrust"
	| "pair"
	| "attach"
	| "audit"
	| "interactive"
	| "rpc"
	| GrantCommand
	| PackageCommand
	| PiCommand
	| "search"
	| "help"
	| "version";
export type GrantCommand = "grant" | "revoke";
export type PackageCommand = "install" | "remove" | "update" | "list";
/** Commands that are pi's own, run by pi's code as `pi <command>` runs them. */
export type PiCommand = "auth" | "config" | "mcp";

export interface CliArgs {
	command: Command;
	/** The message arguments: pi sends each as its own prompt, in order. */
	messages: string[];
	output: "text" | "json";
	/** pi's `@file` arguments (without the `@`): their text (and images) lead the first prompt. */
	fileArgs: string[];
	model?: string;
	/** pi's `--provider`: where a bare `--model` pattern is looked up. */
	provider?: string;
	/** pi's `--models a,b`: the model scope. */
	models?: string[];
	/** pi's `--api-key`: for the chosen model's provider, this run only. */
	apiKey?: string;
	/** pi's `--list-models [search]`: true lists all. */
	listModels?: string | true;
	/** pi's `--skill`, `--prompt-template`, `--theme` (repeatable) and their `--no-*` switches. */
	skills: string[];
	promptTemplates: string[];
	themes: string[];
	noSkills: boolean;
	noPromptTemplates: boolean;
	noThemes: boolean;
	noContextFiles: boolean;
	verbose: boolean;
	offline: boolean;
	thinking?: string;
	/** pi's `--tools a,b`: the only tools active. */
	tools?: string[];
	/** pi's `--no-tools` ("all") and `--no-builtin-tools` ("builtin"). */
	noTools?: "all" | "builtin";
	/** pi's `--exclude-tools a,b` (`-xt`): these tools are never active. */
	excludeTools?: string[];
	/** pi's `--no-mcp`: pi's built-in MCP extension does not load. */
	noMcp: boolean;
	/** pi's `--name <name>` (`-n`): the session's display name. */
	name?: string;
	/** pi's `--session-id <id>`: the session with that exact id, or a new one with it. */
	sessionId?: string;
	/** pi's `--tui-mode regular|fullscreen` and `--use-theme <name>`: the terminal's layout and theme, this run. */
	tuiMode?: "regular" | "fullscreen";
	useTheme?: string;
	/** pi's `--system-prompt <text|file>`. */
	systemPrompt?: string;
	/** pi's `--append-system-prompt <text|file>`, repeatable. */
	appendSystemPrompt: string[];
	extensions: string[];
	noExtensions: boolean;
	session?: string;
	/** pi's `--fork <path|id>`, `--session-dir <dir>`, `-r/--resume`, `--export <file> [out.html]`. */
	fork?: string;
	sessionDir?: string;
	resume: boolean;
	export?: string;
	continue: boolean;
	noSession: boolean;
	cwd?: string;
	approve?: boolean;
	json: boolean;
	/** Flags no pier option claims: offered to extensions, as pi does. */
	extensionFlags: Map<string, boolean | string>;
	/** `pier ext …` / `pier serve …`: the words after the command, parsed by the command itself. */
	rest: string[];
}

export { ArgsError } from "./pi-options.js";

export function parseArgs(argv: readonly string[]): CliArgs {
	const args: CliArgs = {
		command: "interactive",
		messages: [],
		output: "text",
		fileArgs: [],
		skills: [],
		promptTemplates: [],
		themes: [],
		noSkills: false,
		noPromptTemplates: false,
		noThemes: false,
		noContextFiles: false,
		noMcp: false,
		verbose: false,
		offline: false,
		appendSystemPrompt: [],
		extensions: [],
		noExtensions: false,
		continue: false,
		resume: false,
		noSession: false,
		json: false,
		extensionFlags: new Map(),
		rest: [],
	};
	const words: string[] = [];
	let rest = [...argv];
	const first = rest[0];
	if (first === "run" || first === "sessions") {
		args.command = first;
		rest = rest.slice(1);
	} else if (
		first === "ext" ||
		first === "serve" ||
		first === "trust" ||
		first === "untrust" ||
		first === "pair" ||
		first === "attach"
	) {
		return { ...args, command: first, rest: rest.slice(1) };
	} else if (first === "grant" || first === "revoke") {
		return { ...args, command: first, rest: rest.slice(1) };
	} else if (first === "install" || first === "remove" || first === "update" || first === "list") {
		return { ...args, command: first, rest: rest.slice(1) };
	} else if (first === "search") {
		return { ...args, command: "search", rest: rest.slice(1) };
	} else if (first === "auth" || first === "config" || first === "mcp") {
		return { ...args, command: first, rest: rest.slice(1) };
	} else if (first === "audit") {
		return { ...args, command: "audit", rest: rest.slice(1) };
	} else if (first === "uninstall") {
		return { ...args, command: "remove", rest: rest.slice(1) };
	} else if (first === "help") {
		return { ...args, command: "help" };
	}

	for (let i = 0; i < rest.length; i++) {
		const arg = rest[i]!;
		const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? splitOnce(arg, "=") : [arg, undefined];
		const value = (): string => {
			if (inline !== undefined) return inline;
			const next = rest[++i];
			if (next === undefined) throw new ArgsError(`${flag} needs a value`);
			return next;
		};
		if (arg === "--") {
			words.push(...rest.slice(i + 1));
			break;
		}
		if (
			piOption(
				args,
				flag,
				value,
				() => rest[i + 1],
				() => i++,
			)
		)
			continue;
		switch (flag) {
			case "-p":
			case "--print": {
				// pi's print mode is `pier run`; as in pi, -p takes the next word as a message.
				if (first !== "sessions") args.command = "run";
				const next = rest[i + 1];
				if (next !== undefined && !next.startsWith("@") && (!next.startsWith("-") || next.startsWith("---"))) {
					words.push(next);
					i++;
				}
				break;
			}
			case "-h":
			case "--help":
				args.command = "help";
				break;
			case "-v":
			case "--version":
				args.command = "version";
				break;
			case "-e":
			case "--extension":
				args.extensions.push(value());
				break;
			case "-ne":
			case "--no-extensions":
				args.noExtensions = true;
				break;
			case "--session":
				args.session = value();
				break;
			case "-c":
			case "--continue":
				args.continue = true;
				break;
			case "--no-session":
				args.noSession = true;
				break;
			case "--cwd":
				args.cwd = value();
				break;
			case "--approve":
			case "-a":
				args.approve = true;
				break;
			case "--no-approve":
			case "-na":
				args.approve = false;
				break;
			case "--json":
				args.json = true;
				break;
			case "--mode": {
				const mode = value();
				if (mode === "rpc") args.command = args.command === "interactive" ? "rpc" : args.command;
				else if (mode === "json" || mode === "text") {
					args.output = mode;
					// As pi: `--mode json` alone is print mode with JSON output.
					if (mode === "json" && args.command === "interactive") args.command = "run";
				} else throw new ArgsError(`--mode must be text, json or rpc, got "${mode}"`);
				if (mode === "rpc" && first === "run") throw new ArgsError("--mode rpc is its own mode: use `pier --mode rpc`");
				break;
			}
			default:
				if (flag.startsWith("--") && flag.length > 2) {
					const next = rest[i + 1];
					const takesNext =
						inline === undefined && next !== undefined && !next.startsWith("-") && !next.startsWith("@");
					// As in pi: a flag followed by a word takes it as its value, and a boolean flag
					// drops it (`--plan "task"` sends no prompt); an unregistered flag fails once
					// extensions have loaded ("Unknown option").
					args.extensionFlags.set(flag.slice(2), inline ?? (takesNext ? rest[++i]! : true));
				} else if (flag.startsWith("-") && flag.length > 1) {
					throw new ArgsError(`unknown option ${flag}`);
				} else if (arg.startsWith("@") && arg.length > 1) {
					args.fileArgs.push(arg.slice(1));
				} else {
					words.push(arg);
				}
		}
	}
	if (args.session && args.continue) throw new ArgsError("--session and --continue cannot be combined");
	if (args.sessionId !== undefined) {
		const conflicts = [args.session && "--session", args.continue && "--continue", args.resume && "--resume"];
		const named = conflicts.filter((flag): flag is string => typeof flag === "string");
		if (named.length > 0) throw new ArgsError(`--session-id cannot be combined with ${named.join(", ")}`);
		// pi's rule for an id (it becomes part of the session file's name).
		if (!/^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/.test(args.sessionId))
			throw new ArgsError(
				"--session-id must be non-empty, contain only letters, digits, '-', '_' and '.', and start and end with a letter or digit",
			);
	}
	if (args.noSession && (args.session || args.continue))
		throw new ArgsError("--no-session cannot be combined with --session or --continue");
	args.messages = words;
	if (args.command === "sessions" && words.length > 0)
		throw new ArgsError(`pier sessions takes no words, got "${words.join(" ")}"`);
	return args;
}

function splitOnce(text: string, sep: string): [string, string] {
	const at = text.indexOf(sep);
	return [text.slice(0, at), text.slice(at + 1)];
}

export const HELP = `pier — run pi extensions of every kind inside real pi agent sessions

Usage:
  pier run [options] "<prompt>"…  headless: each argument is its own prompt, in order; prints the last answer
  pier -p [options] "<prompt>"…   the same (pi's print mode)
  pier [options] ["<prompt>"…]    the interactive terminal (pi's own)
  pier --mode rpc [options]       pi's RPC protocol over stdio
  pier serve [--host H] [--port N] [--ui-password PW] [-e <path>]…
                                  the chamber: a daemon with a web app (pier serve --help)
  pier pair [--state-dir DIR] [--minutes N]
                                  a fresh one-time sign-in link for the chamber of that state directory
                                  (running or not): signing out never locks you out
  pier attach [session] [--state-dir DIR | --url URL]
                                  a terminal on a session the chamber runs; detaching leaves it running
                                  (pier attach --help)
  pier sessions [--cwd <dir>] [--json]
                                  list saved sessions (all projects, or one)
  pier trust [dir] [--parent]     trust a project (stored in <agentDir>/trust.json; pier trust --help)
  pier untrust [dir]              do not trust it
  pier install <source> [-l]      install a package (npm, git, file://, local) into settings (pier install --help)
  pier remove <source> [-l]       remove it and its checkout
  pier update [source]            move unpinned packages to their latest, pinned ones to their pin
  pier list [--json]              every extension pier would load, its kind, state and package (starts nothing)
  pier search [words…]            pi packages on the npm registry: version, weekly downloads, installed (pier search --help)
  pier auth login|logout|check|print-api-key|print-bearer-token …
                                  pi's provider sign-in and credentials (pier auth --help)
  pier config [-l]                pi's resource settings: enable or disable extensions, skills, built-ins
  pier mcp add|remove|list|login|logout …
                                  pi's MCP servers in mcp.json (pier mcp --help)
  pier ext validate <dir>         check a pi-extension.json package
  pier ext invoke <dir> --tool NAME --args JSON | --command NAME [--args TEXT]
                  | --event NAME --data JSON  [--timeout-ms N]
                                  load just that extension and run one thing
  pier ext test <dir>             conformance check of an extension, with a report
  pier grant [<extension> <grant…>]
  pier revoke <extension> [grant…]
                                  give / take back a QuickJS extension's powers: run, write, read, net
  pier audit [--json] [--since <time|1h|2d>] [--session <id>]
                                  the audit trail: grants used and changed, trust, packages, rule hits

Options (pi's, with pi's meaning):
  --model <pattern>         model to use: provider/id, an id, a fuzzy or glob pattern, with an
                            optional :<thinking> (default: pi's configured default, else pier/demo)
  --provider <name>         where a bare --model pattern is looked up
  --models <a,b,…>          model patterns to cycle through (Ctrl+P); the first starts
  --api-key <key>           API key for the chosen model's provider (this run only)
  --list-models [search]    list the models with credentials and exit
  --thinking <level>        off, minimal, low, medium, high, xhigh
  -p, --print               print mode: the same as pier run
  -t, --tools <a,b,…>       only these tools are active (built-in, extension or custom)
  -xt, --exclude-tools <a,b,…>
                            these tools are never active
  --no-mcp                  do not load pi's built-in MCP extension
  --no-tools, -nt           start with no tools; --no-builtin-tools, -nbt: no read/bash/edit/write
  --system-prompt <text|file>
                            replace the system prompt
  --append-system-prompt <text|file>
                            append to the system prompt (repeatable)
  -e, --extension <path>    load an extension file or directory (repeatable)
  --no-extensions, -ne      do not load discovered extensions (-e still loads)
  --skill <path>, --prompt-template <path>, --theme <path>
                            add a skill, prompt template or theme (repeatable)
  --no-skills (-ns), --no-prompt-templates (-np), --no-themes, --no-context-files (-nc)
                            skip discovered skills, templates, themes, AGENTS.md/CLAUDE.md
  @<file>                   put a file's text (or image) in the first prompt
  --verbose                 pi's verbose start-up; --offline: no network at start-up (PI_OFFLINE=1)
  --session <path|id>       continue a session file, or the session whose id starts so
  --fork <path|id>          a new session with a copy of that session's history
  -c, --continue            continue the most recent session of this project
  -r, --resume              pick a session to continue (pi's picker)
  --session-dir <dir>       where this project's session files are kept
  --export <session.jsonl> [out.html]
                            export a session to HTML (pi's exporter) and exit
  --session-id <id>         the session of this project with that exact id, or a new one with it
  -n, --name <name>         the session's display name
  --no-session              keep the session in memory only
  --cwd <dir>               project directory (default: the current one)
  -a, --approve / -na, --no-approve
                            trust / do not trust this project for this run only (nothing is stored);
                            --approve also approves what a permission rule asks, in runs with no one to ask
  --tui-mode <regular|fullscreen>, --use-theme <name>
                            the terminal's layout and theme for this run
  --mode <text|json|rpc>    run output: final text (default) or every event as JSON lines;
                            --mode json alone is pier run with JSON output
  --<flag> [value]          a flag an extension registers (pi's rules: a boolean flag drops the
                            word after it; an unregistered flag fails with "Unknown option")
  -v, --version             print pier's version
  -h, --help                this help

Piped stdin without a terminal is print mode, its text leading the first prompt (as pi).
Models, keys and sessions are pi's: provider API-key variables, ~/.pi/agent/models.json,
auth.json, and PI_CODING_AGENT_DIR to move the whole directory.
`;

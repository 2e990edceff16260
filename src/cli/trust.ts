/**
 * `pier trust` / `pier untrust`: the user's project trust decisions in `<agentDir>/trust.json`, the store the
 * chamber and pi ≥ 0.79 read too. Kept free of the pi SDK: these commands start in milliseconds.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { agentDir } from "../agent/paths.js";
import { decideProjectTrust } from "../extensions/trust.js";
import { previewLines, previewProjectMcp } from "../extensions/trust-mcp.js";
import { canonicalDir, TrustStore } from "../extensions/trust-store.js";
import { ArgsError } from "./args.js";

export const TRUST_HELP = `Usage:
  pier trust [dir]            trust the project (default: the current directory) and every folder below it
  pier trust --parent [dir]   trust the project's parent folder instead (the project's own entry is removed)
  pier trust --forget [dir]   remove the project's own decision (a parent folder's applies again)
  pier trust --status [dir]   what the project has that needs trust, and which decision applies
  pier trust --list           every stored decision
  pier untrust [dir]          do not trust the project (and the folders below it)

Decisions live in <agentDir>/trust.json (pi's format; pi 0.79+ shares them); the nearest folder with a
decision wins. For one run only: --approve / --no-approve. Headless runs (pier run, --mode rpc) treat an
undecided project as untrusted; the terminal asks.
`;

export async function trustCommand(command: "trust" | "untrust", argv: readonly string[]): Promise<number> {
	const { values, positionals } = parse(argv);
	if (values.help) {
		process.stdout.write(TRUST_HELP);
		return 0;
	}
	if (positionals.length > 1) throw new ArgsError(`pier ${command} takes one directory, got ${positionals.join(" ")}`);
	const modes = (["parent", "forget", "status", "list"] as const).filter((m) => values[m]);
	if (modes.length > 1) throw new ArgsError(`--${modes.join(" and --")} cannot be combined`);
	if (command === "untrust" && modes.length > 0) throw new ArgsError(`pier untrust takes no --${modes[0]}`);
	const store = new TrustStore(agentDir());
	const dir = canonicalDir(resolve(positionals[0] ?? "."));
	const say = (line: string) => process.stdout.write(`${line}\n`);

	if (values.list) {
		if (positionals.length > 0) throw new ArgsError("--list takes no directory");
		const decisions = [...store.decisions()].sort(([a], [b]) => (a < b ? -1 : 1));
		if (decisions.length === 0) say(`no decisions in ${store.file}`);
		for (const [path, trusted] of decisions) say(`${trusted ? "trusted  " : "untrusted"}  ${path}`);
		return 0;
	}
	if (values.status) {
		const decision = decideProjectTrust(dir, { agentDir: store.agentDir });
		say(`${dir}: ${decision.trusted ? "trusted" : "not trusted"}`);
		if (decision.resources.length === 0) say("  nothing in it needs trust");
		else say(`  needs trust for: ${decision.resources.join(", ")}`);
		const mcp = previewProjectMcp(dir);
		if (mcp) for (const line of previewLines(mcp)) say(`  ${line}`);
		if (decision.matchedPath) say(`  decided for ${decision.matchedPath} in ${store.file}`);
		else if (decision.undecided) say("  no decision yet: pier trust, or pier untrust");
		return 0;
	}
	if (!existsSync(dir) || !statSync(dir).isDirectory()) {
		if (!values.forget) throw new ArgsError(`${dir} is not a directory`);
	}
	if (values.forget) {
		store.set(dir, null, "pier trust --forget");
		const applies = store.entry(dir);
		say(
			`forgot the decision for ${dir}${applies ? `; ${applies.path} is ${applies.decision ? "trusted" : "untrusted"} and applies to it` : ""}`,
		);
		return 0;
	}
	if (values.parent) {
		const parent = dirname(dir);
		if (parent === dir) throw new ArgsError(`${dir} has no parent folder`);
		store.setMany(
			[
				[parent, true],
				[dir, null],
			],
			"pier trust --parent",
		);
		say(`trusted ${parent} (and every folder below it, ${dir} included)`);
		return 0;
	}
	const trusted = command === "trust";
	store.set(dir, trusted, `pier ${command}`);
	say(`${trusted ? "trusted" : "untrusted"} ${dir}${trusted ? " (and every folder below it)" : ""}`);
	return 0;
}

function parse(argv: readonly string[]) {
	try {
		return parseArgs({
			args: [...argv],
			strict: true,
			allowPositionals: true,
			options: {
				parent: { type: "boolean" },
				forget: { type: "boolean" },
				status: { type: "boolean" },
				list: { type: "boolean" },
				help: { type: "boolean", short: "h" },
			},
		});
	} catch (error) {
		throw new ArgsError((error as Error).message);
	}
}

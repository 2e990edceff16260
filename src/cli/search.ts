/**
 * `pier search <words>`: pi packages on the npm registry (`keywords:pi-package` and the words), with their
 * version, weekly downloads and whether they are installed here. The registry is npm's (see
 * extensions/catalog/registry.ts); with the registry unreachable the search fails with a message naming it, and
 * nothing else changes.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { agentDir } from "../agent/paths.js";
import { configuredIdentities } from "../extensions/catalog/installed.js";
import { MAX_QUERY_CHARS, MAX_SEARCH_SIZE, RegistryError, searchPackages } from "../extensions/catalog/registry.js";
import { ArgsError } from "./args.js";

export const SEARCH_HELP = `Usage:
  pier search [words…] [--json] [--limit N] [--cwd DIR]
                                         pi packages on the npm registry (keywords:pi-package and the words):
                                         name, version, weekly downloads, description; "installed" marks the
                                         ones configured here (user, or the project at --cwd)

The registry is npm's (npm config get registry); PIER_NPM_REGISTRY overrides it for pier. Install one with
pier install npm:<name>.
`;

const number = new Intl.NumberFormat("en-US");

export async function searchCommand(argv: readonly string[]): Promise<number> {
	let parsed: ReturnType<typeof parse>;
	try {
		parsed = parse(argv);
	} catch (error) {
		if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) throw new ArgsError((error as Error).message);
		throw error;
	}
	const { values, positionals } = parsed;
	if (values.help) {
		process.stdout.write(SEARCH_HELP);
		return 0;
	}
	const words = positionals.join(" ");
	if (words.length > MAX_QUERY_CHARS) throw new ArgsError(`search words: at most ${MAX_QUERY_CHARS} characters`);
	const limit = values.limit === undefined ? 20 : Number(values.limit);
	if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_SIZE)
		throw new ArgsError(`--limit must be a whole number from 1 to ${MAX_SEARCH_SIZE}, got ${values.limit}`);
	const cwd = resolve(values.cwd ?? process.cwd());
	let answer: Awaited<ReturnType<typeof searchPackages>>;
	try {
		answer = await searchPackages(words, { size: limit, cwd });
	} catch (error) {
		if (!(error instanceof RegistryError)) throw error;
		process.stderr.write(`pier: search: ${error.message}\n`);
		return 1;
	}
	const installed = configuredIdentities(cwd, agentDir());
	const rows = answer.results.map((r) => ({
		...r,
		installed: installed.get(`npm:${r.name}`) ?? [],
	}));
	if (values.json) {
		process.stdout.write(`${JSON.stringify({ ...answer, results: rows }, null, 2)}\n`);
		return 0;
	}
	if (rows.length === 0) {
		process.stdout.write(`No pi packages match ${JSON.stringify(words)} on ${answer.registry}.\n`);
		return 0;
	}
	const table = rows.map((r) => [
		r.name,
		r.version,
		r.weeklyDownloads === undefined ? "unknown" : number.format(r.weeklyDownloads),
		r.installed.length > 0 ? `installed (${r.installed.join(", ")})` : "",
		oneLine(r.description),
	]);
	const head = ["NAME", "VERSION", "WEEKLY", "", "DESCRIPTION"];
	const widths = head.map((h, i) => Math.max(h.length, ...table.map((row) => row[i]!.length)));
	const line = (cells: string[]) =>
		cells
			.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
			.join("  ")
			.replace(/\s+$/, "");
	process.stdout.write(`${line(head)}\n${table.map(line).join("\n")}\n`);
	const more = answer.total > rows.length ? `; ${answer.total} in all (--limit)` : "";
	process.stdout.write(
		`\n${rows.length} from ${answer.registry}${more}. ${answer.downloadsNote ?? ""}\n`.replace(/ \n$/, "\n"),
	);
	return 0;
}

function parse(argv: readonly string[]) {
	return parseArgs({
		args: [...argv],
		allowPositionals: true,
		options: {
			json: { type: "boolean" },
			limit: { type: "string" },
			cwd: { type: "string" },
			help: { type: "boolean", short: "h" },
		},
		strict: true,
	});
}

/** A description on one line, control characters out (a registry's text is not the terminal's to style). */
function oneLine(text: string): string {
	const flat = text
		// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences are what is removed
		.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
		// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
		.replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
		.replace(/\s+/g, " ")
		.trim();
	return flat.length > 100 ? `${flat.slice(0, 99)}…` : flat;
}

/** `pier grant <extension-id> <grant…>` / `pier revoke <extension-id> [grant…]`: edit the user's grants. */
import { agentDir } from "../agent/paths.js";
import { grantOverview } from "../extensions/grants/overview.js";
import { changeGrants, GrantStoreError, settingsFileOf } from "../extensions/grants/store.js";
import { GRANT_MEANING, GRANTS, type Grant, isGrant } from "../extensions/grants/vocabulary.js";
import { ArgsError } from "./args.js";

export const GRANT_HELP = `Usage:
  pier grant                          list every extension's grants
  pier grant <extension-id> <grant…>  give a QuickJS extension these powers
  pier revoke <extension-id> [grant…] take them back (all of them without a grant name)

Grants (kept in <agentDir>/settings.json, extensionHost.grants; a project's settings cannot grant):
${GRANTS.map((g) => `  ${g.padEnd(6)} ${GRANT_MEANING[g]}`).join("\n")}

Only sandboxed (QuickJS) extensions need grants: process extensions already run as your own code.
`;

function parseGrantNames(words: readonly string[]): Grant[] {
	return words.map((word) => {
		if (!isGrant(word)) throw new ArgsError(`unknown grant "${word}" (known grants: ${GRANTS.join(", ")})`);
		return word;
	});
}

function describe(dir: string, id: string, grants: readonly Grant[]): string {
	const installed = grantOverview(dir).extensions.find((e) => e.id === id);
	const note = !installed
		? ` (no extension "${id}" is installed in ${dir}/extensions; the grant applies once one with this id loads)`
		: installed.sandboxed
			? ""
			: ` (a ${installed.runtime} extension: grants change nothing for it, it already runs as your own code)`;
	return `extension "${id}" now has ${grants.length ? `the grants: ${grants.join(", ")}` : "no grants"}${note}\n`;
}

export async function grantCommand(command: "grant" | "revoke", rest: readonly string[]): Promise<number> {
	if (rest.includes("-h") || rest.includes("--help")) {
		process.stdout.write(GRANT_HELP);
		return 0;
	}
	const dir = agentDir();
	const [id, ...names] = rest;
	if (id === undefined) {
		if (command === "revoke") throw new ArgsError("revoke needs an extension id: pier revoke <extension-id> [grant…]");
		const { grants, problems } = grantOverview(dir);
		for (const problem of problems) process.stderr.write(`pier: warning: ${problem}\n`);
		const ids = Object.keys(grants).sort();
		if (ids.length === 0) process.stdout.write(`no grants in ${settingsFileOf(dir)}\n`);
		for (const each of ids) process.stdout.write(`${each}: ${grants[each]!.join(", ") || "(none)"}\n`);
		return 0;
	}
	if (id.startsWith("-")) throw new ArgsError(`unknown option ${id} (see pier ${command} --help)`);
	const wanted = parseGrantNames(names);
	if (command === "grant" && wanted.length === 0)
		throw new ArgsError(`grant needs at least one grant name (known grants: ${GRANTS.join(", ")})`);
	try {
		const now = await changeGrants(dir, id, (current) =>
			command === "grant"
				? [...current, ...wanted]
				: wanted.length === 0
					? []
					: [...current].filter((g) => !wanted.includes(g)),
		);
		process.stdout.write(describe(dir, id, now));
		return 0;
	} catch (error) {
		if (error instanceof GrantStoreError) {
			process.stderr.write(`pier: ${error.message}\n`);
			return 1;
		}
		throw error;
	}
}

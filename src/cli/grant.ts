/** `pier grant <extension> <grant…>` / `pier revoke <extension> [grant…]`: edit the user's grants. */
import { join } from "node:path";
import { agentDir } from "../agent/paths.js";
import { GrantTargetError, isPathArgument, resolveTarget } from "../extensions/grants/identity.js";
import { grantOverview, installedExtensions } from "../extensions/grants/overview.js";
import { changeGrants, GrantStoreError, settingsFileOf } from "../extensions/grants/store.js";
import { GRANT_MEANING, GRANTS, type Grant, isGrant } from "../extensions/grants/vocabulary.js";
import { ArgsError } from "./args.js";

export const GRANT_HELP = `Usage:
  pier grant                             list every extension's grants
  pier grant <extension> <grant…>        give a QuickJS extension these powers
  pier revoke <extension> [grant…]       take them back (all of them without a grant name)

<extension> is the id of an extension installed in <agentDir>/extensions, or the path of an extension's
directory (needed for one loaded with -e or from a project, or when two installed extensions share an id).

A grant is bound to the extension's directory and to a digest of its files: another extension claiming the
same id gets nothing, and an extension whose code changed loses its grants until you grant again.

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

const STATUS_NOTE = {
	current: "",
	changed: " — its code changed since: grants nothing until granted again",
	missing: " — no extension there now: grants nothing",
} as const;

function list(dir: string): number {
	const { grants, problems } = grantOverview(dir);
	for (const problem of problems) process.stderr.write(`pier: warning: ${problem}\n`);
	const ids = Object.keys(grants).sort();
	if (ids.length === 0) process.stdout.write(`no grants in ${settingsFileOf(dir)}\n`);
	for (const id of ids) {
		const g = grants[id]!;
		process.stdout.write(`${id}: ${g.grants.join(", ") || "(none)"} (${g.dir})${STATUS_NOTE[g.status]}\n`);
	}
	return 0;
}

export async function grantCommand(command: "grant" | "revoke", rest: readonly string[]): Promise<number> {
	if (rest.includes("-h") || rest.includes("--help")) {
		process.stdout.write(GRANT_HELP);
		return 0;
	}
	const dir = agentDir();
	const [target, ...names] = rest;
	if (target === undefined) {
		if (command === "revoke") throw new ArgsError("revoke needs an extension: pier revoke <extension> [grant…]");
		return list(dir);
	}
	if (target.startsWith("-")) throw new ArgsError(`unknown option ${target} (see pier ${command} --help)`);
	const wanted = parseGrantNames(names);
	if (command === "grant" && wanted.length === 0)
		throw new ArgsError(`grant needs at least one grant name (known grants: ${GRANTS.join(", ")})`);
	try {
		const installed = installedExtensions(dir);
		// Revoking by id needs nothing installed: it only ever takes power away.
		const identity =
			command === "grant" || isPathArgument(target)
				? resolveTarget(target, process.cwd(), installed, join(dir, "extensions"))
				: undefined;
		const id = identity?.id ?? target;
		const now = await changeGrants(
			dir,
			id,
			(current) =>
				command === "grant"
					? [...current, ...wanted]
					: wanted.length === 0
						? []
						: [...current].filter((g) => !wanted.includes(g)),
			command === "grant" ? identity : undefined,
		);
		const note =
			identity && identity.runtime !== "quickjs"
				? ` (a ${identity.runtime} extension: grants change nothing for it, it already runs as your own code)`
				: "";
		const where = identity ? ` in ${identity.dir}` : "";
		process.stdout.write(
			`extension "${id}"${where} now has ${now.length ? `the grants: ${now.join(", ")}` : "no grants"}${note}\n`,
		);
		return 0;
	} catch (error) {
		if (error instanceof GrantStoreError || error instanceof GrantTargetError) {
			process.stderr.write(`pier: ${error.message}\n`);
			return 1;
		}
		throw error;
	}
}

/**
 * Grants (REFERENCES decision 12): powers a user gives one extension on top of what its manifest declares.
 * Only a sandboxed (QuickJS) extension needs them: the sandbox withholds running commands, writing and
 * reading files and the network, and a hook answer that would make pi do one of those for it is exactly such
 * a power.
 * Process (and native) extensions are arbitrary code already; grants change nothing for them.
 */

export const GRANTS = ["run", "write", "read", "net"] as const;
export type Grant = (typeof GRANTS)[number];

export const isGrant = (value: unknown): value is Grant => (GRANTS as readonly unknown[]).includes(value);

/** What a tool does with the machine, as protocol tools declare it (`capability`). */
export type ToolPower = "exec" | "write" | "read";

export const GRANT_FOR: Record<ToolPower, Grant> = { exec: "run", write: "write", read: "read" };

/**
 * pi's built-in tools, for a name pi's own tool still holds (an extension's tool of the same name replaces it).
 * A Map: a tool named "constructor" or "__proto__" must not find anything on a prototype.
 */
export const BUILTIN_TOOL_POWER: ReadonlyMap<string, ToolPower> = new Map([
	["bash", "exec"],
	["write", "write"],
	["edit", "write"],
	["read", "read"],
	["grep", "read"],
	["find", "read"],
	["ls", "read"],
]);

/** What each grant allows, for help texts and the chamber. */
export const GRANT_MEANING: Record<Grant, string> = {
	run: "replace the input of tools that run commands (bash, exec tools) and answer the user's ! commands",
	write: "replace the input of tools that write files (write, edit, write tools)",
	read: "replace the input of tools that read files (read, grep, find, ls, read tools) and add resource paths",
	net: "change the request sent to the model provider (it goes with your credentials, and provider-side tools can fetch URLs)",
};

/** The one sentence a denial is reported with, to the user and to the extension (Deno-style). */
export function denialMessage(
	extensionId: string,
	what: string,
	grant: Grant,
	target = extensionId,
	note = "",
): string {
	return `extension "${extensionId}" may not ${what}: it lacks the "${grant}" grant${note ? ` (${note})` : ""} (grant it with: pier grant ${target} ${grant})`;
}

/** Canonical order, without duplicates. */
export function sortedGrants(grants: Iterable<Grant>): Grant[] {
	const set = new Set(grants);
	return GRANTS.filter((g) => set.has(g));
}

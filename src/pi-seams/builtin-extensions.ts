/**
 * The extensions pi's CLI builds in (`extensions/index.js`, not exported): llama.cpp, codemode, tool search and
 * MCP. pi's `main()` puts them in front of its own extension factories, and its resource loader then treats each
 * as the resource `builtin:<name>`: loaded by default, turned off by `-builtin:<name>` in the `extensions` setting,
 * by `--no-extensions` or (for MCP) `--no-mcp`. pier hands them to the same loader the same way, so a session in
 * pier has pi's `/mcp`, `/llama`, codemode and `tool_search`.
 */
import type { InlineExtension } from "@earendil-works/pi-coding-agent";
import { Findings, loadForCheck, piModule, type Seam } from "./seam.js";

const INDEX = "dist/extensions/index.js";

/** How pi's resource loader names a built-in extension's path (`builtin:mcp`; pi's `BUILTIN_PATH_PREFIX`). */
export const BUILTIN_PATH_PREFIX = "builtin:";

/** What pi's list holds: the named, built-in form of an inline extension. */
export type BuiltinExtension = Exclude<InlineExtension, (...args: never[]) => unknown> & { builtin: true };

interface BuiltinIndex {
	builtInExtensions: BuiltinExtension[];
}

/** pi's built-in extensions, in pi's order. */
export async function piBuiltinExtensions(): Promise<BuiltinExtension[]> {
	return (await piModule<BuiltinIndex>(INDEX)).builtInExtensions;
}

const id = { name: "builtin-extensions", file: "src/pi-seams/builtin-extensions.ts" };

export const seam: Seam = {
	...id,
	members: [
		"extensions/index.js (unexported): builtInExtensions, a list of { name, factory, builtin: true }",
		"core/source-info.js: BUILTIN_PATH_PREFIX ('builtin:')",
	],
	async check(roots) {
		const findings = new Findings(id);
		const module = await loadForCheck<Partial<BuiltinIndex>>(findings, roots.codingAgent, INDEX);
		if (module) {
			const list = module.builtInExtensions;
			if (!Array.isArray(list)) findings.add(`${INDEX} export builtInExtensions is missing`);
			else
				for (const [index, entry] of list.entries()) {
					const label = `${INDEX} builtInExtensions[${index}]`;
					if (typeof entry?.name !== "string") findings.add(`${label} has no name`);
					findings.fn(entry, "factory", `${label}.factory`);
					if (entry?.builtin !== true) findings.add(`${label} is not marked builtin`);
				}
		}
		const sourceInfo = await loadForCheck<{ BUILTIN_PATH_PREFIX?: unknown }>(
			findings,
			roots.codingAgent,
			"dist/core/source-info.js",
		);
		if (sourceInfo && sourceInfo.BUILTIN_PATH_PREFIX !== BUILTIN_PATH_PREFIX)
			findings.add(
				`dist/core/source-info.js BUILTIN_PATH_PREFIX is ${JSON.stringify(sourceInfo.BUILTIN_PATH_PREFIX)}, not "${BUILTIN_PATH_PREFIX}"`,
			);
		findings.done();
	},
};

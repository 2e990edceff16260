/**
 * Which extension registered the renderer pi uses for a message type, an entry type or a tool: the chamber names it
 * when the renderer fails. pi's runner keeps its extensions in a private field (`ExtensionRunner.extensions`) and
 * answers only with the renderer, not its owner; this reads the field with pi's own lookup order (first
 * registration wins for message and entry renderers; tool renderer resolvers chain in load order).
 */
import type { ExtensionRunner, ToolRenderers } from "@earendil-works/pi-coding-agent";
import { Findings, type PiRoots, type Seam } from "./seam.js";

type ToolResolver = (name: string, next: () => ToolRenderers | undefined) => ToolRenderers | undefined;

interface RunnerExtension {
	path: string;
	tools: Map<string, { definition?: ToolRenderers }>;
	messageRenderers: Map<string, unknown>;
	entryRenderers?: Map<string, unknown>;
	toolRenderers?: ToolResolver[];
}

function extensionsOf(runner: ExtensionRunner): RunnerExtension[] {
	const list = (runner as unknown as { extensions?: unknown }).extensions;
	return Array.isArray(list) ? (list as RunnerExtension[]) : [];
}

/** The path of the extension whose message renderer pi uses for `customType`. */
export function messageRendererOwner(runner: ExtensionRunner, customType: string): string | undefined {
	return extensionsOf(runner).find((ext) => ext.messageRenderers?.has(customType))?.path;
}

/** The path of the extension whose entry renderer pi uses for `customType`. */
export function entryRendererOwner(runner: ExtensionRunner, customType: string): string | undefined {
	return extensionsOf(runner).find((ext) => ext.entryRenderers?.has(customType))?.path;
}

/**
 * The path of the extension that gave `name`'s renderers, as pi resolves them (`resolveToolRenderers`): the first
 * resolver (load order) that answered something other than what the rest of the chain gave, else the extension
 * that registered the tool with a `renderCall` or `renderResult`; undefined when pi's own renderers draw it.
 */
export function toolRendererOwner(
	runner: ExtensionRunner,
	name: string,
	base: () => ToolRenderers | undefined,
): string | undefined {
	const extensions = extensionsOf(runner);
	const resolvers = extensions.flatMap((ext) => (ext.toolRenderers ?? []).map((resolve) => ({ ext, resolve })));
	let owner: string | undefined;
	const chain = (index: number): ToolRenderers | undefined => {
		const step = resolvers[index];
		if (!step) return base();
		let fromNext: ToolRenderers | undefined;
		let askedNext = false;
		const answer = step.resolve(name, () => {
			askedNext = true;
			fromNext = chain(index + 1);
			return fromNext;
		});
		if (owner === undefined && answer !== undefined && (!askedNext || answer !== fromNext)) owner = step.ext.path;
		return answer;
	};
	chain(0);
	if (owner !== undefined) return owner;
	for (const ext of extensions) {
		const tool = ext.tools?.get(name);
		if (!tool) continue;
		return tool.definition?.renderCall || tool.definition?.renderResult ? ext.path : undefined;
	}
	return undefined;
}

const RUNNER = "dist/core/extensions/runner.js";
const id = { name: "renderer-owners", file: "src/pi-seams/renderer-owners.ts" };

export const seam: Seam = {
	...id,
	members: [
		"core/extensions/runner.js ExtensionRunner (private): extensions[] with path, tools, messageRenderers, entryRenderers, toolRenderers",
	],
	async check(roots: PiRoots) {
		const findings = new Findings(id);
		const root = roots.codingAgent;
		findings.calls(root, RUNNER, "this.extensions = extensions");
		findings.calls(root, RUNNER, "ext.messageRenderers.get(customType)");
		findings.calls(root, RUNNER, "ext.entryRenderers?.get(customType)");
		findings.calls(root, RUNNER, "ext.toolRenderers ?? []");
		findings.done();
	},
};

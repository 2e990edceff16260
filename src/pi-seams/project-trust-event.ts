/**
 * pi 1.6's `project_trust` event for in-process extensions, fired as pi fires it: `emitProjectTrustEvent`
 * (`core/extensions/runner.js`: every handler in load order, the first `yes` or `no` wins, a throwing handler is
 * reported and skipped) with the context pi's CLI gives it (`cli/project-trust.js` `createProjectTrustContext`: in
 * the terminal, `ctx.ui.select`/`input`/`confirm` are pi's start-up selectors; elsewhere they answer nothing and
 * `notify` writes to stderr). Neither module is exported.
 */
import type { LoadExtensionsResult, ProjectTrustEventResult, SettingsManager } from "@earendil-works/pi-coding-agent";
import { moduleExports, piModule, type Seam } from "./seam.js";

const RUNNER = "dist/core/extensions/runner.js";
const CONTEXT = "dist/cli/project-trust.js";

export interface ProjectTrustContextOptions {
	cwd: string;
	/** pi's app mode: `interactive` shows pi's selectors, `print`, `json` and `rpc` do not. */
	mode: "interactive" | "print" | "json" | "rpc";
	settingsManager: SettingsManager;
	hasUI: boolean;
}

interface Runner {
	emitProjectTrustEvent(
		extensions: LoadExtensionsResult,
		event: { type: "project_trust"; cwd: string },
		ctx: unknown,
	): Promise<{ result?: ProjectTrustEventResult; errors: Array<{ extensionPath: string; error: string }> }>;
}

interface ContextModule {
	createProjectTrustContext(options: ProjectTrustContextOptions): unknown;
}

export interface ProjectTrustAnswer {
	/** The first handler's `yes` or `no`; undefined when every handler left it undecided. */
	result?: ProjectTrustEventResult;
	/** Handlers that threw, as pi words them. */
	errors: string[];
}

/** Asks the `project_trust` handlers of `extensions` about `options.cwd`, as pi's CLI asks them. */
export async function emitProjectTrust(
	extensions: LoadExtensionsResult,
	options: ProjectTrustContextOptions,
): Promise<ProjectTrustAnswer> {
	const [runner, context] = await Promise.all([piModule<Runner>(RUNNER), piModule<ContextModule>(CONTEXT)]);
	const ctx = context.createProjectTrustContext(options);
	const { result, errors } = await runner.emitProjectTrustEvent(
		extensions,
		{ type: "project_trust", cwd: options.cwd },
		ctx,
	);
	return {
		...(result ? { result } : {}),
		errors: errors.map((e) => `Extension "${e.extensionPath}" project_trust error: ${e.error}`),
	};
}

const id = { name: "project-trust-event", file: "src/pi-seams/project-trust-event.ts" };

export const seam: Seam = {
	...id,
	members: [
		"core/extensions/runner.js (unexported): emitProjectTrustEvent(extensionsResult, event, ctx)",
		"cli/project-trust.js (unexported): createProjectTrustContext({cwd, mode, settingsManager, hasUI})",
	],
	check: moduleExports(id, (roots) => roots.codingAgent, {
		[RUNNER]: { emitProjectTrustEvent: 3 },
		[CONTEXT]: { createProjectTrustContext: 1 },
	}),
};

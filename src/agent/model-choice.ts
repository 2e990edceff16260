/**
 * Which model a session starts with, decided exactly as pi's CLI decides it: pi's own resolver
 * (`--model` fuzzy and glob patterns, `provider/id`, `--provider`, `:<thinking>` suffixes, `--models`
 * scopes with the saved default preferred), not a copy of its rules.
 */
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import {
	type ModelRuntime,
	resolveCliModel,
	resolveModelScopeWithDiagnostics,
	type ScopedModel,
	type SettingsManager,
} from "@earendil-works/pi-coding-agent";

export interface ModelRequest {
	/** `--model <pattern>` (`provider/id`, a bare id, a fuzzy or glob pattern, optionally `:<thinking>`). */
	model?: string;
	/** `--provider <name>`: where a bare `--model` pattern is looked up. */
	provider?: string;
	/** `--models a,b`: the scope Ctrl+P cycles through; its first model starts when `--model` is absent. */
	models?: string[];
	/** `--thinking`: wins over a pattern's `:<thinking>`. */
	thinking?: ThinkingLevel;
	/** `--api-key` was given: a unique match resolves without stored credentials. */
	inlineApiKey?: boolean;
	/** Whether the session already has messages (a resumed session keeps its own model). */
	hasMessages: boolean;
}

export interface ModelChoice {
	model?: ScopedModel["model"];
	thinkingLevel?: ThinkingLevel;
	scopedModels: ScopedModel[];
	warnings: string[];
	/** pi's error text (an unknown model, an unknown provider); the caller ends the run on it. */
	error?: string;
}

export async function chooseModel(
	request: ModelRequest,
	runtime: ModelRuntime,
	settings: SettingsManager,
): Promise<ModelChoice> {
	const choice: ModelChoice = { scopedModels: [], warnings: [] };
	const patterns = request.models ?? settings.getEnabledModels();
	if (patterns && patterns.length > 0) {
		const scope = await resolveModelScopeWithDiagnostics(patterns, runtime, { signal: AbortSignal.timeout(15_000) });
		choice.scopedModels = scope.scopedModels;
		for (const diagnostic of scope.diagnostics) choice.warnings.push(diagnostic.message);
	}
	if (request.model) {
		const resolved = resolveCliModel({
			...(request.provider !== undefined ? { cliProvider: request.provider } : {}),
			cliModel: request.model,
			...(request.thinking !== undefined ? { cliThinking: request.thinking } : {}),
			...(request.inlineApiKey ? { inlineApiKey: true } : {}),
			modelRuntime: runtime,
		});
		if (resolved.warning) choice.warnings.push(resolved.warning);
		if (resolved.error) choice.error = resolved.error;
		if (resolved.model) {
			choice.model = resolved.model;
			if (resolved.thinkingLevel) choice.thinkingLevel = resolved.thinkingLevel;
		}
	} else if (choice.scopedModels.length > 0 && !request.hasMessages) {
		// As pi: the saved default if it is in scope, else the scope's first model.
		const provider = settings.getDefaultProvider();
		const id = settings.getDefaultModel();
		const saved = provider && id ? runtime.getModel(provider, id) : undefined;
		const inScope =
			(saved && choice.scopedModels.find((s) => s.model.provider === saved.provider && s.model.id === saved.id)) ||
			choice.scopedModels[0]!;
		choice.model = inScope.model;
		if (inScope.thinkingLevel) choice.thinkingLevel = inScope.thinkingLevel;
	}
	if (request.thinking) choice.thinkingLevel = request.thinking;
	return choice;
}

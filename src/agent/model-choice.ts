/**
 * Which model a session starts with, decided exactly as pi's CLI decides it: pi's own resolver
 * (`--model` fuzzy and glob patterns, `provider/id`, `--provider`, `:<thinking>` suffixes, `--models`
 * scopes with the saved default preferred), not a copy of its rules.
 */
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { Api, Model } from "@earendil-works/pi-ai";
import type { ModelRegistry, SettingsManager } from "@earendil-works/pi-coding-agent";
import { piModule } from "./pi-internals.js";

interface ScopedModel {
	model: Model<Api>;
	thinkingLevel?: ThinkingLevel;
}

interface PiModelResolver {
	resolveCliModel(options: { cliProvider?: string; cliModel?: string; modelRegistry: ModelRegistry }): {
		model: Model<Api> | undefined;
		thinkingLevel?: ThinkingLevel;
		warning: string | undefined;
		error: string | undefined;
	};
	resolveModelScope(patterns: string[], modelRegistry: ModelRegistry): Promise<ScopedModel[]>;
}

let resolver: Promise<PiModelResolver> | undefined;

function piResolver(): Promise<PiModelResolver> {
	resolver ??= piModule<PiModelResolver>("./core/model-resolver.js");
	return resolver;
}

export interface ModelRequest {
	/** `--model <pattern>` (`provider/id`, a bare id, a fuzzy or glob pattern, optionally `:<thinking>`). */
	model?: string;
	/** `--provider <name>`: where a bare `--model` pattern is looked up. */
	provider?: string;
	/** `--models a,b`: the scope Ctrl+P cycles through; its first model starts when `--model` is absent. */
	models?: string[];
	/** `--thinking`: wins over a pattern's `:<thinking>`. */
	thinking?: ThinkingLevel;
	/** Whether the session already has messages (a resumed session keeps its own model). */
	hasMessages: boolean;
}

export interface ModelChoice {
	model?: Model<Api>;
	thinkingLevel?: ThinkingLevel;
	scopedModels: ScopedModel[];
	warnings: string[];
	/** pi's error text (an unknown model, an unknown provider); the caller ends the run on it. */
	error?: string;
}

export async function chooseModel(
	request: ModelRequest,
	registry: ModelRegistry,
	settings: SettingsManager,
): Promise<ModelChoice> {
	const pi = await piResolver();
	const choice: ModelChoice = { scopedModels: [], warnings: [] };
	const patterns = request.models ?? settings.getEnabledModels();
	if (patterns && patterns.length > 0) choice.scopedModels = await pi.resolveModelScope(patterns, registry);
	if (request.model) {
		const resolved = pi.resolveCliModel({
			...(request.provider !== undefined ? { cliProvider: request.provider } : {}),
			cliModel: request.model,
			modelRegistry: registry,
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
		const saved = provider && id ? registry.find(provider, id) : undefined;
		const inScope =
			(saved && choice.scopedModels.find((s) => s.model.provider === saved.provider && s.model.id === saved.id)) ||
			choice.scopedModels[0]!;
		choice.model = inScope.model;
		if (inScope.thinkingLevel) choice.thinkingLevel = inScope.thinkingLevel;
	}
	if (request.thinking) choice.thinkingLevel = request.thinking;
	return choice;
}

/**
 * The one place a pier session is made. `pier run`, the terminal, RPC mode, the
 * chamber and library embedders all come through here, so every extension kind
 * wired in here works in every mode.
 */
import { mkdirSync } from "node:fs";
import { auditFile } from "../audit/audit-log.js";
import { resolve } from "node:path";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import type { PierRuntime, PierSessionOptions, SessionTarget } from "./session-types.js";
import {
	type AgentSessionRuntime,
	type AgentSessionRuntimeDiagnostic,
	type CreateAgentSessionRuntimeFactory,
	createAgentSessionFromServices,
	createAgentSessionRuntime,
	createAgentSessionServices,
	type LoadExtensionsResult,
	ModelRuntime,
	SessionManager,
	type ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import { lazyProtocolBridge } from "../extensions/bridge/lazy.js";
import { describePiLoadError, sdkToolConflicts } from "../extensions/bridge/tool-conflicts.js";
import { grantLookup } from "../extensions/grants/lookup.js";
import { takeRefusals } from "../extensions/pi-load-guard.js";
import {
	decideProjectTrust,
	decisionAtReload,
	projectContentAllowed,
	type TrustDecision,
} from "../extensions/trust.js";
import { resourceOverridesForTrust, settingsForTrust, syncProjectTrust } from "../extensions/trust-settings.js";
import { canonicalDir, TrustStoreError } from "../extensions/trust-store.js";
import { aroundResourceReload } from "../pi-seams/resource-reload.js";
import { loadRules } from "../permissions/load.js";
import { gateSession } from "../permissions/session-gate.js";
import { installDemoModel } from "./demo-model.js";
import { telemetryOffUnlessChosen } from "./telemetry.js";
import { chooseModel } from "./model-choice.js";
import { acquireSessionLease, type SessionLease, SessionInUseError } from "./session-lease.js";
import { startProtocolExtensions } from "./protocol-start.js";
import { decideWithInProcessExtensions } from "./in-process-trust.js";
import { agentDir as defaultAgentDir, expandTilde, sessionDirFor } from "./paths.js";
import { sessionBuiltins } from "./builtin-extensions.js";

export type { PierRuntime, PierSessionOptions, SessionTarget } from "./session-types.js";

/** A failure that should end the command with a message, not a stack trace. */
export class PierUsageError extends Error {
	override name = "PierUsageError";
	/** 2 for pier's own usage errors; 1 where pi's CLI exits 1 on the same mistake (an unknown model). */
	constructor(
		message: string,
		readonly exitCode: 1 | 2 = 2,
	) {
		super(message);
	}
}

function asToolDefinition(tool: AgentTool): ToolDefinition {
	return {
		name: tool.name,
		label: tool.label,
		description: tool.description,
		parameters: tool.parameters,
		...(tool.prepareArguments ? { prepareArguments: tool.prepareArguments } : {}),
		...(tool.executionMode ? { executionMode: tool.executionMode } : {}),
		execute: (id, params, signal, onUpdate) => tool.execute(id, params, signal, onUpdate),
	};
}

function sessionManagerFor(target: SessionTarget, cwd: string, sessionDir: string, id?: string): SessionManager {
	const withId = id !== undefined ? { id } : undefined;
	switch (target.kind) {
		case "memory":
			return SessionManager.inMemory(cwd, withId);
		case "open":
			return SessionManager.open(resolve(cwd, target.file), sessionDir);
		case "fork":
			if (id !== undefined && SessionManager.findById(cwd, id, sessionDir))
				throw new PierUsageError(`a session with id '${id}' already exists`, 1);
			return SessionManager.forkFrom(resolve(cwd, target.file), cwd, sessionDir, withId);
		case "continue":
			return SessionManager.continueRecent(cwd, sessionDir);
		case "new": {
			// As pi: --session-id opens this project's session of that id, else starts one with it.
			const existing = id !== undefined ? SessionManager.findById(cwd, id, sessionDir) : undefined;
			if (existing) return SessionManager.open(existing, sessionDir);
			return SessionManager.create(cwd, sessionDir, withId);
		}
	}
}

export async function createPierRuntime(options: PierSessionOptions = {}): Promise<PierRuntime> {
	const cwd = resolve(options.cwd ?? process.cwd());
	const agentDir = options.agentDir ? resolve(options.agentDir) : defaultAgentDir();
	const sessionDir = options.sessionDir ? resolve(expandTilde(options.sessionDir)) : sessionDirFor(cwd, agentDir);
	mkdirSync(sessionDir, { recursive: true });
	let trust = initialTrust(cwd, agentDir, options.approve);
	const customTools = (options.tools ?? []).map(asToolDefinition);
	// The terminal's question waits for the user's in-process extensions' project_trust handlers (in-process-trust.ts).
	const started = await startProtocolExtensions({ ...options, askProjectTrust: undefined }, cwd, agentDir, trust);
	const { extensionHost, piExtensionPaths, startupDiagnostics, reloadProtocolExtensions, report, packages } = started;
	const piErrors = new WeakSet<AgentSessionRuntimeDiagnostic>();
	trust = started.trust;
	const requested = providerModelRef(options.model, options.provider);
	const { builtins, mcp } = await sessionBuiltins(options.onMcpConfigErrors);
	// Always bridged, even when empty: a /reload may bring protocol extensions in later.
	const extensionFactories = [
		...(options.extensionFactories ?? []),
		lazyProtocolBridge(extensionHost, {
			grants: grantLookup(agentDir),
			auditFile: auditFile(agentDir),
			...(requested ? { requestedModel: requested } : {}),
		}),
	];

	// One writer per session file (session-lease.ts): the lease follows the runtime's current file
	// across /new, /resume and forks, and is released when the runtime ends.
	let lease: SessionLease | undefined;
	const leaseHolder = `pier ${options.leaseHolder ?? options.mode ?? "session"}`;
	let trustAsked = false;
	const createRuntime: CreateAgentSessionRuntimeFactory = async ({
		cwd,
		agentDir,
		sessionManager,
		sessionStartEvent,
	}) => {
		const file = sessionManager.getSessionFile();
		if (file && file !== lease?.file) {
			let next: SessionLease;
			try {
				next = acquireSessionLease(file, leaseHolder);
			} catch (error) {
				if (error instanceof SessionInUseError)
					throw Object.assign(new PierUsageError(error.message, 1), { cause: error });
				throw error;
			}
			lease?.release();
			lease = next;
		}
		const modelRuntime = await pierModelRuntime(agentDir);
		// A session switched to another project (/resume, /new in another cwd) gets that project's own decision,
		// never the first one's (no hooks or question here: undecided stays untrusted).
		let here = canonicalDir(cwd) === trust.cwd ? trust : initialTrust(cwd, agentDir, options.approve);
		const settingsManager = settingsForTrust({
			cwd,
			agentDir,
			trust: () => here,
			// Read at every settings access: a /reload re-resolves packages.
			get packages() {
				return packages();
			},
		});
		telemetryOffUnlessChosen(settingsManager);
		// The bridge is the last inline factory: pi names it by that slot (built-ins are named builtin:<name>).
		const bridgePath = `<inline:${extensionFactories.length}>`;
		const undecided = here === trust && trust.undecided && !trustAsked ? trust : undefined;
		const resolveProjectTrust = async ({ extensionsResult }: { extensionsResult: LoadExtensionsResult }) => {
			trustAsked = true;
			const decided = await decideWithInProcessExtensions(extensionsResult, {
				decision: here,
				agentDir,
				mode: options.mode,
				settingsManager,
				bridgePath,
				...(options.askProjectTrust ? { askProjectTrust: options.askProjectTrust } : {}),
				report: (message) => startupDiagnostics.push({ type: "warning", message }),
			});
			if (decided !== here) {
				trust = here = decided;
				syncProjectTrust(settingsManager, () => here);
				if (decided.trusted) await reloadProtocolExtensions(trust);
			}
			return projectContentAllowed(here);
		};
		const services = await createAgentSessionServices({
			cwd,
			agentDir,
			modelRuntime,
			settingsManager,
			...(undecided ? { resourceLoaderReloadOptions: { resolveProjectTrust } } : {}),
			...(options.extensionFlags ? { extensionFlagValues: options.extensionFlags } : {}),
			resourceLoaderOptions: {
				additionalExtensionPaths: piExtensionPaths,
				// pi's built-ins go first, as in pi's main(); the loader keeps them apart from the inline factories.
				extensionFactories: [...builtins, ...extensionFactories],
				noExtensions: options.noExtensions ?? false,
				...(options.noMcp ? { disabledBuiltinExtensions: ["mcp"] } : {}),
				...resourceOptions(options, cwd),
				...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
				...(options.appendSystemPrompt ? { appendSystemPrompt: options.appendSystemPrompt } : {}),
				...resourceOverridesForTrust({ cwd, agentDir, trust: () => here }, options),
			},
		});
		// pi's /reload re-runs its resource loader; protocol extensions restart first, as a new
		// generation that replaces the old one only if every extension of it started.
		aroundResourceReload(services.resourceLoader, async (reloadResources) => {
			// What appeared in the project since its decision is decided now, before anything of it loads.
			const next = initialTrust(cwd, agentDir, options.approve, here);
			if (next !== here && !next.trusted && next.reason) report({ type: "warning", message: next.reason });
			if (here === trust) trust = next;
			here = next;
			syncProjectTrust(settingsManager, () => here);
			await reloadProtocolExtensions(trust);
			await reloadResources();
			for (const message of takeRefusals(settingsManager)) report({ type: "warning", message });
		});
		// The undecided project's line ("not trusted (no decision yet)") no longer holds once it was decided.
		const stale = undecided && here !== undecided ? undecided.reason : undefined;
		if (here !== undecided && undecided && here.reason)
			startupDiagnostics.push({ type: here.trusted ? "info" : "warning", message: here.reason });
		const diagnostics: AgentSessionRuntimeDiagnostic[] = [
			...startupDiagnostics.filter((d) => d.message !== stale),
			...services.diagnostics,
		];
		for (const d of services.diagnostics) if (d.type === "error") piErrors.add(d);
		for (const message of takeRefusals(settingsManager)) diagnostics.push({ type: "warning", message });
		const modelsError = modelRuntime.getError();
		if (modelsError) diagnostics.push({ type: "error", message: `models.json: ${modelsError}` });
		for (const error of services.resourceLoader.getExtensions().errors) {
			const diagnostic = describePiLoadError(extensionHost, bridgePath, error);
			if (diagnostic.type === "error") piErrors.add(diagnostic);
			diagnostics.push(diagnostic);
		}
		for (const message of sdkToolConflicts(
			extensionHost,
			customTools.map((t) => t.name),
		))
			diagnostics.push({ type: "warning", message });

		const choice = await chooseModel(
			{
				...(options.model !== undefined ? { model: options.model } : {}),
				...(options.provider !== undefined ? { provider: options.provider } : {}),
				...(options.models ? { models: options.models } : {}),
				...(options.thinkingLevel ? { thinking: options.thinkingLevel } : {}),
				...(options.apiKey ? { inlineApiKey: true } : {}),
				hasMessages: sessionManager.buildSessionContext().messages.length > 0,
			},
			modelRuntime,
			services.settingsManager,
		);
		for (const message of choice.warnings) diagnostics.push({ type: "warning", message });
		if (choice.error) {
			const known = modelRuntime
				.getAvailableSnapshot()
				.map((m) => `${m.provider}/${m.id}`)
				.slice(0, 20);
			throw new PierUsageError(`${choice.error} Models with credentials: ${known.join(", ")}`, 1);
		}
		const model = choice.model;
		if (options.apiKey) {
			if (!model)
				throw new PierUsageError(
					"--api-key requires a model to be specified via --model, --provider/--model, or --models",
					1,
				);
			await modelRuntime.setRuntimeApiKey(model.provider, options.apiKey);
		}
		const created = await createAgentSessionFromServices({
			services,
			sessionManager,
			...(sessionStartEvent ? { sessionStartEvent } : {}),
			...(model ? { model } : {}),
			...(choice.thinkingLevel ? { thinkingLevel: choice.thinkingLevel } : {}),
			...(choice.scopedModels.length > 0 ? { scopedModels: choice.scopedModels } : {}),
			...(options.toolNames ? { tools: options.toolNames } : {}),
			...(options.noTools ? { noTools: options.noTools } : {}),
			...(options.excludeTools ? { excludeTools: options.excludeTools } : {}),
			customTools,
		});
		// Permission rules: after every hook, on what the tool really runs (src/permissions/).
		gateSession(created.session, {
			cwd,
			agentDir,
			trusted: () => projectContentAllowed(here),
			approve: options.approve === true,
			auditFile: auditFile(agentDir),
		});
		const permissions = loadRules(cwd, projectContentAllowed(here), agentDir);
		for (const message of permissions.diagnostics) diagnostics.push({ type: "warning", message });
		for (const message of permissions.blocking)
			diagnostics.push({ type: "error", message: `${message} (until then every tool call is refused)` });
		return { ...created, services, diagnostics };
	};

	let runtime: AgentSessionRuntime;
	try {
		runtime = await createAgentSessionRuntime(createRuntime, {
			cwd,
			agentDir,
			sessionManager: initialSessionManager(options, cwd, sessionDir),
		});
	} catch (error) {
		// No session to dispose: the extensions already started (processes, workers) must end here, or they
		// keep pier alive after its error (an unknown --model).
		await extensionHost.shutdown("session not created");
		lease?.release();
		throw error;
	}
	return {
		runtime,
		diagnostics: [...runtime.diagnostics],
		piErrors: runtime.diagnostics.filter((d) => piErrors.has(d)),
		get trust() {
			return trust;
		},
		extensionHost,
		mcp,
		dispose: async () => {
			await runtime.dispose();
			lease?.release();
			await extensionHost.shutdown("session ended");
		},
	};
}

function initialSessionManager(options: PierSessionOptions, cwd: string, sessionDir: string): SessionManager {
	const manager = sessionManagerFor(options.session ?? { kind: "new" }, cwd, sessionDir, options.sessionId);
	if (options.sessionName !== undefined) manager.appendSessionInfo(options.sessionName);
	return manager;
}

/**
 * `--model provider/id` (or `--provider p --model id`) as a protocol provider without a model list needs it:
 * it offers the id asked for. A `:<thinking>` suffix is pi's, not the id's.
 */
function providerModelRef(model: string | undefined, provider: string | undefined) {
	if (!model) return undefined;
	const slash = model.indexOf("/");
	const [p, rest] = slash > 0 ? [model.slice(0, slash), model.slice(slash + 1)] : [provider, model];
	if (!p || !rest) return undefined;
	const id = rest.replace(/:(off|minimal|low|medium|high|xhigh)$/, "");
	return { provider: p, id };
}

/** pi's resource switches and extra paths, resolved against the session's directory as pi's CLI resolves them. */
function resourceOptions(options: PierSessionOptions, cwd: string) {
	const paths = (list: string[] | undefined) =>
		list && list.length > 0 ? list.map((path) => resolve(cwd, expandTilde(path))) : undefined;
	const skills = paths(options.skillPaths);
	const prompts = paths(options.promptTemplatePaths);
	const themes = paths(options.themePaths);
	return {
		...(skills ? { additionalSkillPaths: skills } : {}),
		...(prompts ? { additionalPromptTemplatePaths: prompts } : {}),
		...(themes ? { additionalThemePaths: themes } : {}),
		...(options.noSkills ? { noSkills: true } : {}),
		...(options.noPromptTemplates ? { noPromptTemplates: true } : {}),
		...(options.noThemes ? { noThemes: true } : {}),
		...(options.noContextFiles ? { noContextFiles: true } : {}),
	};
}

/** The decision at start, or at a reload when `current` is given. */
function initialTrust(
	cwd: string,
	agentDir: string,
	approve: boolean | undefined,
	current?: TrustDecision,
): TrustDecision {
	const options = { agentDir, ...(approve !== undefined ? { approve } : {}) };
	try {
		return current ? decisionAtReload(current, options) : decideProjectTrust(cwd, options);
	} catch (error) {
		// A corrupt store is never "trusted", and never silently "untrusted" either: the user must fix it.
		if (error instanceof TrustStoreError) throw new PierUsageError(error.message);
		throw error;
	}
}

/**
 * pi's model runtime over the agent directory's auth.json and models.json, with pier/demo registered. Catalogs
 * are never fetched over the network here (pi's own CLI does the same), so a session starts offline.
 */
export async function pierModelRuntime(agentDir: string): Promise<ModelRuntime> {
	const runtime = await ModelRuntime.create({
		authPath: `${agentDir}/auth.json`,
		modelsPath: `${agentDir}/models.json`,
		allowModelNetwork: false,
		signal: AbortSignal.timeout(15_000),
	});
	installDemoModel(runtime);
	return runtime;
}

/** What a new session could use: every model with credentials, pier/demo included. */
export async function availableModels(dir: string = defaultAgentDir()) {
	return (await pierModelRuntime(dir)).getAvailable();
}

/** `provider/id` of the model a session uses, if any. */
export function modelRefOf(runtime: AgentSessionRuntime): string | undefined {
	const model = runtime.session.model;
	return model ? `${model.provider}/${model.id}` : undefined;
}

/**
 * Protocol extensions (process, QuickJS) start before pi loads its own, so the user's own extensions may decide
 * an undecided project's trust before anything of the project loads. Packages are resolved here too, each on its
 * own: one that fails is a diagnostic, never the end of the session.
 */
import { auditTrustOnce } from "../audit/trust-audit.js";
import type { AgentSessionRuntimeDiagnostic } from "@earendil-works/pi-coding-agent";
import { discoverProtocolExtensions, protocolSpecs } from "../extensions/bridge/discovery.js";
import { ExtensionHost, type HostDiagnostic, type LoadReport } from "../extensions/host/host.js";
import { readGrants } from "../extensions/grants/store.js";
import { hostSettings } from "../extensions/host/settings.js";
import { answeredByUser, approvedByExtension, projectContentAllowed, type TrustDecision } from "../extensions/trust.js";
import {
	offline,
	type PackageResolution,
	packageManifestSources,
	resolvePackages,
} from "../extensions/packages/resolve.js";
import { isPackageSource } from "../extensions/packages/sources.js";
import { settingsForTrust } from "../extensions/trust-settings.js";
import { projectPolicyIgnored, readExtensionPolicy } from "../extensions/policy/policy.js";
import type { PierSessionOptions } from "./session-types.js";

/** Discovers, validates and starts protocol extensions before pi loads its own. */
export async function startProtocolExtensions(
	options: PierSessionOptions,
	cwd: string,
	agentDir: string,
	trust: TrustDecision,
): Promise<{
	extensionHost: ExtensionHost;
	piExtensionPaths: string[];
	startupDiagnostics: AgentSessionRuntimeDiagnostic[];
	trust: TrustDecision;
	/** Rediscovers and restarts protocol extensions as a new generation (all or nothing), as `trust` allows. */
	reloadProtocolExtensions: (trust: TrustDecision) => Promise<LoadReport>;
	/** Tells the user something after start-up. */
	report: (diagnostic: HostDiagnostic) => void;
	/** The packages as last resolved (pi's loader is shown them through the settings view). */
	packages: () => PackageResolution;
}> {
	const startupDiagnostics: AgentSessionRuntimeDiagnostic[] = [];
	let started = false;
	const report =
		options.onExtensionDiagnostic ?? ((d: HostDiagnostic) => process.stderr.write(`pier: ${d.type}: ${d.message}\n`));
	// Settings first, the API's options over them.
	// An untrusted project's extensionHost settings (timeouts, frame limit) are hidden like every other key.
	const settingsManager = settingsForTrust({ cwd, agentDir, trust });
	const fromSettings = hostSettings(settingsManager.getGlobalSettings(), settingsManager.getProjectSettings());
	for (const message of [...fromSettings.problems, ...readGrants(agentDir).problems])
		startupDiagnostics.push({ type: "warning", message });
	const configured = {
		timeouts: { ...fromSettings.settings.timeouts, ...options.extensionHost?.timeouts },
		maxFrameBytes: options.extensionHost?.maxFrameBytes ?? fromSettings.settings.maxFrameBytes,
		// The API's variables join the global settings' (the chamber adds PICHAMBER=1 this way).
		environment:
			fromSettings.settings.environment || options.extensionHost?.environment
				? { ...fromSettings.settings.environment, ...options.extensionHost?.environment }
				: undefined,
	};
	const extensionHost = new ExtensionHost({
		mode: options.mode ?? "print",
		timeouts: configured.timeouts,
		// Start-up problems join the session's diagnostics; later ones (a crash) are reported live.
		onDiagnostic: (d) => (started ? report(d) : startupDiagnostics.push({ type: d.type, message: d.message })),
	});
	const ignoredPolicy = projectPolicyIgnored(cwd, agentDir);
	if (ignoredPolicy) startupDiagnostics.push({ type: "warning", message: ignoredPolicy });
	const cliPaths = await installedCliPaths(options.extensionPaths ?? [], { cwd, agentDir }, startupDiagnostics);
	const discover = async (decision: TrustDecision) => {
		// Each package on its own: a failed one is a diagnostic, never the end of the session.
		const packages = await resolvePackages({
			cwd,
			agentDir,
			settingsManager: settingsForTrust({ cwd, agentDir, trust: decision, packages: "as-configured" }),
			projectTrusted: projectContentAllowed(decision),
			install: true,
		});
		// What an install skipped (a package's scripts) is said once, when it happens.
		for (const message of packages.notices) {
			const notice = { type: "warning" as const, message };
			if (started) report(notice);
			else startupDiagnostics.push(notice);
		}
		const discovery = discoverProtocolExtensions({
			cwd,
			agentDir,
			cliPaths,
			includeDiscovered: !options.noExtensions,
			projectTrusted: projectContentAllowed(decision),
		});
		if (!options.noExtensions) discovery.sources.push(...packageManifestSources(packages));
		const { specs, diagnostics } = protocolSpecs(discovery.sources, {
			cwd,
			projectTrusted: decision.trusted,
			deadlineMs: extensionHost.timeouts.invocationMs,
			...(configured.maxFrameBytes ? { maxFrameBytes: configured.maxFrameBytes } : {}),
			...(configured.environment ? { environment: configured.environment } : {}),
			policy: { policy: readExtensionPolicy(agentDir), agentDir },
		});
		return { discovery, specs, diagnostics: [...packages.diagnostics, ...diagnostics], packages };
	};
	let round = await discover(trust);
	if (round.specs.length > 0) await extensionHost.load(round.specs);
	// The project's own extensions are not loaded yet: the user's may decide its trust now, then the user.
	try {
		// Only a loaded extension can hook trust: without one its module is never read.
		let approvedBy: string | undefined;
		if (extensionHost.instances.length > 0) {
			const { consultTrustHooks } = await import("../extensions/bridge/trust-hooks.js");
			approvedBy = await consultTrustHooks(extensionHost, trust, {
				cwd,
				hasUI: options.mode === "tui" || options.mode === "rpc",
				projectExtensions: round.discovery.skippedProject.length,
				report: (message) => startupDiagnostics.push({ type: "warning", message }),
			});
		}
		const before = trust.trusted;
		if (approvedBy) {
			trust = approvedByExtension(trust, approvedBy);
			auditTrustOnce(agentDir, trust.cwd, true, `extension ${approvedBy}`, approvedBy);
		} else if (trust.undecided && options.askProjectTrust) {
			const answer = await options.askProjectTrust(trust);
			if (answer !== undefined) trust = answeredByUser(trust, answer);
		}
		if (trust.trusted && !before) {
			if (trust.reason) startupDiagnostics.push({ type: "info", message: trust.reason });
			round = await discover(trust);
			await extensionHost.reload(round.specs);
		}
	} catch (error) {
		startupDiagnostics.push({ type: "error", message: (error as Error).message });
	}
	if (!trust.trusted && trust.reason) startupDiagnostics.push({ type: "warning", message: trust.reason });
	for (const message of [...round.discovery.diagnostics, ...round.diagnostics])
		startupDiagnostics.push({ type: "error", message });
	started = true;
	const reloadProtocolExtensions = async (decision: TrustDecision) => {
		const next = await discover(decision);
		for (const message of [...next.discovery.diagnostics, ...next.diagnostics]) report({ type: "error", message });
		round = next;
		return extensionHost.reload(next.specs);
	};
	return {
		extensionHost,
		piExtensionPaths: round.discovery.piPaths,
		startupDiagnostics,
		trust,
		reloadProtocolExtensions,
		report,
		packages: () => round.packages,
	};
}

/** `-e` package sources installed by pier (scripts off), not by pi; loaded only when there is one. */
async function installedCliPaths(
	paths: readonly string[],
	where: { cwd: string; agentDir: string },
	diagnostics: AgentSessionRuntimeDiagnostic[],
): Promise<string[]> {
	if (!paths.some(isPackageSource)) return [...paths];
	const { localizeCliSources } = await import("../extensions/packages/cli-sources.js");
	const done = await localizeCliSources(paths, { ...where, install: !offline() });
	for (const message of done.notices) diagnostics.push({ type: "warning", message });
	for (const message of done.errors) diagnostics.push({ type: "error", message });
	return done.paths;
}

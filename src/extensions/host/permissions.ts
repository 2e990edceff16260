/**
 * The capability check at the protocol boundary: every `permission_denied` the host answers a frame with (a UI
 * request, a session action) and every registration or hello refused for a capability comes from here. A denial
 * says which of two things is missing and how to fix it:
 *
 * - **undeclared**: the extension does not declare the capability. pi-extension.json's `capabilities` /
 *   `uiCapabilities` is where it goes; for a process extension whose pi-extension.json has it, the capabilities
 *   its own hello declares (the manifest given to the Node kit's `runExtension`).
 * - **ungranted**: pi-extension.json declares it but the application running the extension launched it with
 *   fewer capabilities (`granted`): only that application can give it.
 *
 * The other kind of permission, the grants (`run`, `write`, `read`, `net`) a user gives a QuickJS extension with
 * `pier grant`, is checked where a hook answer becomes pi's result (bridge/grant-gate.ts): only there is pi's tool
 * table at hand. Its denial sentence is grants/vocabulary.ts's `denialMessage`, which names the command.
 */
import type { Capability, PermissionSet, UiCapability } from "../protocol/capabilities.js";
import type { CapabilityManifest } from "../protocol/frames.js";

export type DenialReason = "undeclared" | "ungranted";

export interface CapabilityDenial {
	reason: DenialReason;
	message: string;
}

/** The launch side of a permission: what pi-extension.json declares, what the host grants. */
export interface PermissionSubject {
	/** The manifest's path (pi-extension.json), named in every fix. */
	source: string;
	granted: PermissionSet;
	/** What pi-extension.json declares; the same as `granted` when the launcher narrowed nothing. */
	declared?: PermissionSet;
	runtime?: "process" | "quickjs" | "native";
}

/** One missing capability: `field` of the manifest, the value it lacks. */
type Missing = { field: "capabilities" | "uiCapabilities"; value: string };

const has = (set: PermissionSet, m: Missing) =>
	m.field === "capabilities"
		? set.capabilities.has(m.value as Capability)
		: set.uiCapabilities.has(m.value as UiCapability);

const names = (missing: readonly Missing[]) => missing.map((m) => `"${m.value}" to "${m.field}"`).join(" and ");

function granted(set: PermissionSet): string {
	const all = [...set.capabilities, ...[...set.uiCapabilities].map((u) => `ui:${u}`)];
	return all.length > 0 ? all.join(", ") : "nothing";
}

/** Why the launch side lacks `missing` (undefined: pi-extension.json declares it and the host grants it). */
function launchProblem(subject: PermissionSubject, missing: readonly Missing[]): CapabilityDenial | undefined {
	const declared = subject.declared ?? subject.granted;
	const undeclared = missing.filter((m) => !has(declared, m));
	if (undeclared.length > 0) {
		return { reason: "undeclared", message: `undeclared: add ${names(undeclared)} in ${subject.source}` };
	}
	const ungranted = missing.filter((m) => !has(subject.granted, m));
	if (ungranted.length === 0) return undefined;
	return {
		reason: "ungranted",
		message: `ungranted: ${subject.source} declares it, but the application running the extension grants only ${granted(subject.granted)}; it must grant ${ungranted.map((m) => `"${m.value}"`).join(" and ")} when it launches the extension`,
	};
}

/** The check for one extension, once its hello said what it declares. */
export class CapabilityCheck {
	private readonly hello: PermissionSet;

	constructor(
		private readonly subject: PermissionSubject,
		hello: Pick<CapabilityManifest, "capabilities" | "uiCapabilities">,
	) {
		this.hello = {
			capabilities: new Set(hello.capabilities ?? []),
			uiCapabilities: new Set(hello.uiCapabilities ?? []),
		};
	}

	/** Why the extension may not use `capability` (undefined: it may). */
	capability(capability: Capability): CapabilityDenial | undefined {
		return this.problem([{ field: "capabilities", value: capability }]);
	}

	/** Why the extension may not make a UI request needing `ui` (undefined: it may). */
	ui(ui: UiCapability): CapabilityDenial | undefined {
		return this.problem([
			{ field: "capabilities", value: "ui" },
			{ field: "uiCapabilities", value: ui },
		]);
	}

	private problem(needed: readonly Missing[]): CapabilityDenial | undefined {
		const missing = needed.filter((m) => !has(this.hello, m) || !has(this.subject.granted, m));
		if (missing.length === 0) return undefined;
		const launch = launchProblem(this.subject, missing);
		if (launch) return launch;
		// pi-extension.json declares it and the host grants it: the extension's own hello left it out.
		const helloMissing = missing.filter((m) => !has(this.hello, m));
		const where =
			this.subject.runtime === "process" || this.subject.runtime === undefined
				? " (for the Node kit: the manifest given to runExtension)"
				: "";
		return {
			reason: "undeclared",
			message: `undeclared in the extension's hello, though ${this.subject.source} declares it: add ${names(helloMissing)} of the manifest its hello sends${where}`,
		};
	}
}

/**
 * Why a hello may not declare what it declares (undefined: it may): the hello may declare only what the host
 * grants, and the host grants at most what pi-extension.json declares.
 */
export function helloDenial(subject: PermissionSubject, hello: CapabilityManifest): string | undefined {
	for (const capability of hello.capabilities ?? []) {
		const problem = launchProblem(subject, [{ field: "capabilities", value: capability }]);
		if (problem) return `extension requested ungranted capability "${capability}" (${problem.message})`;
	}
	for (const ui of hello.uiCapabilities ?? []) {
		const problem = launchProblem(subject, [{ field: "uiCapabilities", value: ui }]);
		if (problem) return `extension requested ungranted UI capability "${ui}" (${problem.message})`;
	}
	return undefined;
}

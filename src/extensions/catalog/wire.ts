/**
 * What `/api/pi/packages` answers (docs/chamber-api.md, "Packages"; src/chamber/packages/routes.ts), declared
 * once for the daemon (registry.ts, inspect.ts, installed.ts, grants.ts, switch.ts build these) and the web app
 * (web/src/types.ts re-exports them). Types only, and imports only from Node-free modules: the page compiles
 * without Node's types and loads no code from here.
 */
import type { Grant } from "../grants/vocabulary.js";
import type { ExtensionKind, PackageScope, PackageState, SourceKind } from "../packages/vocabulary.js";

export type { ExtensionKind, Grant, PackageScope, PackageState, SourceKind };

/** One package of a registry search, as the registry tells it. */
export interface RegistryPackage {
	name: string;
	description: string;
	version: string;
	/** ISO date of the version's publication, when the registry says. */
	date?: string;
	keywords: string[];
	publisher?: string;
	links: { npm?: string; homepage?: string; repository?: string };
	/** Weekly downloads; undefined when unknown (another registry, or the downloads service unreachable). */
	weeklyDownloads?: number;
}

/** A registry search (registry.ts `searchPackages`). */
export interface RegistrySearch {
	registry: string;
	total: number;
	results: RegistryPackage[];
	/** Why the downloads are unknown, when they are. */
	downloadsNote?: string;
}

/** A package's packument, as the catalog shows it (registry.ts `packageDetails`). */
export interface RegistryDetails {
	registry: string;
	name: string;
	description: string;
	latest?: string;
	distTags: Record<string, string>;
	/** Newest first. */
	versions: Array<{ version: string; date?: string; deprecated?: string }>;
	readme: string;
	readmeTruncated: boolean;
	license?: string;
	homepage?: string;
	repository?: string;
	keywords: string[];
	weeklyDownloads?: number;
}

/** A search result with the scopes that already configure it (`npm:<name>`). */
export interface SearchResult extends RegistryPackage {
	installed: PackageScope[];
}

/** `GET /api/pi/packages/search`. */
export interface SearchAnswer extends RegistrySearch {
	results: SearchResult[];
}

/** `GET /api/pi/packages/details`. */
export interface PackageDetails extends RegistryDetails {
	installed: PackageScope[];
}

export interface InspectedExtension {
	/** The manifest id, or a TypeScript/JavaScript extension's name. */
	id: string;
	kind: ExtensionKind;
	/** Where in the package, `/`-separated. */
	rel: string;
	/** How it runs: `sandbox` (QuickJS), `process`/`native` (its own process, your powers), `pi` (in pi's process). */
	runsAs: "sandbox" | "process" | "native" | "pi";
	capabilities: string[];
	uiCapabilities: string[];
	/** Grants apply to sandboxed extensions only; `held`: what the user already gave this very code. */
	grants: { grantable: boolean; known: Grant[]; held: Grant[] };
	/** A manifest extension's code digest: what a grant chosen now is bound to. */
	digest?: string;
	/** A manifest that does not load: the extension would fail to start, with this reason. */
	problem?: string;
}

/** `POST /api/pi/packages/inspect` (inspect.ts `inspectSource`). */
export interface Inspection {
	source: string;
	identity: string;
	kind: SourceKind;
	scope: PackageScope;
	name?: string;
	version?: string;
	description?: string;
	extensions: InspectedExtension[];
	/** Packages of the tree with install scripts: pier skips them unless allowed by name. */
	scripts: Array<{ name: string; scripts: string[] }>;
	trust: {
		scope: PackageScope;
		/** The project a project install is for. */
		cwd?: string;
		trusted: boolean;
		/** The one sentence that says what the decision means for this install. */
		summary: string;
	};
}

export interface InstalledPackage {
	scope: PackageScope;
	source: string;
	identity?: string;
	kind?: SourceKind;
	state: PackageState;
	reason?: string;
	path?: string;
	pinned?: string;
	revision?: string;
	/** The package.json version of what is installed. */
	version?: string;
	/** npm only: the registry's latest tag, when it could be asked. */
	latest?: string;
	newer: boolean;
	/** Switched on in its own entry (for every project, for a user package). */
	enabled: boolean;
	/** Switched on in the project looked from (a project entry may switch a user package off there). */
	enabledHere: boolean;
	extensions: Array<{ id: string; kind: ExtensionKind; enabled: boolean }>;
}

/** `GET /api/pi/packages` (installed.ts `installedPackages`). */
export interface InstalledView {
	/** The project looked from and whether it is trusted (an untrusted one's packages are listed, not loaded). */
	project: { cwd: string; trusted: boolean };
	packages: InstalledPackage[];
}

/** The grants of an install's confirmation: given, or refused with the reason (grants.ts `grantInstalled`). */
export interface GrantOutcome {
	granted: Array<{ id: string; dir: string; grants: Grant[] }>;
	refused: Array<{ id: string; reason: string }>;
}

/** `POST /api/pi/packages/update`: what the command printed (`notices`: its stderr). */
export interface UpdateAnswer {
	output: string;
	notices?: string;
}

/** `POST /api/pi/packages/install`: the command's output, the grants, and the package as now installed. */
export interface InstallAnswer extends UpdateAnswer {
	grants: GrantOutcome;
	package?: InstalledPackage;
}

/** `POST /api/pi/packages/remove`. */
export interface RemoveAnswer {
	output: string;
}

/** What switching a package wrote (switch.ts `switchPackage`). */
export interface SwitchOutcome {
	/** The package's own scope. */
	scope: PackageScope;
	/** The settings file written. */
	file: "user" | "project";
	enabled: boolean;
	/** The project had nothing to trust and is trusted from now on (requireTrusted). */
	trustRecorded?: true;
}

/** `PUT /api/pi/packages/enabled`. */
export interface EnabledAnswer extends SwitchOutcome {
	identity: string;
}

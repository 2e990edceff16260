/**
 * What `/api/pi/packages` answers (docs/chamber-api.md, "Packages"); the daemon's types are
 * src/extensions/catalog/{registry,inspect,installed,grants}.ts.
 */
export type Scope = "user" | "project";

export interface SearchResult {
	name: string;
	description: string;
	version: string;
	date?: string;
	weeklyDownloads?: number;
	links: { npm?: string; homepage?: string; repository?: string };
	installed: Scope[];
}

export interface SearchAnswer {
	registry: string;
	total: number;
	results: SearchResult[];
	downloadsNote?: string;
}

export interface PackageDetails {
	registry: string;
	name: string;
	description: string;
	latest?: string;
	versions: Array<{ version: string; date?: string; deprecated?: string }>;
	readme: string;
	readmeTruncated: boolean;
	license?: string;
	homepage?: string;
	repository?: string;
	weeklyDownloads?: number;
	installed: Scope[];
}

export interface InspectedExtension {
	id: string;
	kind: string;
	rel: string;
	runsAs: "sandbox" | "process" | "native" | "pi";
	capabilities: string[];
	uiCapabilities: string[];
	grants: { grantable: boolean; known: string[]; held: string[] };
	digest?: string;
	problem?: string;
}

export interface Inspection {
	source: string;
	identity: string;
	kind: "npm" | "git" | "local";
	scope: Scope;
	name?: string;
	version?: string;
	description?: string;
	extensions: InspectedExtension[];
	scripts: Array<{ name: string; scripts: string[] }>;
	trust: { scope: Scope; cwd?: string; trusted: boolean; summary: string };
}

export interface InstalledPackage {
	scope: Scope;
	source: string;
	identity?: string;
	kind?: string;
	state: string;
	reason?: string;
	path?: string;
	pinned?: string;
	version?: string;
	latest?: string;
	newer: boolean;
	enabled: boolean;
	enabledHere: boolean;
	extensions: Array<{ id: string; kind: string; enabled: boolean }>;
}

export interface InstalledView {
	project: { cwd: string; trusted: boolean };
	packages: InstalledPackage[];
}

export interface InstallAnswer {
	output: string;
	notices?: string;
	grants: { granted: Array<{ id: string; grants: string[] }>; refused: Array<{ id: string; reason: string }> };
}

/**
 * `pi-extension.json`: parsed and validated before anything is launched. Every
 * rule fails closed with a message naming the file and the field. The shape is
 * rpi's exactly (unknown fields are rejected), so a manifest valid here is valid
 * there and the other way round.
 */
import { accessSync, constants, lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, normalize, sep } from "node:path";
import type { Static } from "typebox";
import { jsonSyntaxProblem } from "./json-syntax.js";
import { literalsOf, lazyValidator, type TypeBuilder } from "./protocol/lazy-validator.js";
import {
	CAPABILITIES,
	type Capability,
	QUICKJS_UNSUPPORTED_CAPABILITIES,
	UI_CAPABILITIES,
	type UiCapability,
} from "./protocol/capabilities.js";

export const MANIFEST_FILE = "pi-extension.json";
export const MANIFEST_SCHEMA_VERSION = 1;

/** The manifest's shape, built when a manifest is first checked (lazy-validator.ts says why). */
const manifestWire = (Type: TypeBuilder) =>
	Type.Object(
		{
			schemaVersion: Type.Integer(),
			id: Type.String(),
			version: Type.Optional(Type.String()),
			runtime: Type.Optional(Type.Union([Type.Literal("process"), Type.Literal("quickjs"), Type.Literal("native")])),
			executable: Type.Optional(Type.String()),
			/** pier's addition for `runtime: "native"`: the plugin library (a C-ABI shared object) inside the package. */
			library: Type.Optional(Type.String()),
			entry: Type.Optional(Type.String()),
			arguments: Type.Optional(Type.Array(Type.String())),
			capabilities: Type.Optional(Type.Array(literalsOf(Type, CAPABILITIES))),
			uiCapabilities: Type.Optional(Type.Array(literalsOf(Type, UI_CAPABILITIES))),
		},
		{ additionalProperties: false },
	);
type ManifestWire = Static<ReturnType<typeof manifestWire>>;
const checkWire = lazyValidator(manifestWire);

export type ManifestRuntime =
	| { kind: "process"; executable: string; arguments: string[] }
	| { kind: "quickjs"; entry: string }
	| { kind: "native"; library: string };

export type RuntimeKind = ManifestRuntime["kind"];
/** Every runtime a manifest can name, in the order docs and messages list them. */
export const RUNTIME_KINDS: readonly RuntimeKind[] = ["process", "quickjs", "native"];

/** Whether an extension kind (as packages and listings name it) is one of pier's manifest runtimes. */
export function isManifestRuntime(kind: string): kind is RuntimeKind {
	return (RUNTIME_KINDS as readonly string[]).includes(kind);
}

/** Where a manifest came from; a project manifest needs the project's trust. */
export type ExtensionOrigin = "user" | "project" | "cli";

export interface ExtensionManifest {
	id: string;
	version?: string;
	/** The manifest file, canonical. */
	manifestPath: string;
	/** The package directory: the manifest's directory, canonical. Paths never leave it. */
	root: string;
	/** Runtime paths are canonical absolute paths inside `root`. */
	runtime: ManifestRuntime;
	capabilities: Capability[];
	uiCapabilities: UiCapability[];
}

export class ManifestError extends Error {
	override name = "ManifestError";
	constructor(
		readonly file: string,
		readonly field: string | undefined,
		problem: string,
	) {
		super(`${file}: ${field ? `${field}: ` : ""}${problem}`);
	}
}

/** rpi's identifier rule: 1–128 bytes of `[A-Za-z0-9_.-]`. */
export function identifierProblem(value: string): string | undefined {
	if (value.length === 0) return "must not be empty";
	if (Buffer.byteLength(value, "utf8") > 128) return "exceeds 128 bytes";
	if (!/^[A-Za-z0-9_.-]+$/.test(value))
		return `"${value}" contains unsupported characters (allowed: A-Z a-z 0-9 _ . -)`;
	return undefined;
}

/** rpi's text rule: non-empty, at most `max` bytes, no control characters. */
export function textProblem(value: string, max: number): string | undefined {
	if (value.length === 0) return "must not be empty";
	if (Buffer.byteLength(value, "utf8") > max) return `exceeds ${max} bytes`;
	// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is being rejected
	if (/[\u0000-\u001f\u007f-\u009f]/.test(value)) return "contains control characters";
	return undefined;
}

export interface LoadManifestOptions {
	origin?: ExtensionOrigin;
	/** Required true for `origin: "project"`. */
	projectTrusted?: boolean;
}

/** Loads `<dir>/pi-extension.json` (or the manifest file itself) and validates it completely. */
export function loadManifest(path: string, options: LoadManifestOptions = {}): ExtensionManifest {
	const manifestPath = manifestPathOf(path);
	if (options.origin === "project" && options.projectTrusted !== true) {
		throw new ManifestError(manifestPath, undefined, "refusing untrusted project extension manifest");
	}
	let text: string;
	try {
		text = readFileSync(manifestPath, "utf8");
	} catch (error) {
		throw new ManifestError(manifestPath, undefined, `cannot read manifest (${(error as NodeJS.ErrnoException).code})`);
	}
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch (error) {
		throw new ManifestError(manifestPath, undefined, `not valid JSON: ${jsonSyntaxProblem(text, error)}`);
	}
	return validateManifest(json, manifestPath);
}

/** A directory (existing or not) means its `pi-extension.json`; a file path is taken as given. */
function manifestPathOf(path: string): string {
	try {
		if (statSync(path).isFile()) return path;
	} catch {
		// missing: reported when the file is read
	}
	return path.endsWith(".json") ? path : join(path, MANIFEST_FILE);
}

function wireProblem(json: unknown): { field: string | undefined; problem: string } | undefined {
	if (checkWire.Check(json)) return undefined;
	if (json === null || typeof json !== "object" || Array.isArray(json)) {
		return { field: undefined, problem: "manifest must be a JSON object" };
	}
	const known = new Set(Object.keys(checkWire.schema().properties));
	const unknown = Object.keys(json).find((key) => !known.has(key));
	if (unknown) return { field: unknown, problem: "unknown field" };
	const first = [...checkWire.Errors(json)].find((e) => e.instancePath !== "");
	const field = first?.instancePath.slice(1).replace(/\//g, ".");
	return { field, problem: first?.message ?? "invalid manifest" };
}

export function validateManifest(json: unknown, manifestPath: string): ExtensionManifest {
	const fail = (field: string | undefined, problem: string): never => {
		throw new ManifestError(manifestPath, field, problem);
	};
	const shape = wireProblem(json);
	if (shape) fail(shape.field, shape.problem);
	const wire = json as ManifestWire;
	if (wire.schemaVersion !== MANIFEST_SCHEMA_VERSION) {
		fail("schemaVersion", `unsupported version ${wire.schemaVersion}; expected ${MANIFEST_SCHEMA_VERSION}`);
	}
	const idProblem = identifierProblem(wire.id);
	if (idProblem) fail("id", idProblem);
	if (wire.version !== undefined) {
		const problem = textProblem(wire.version, 128);
		if (problem) fail("version", problem);
	}
	const capabilities = [...new Set(wire.capabilities ?? [])];
	const uiCapabilities = [...new Set(wire.uiCapabilities ?? [])];
	if (uiCapabilities.length > 0 && !capabilities.includes("ui")) {
		fail("uiCapabilities", 'UI operations are declared without the "ui" capability');
	}

	const root = canonicalDir(manifestPath, fail);
	const runtime = manifestRuntime(wire, root, capabilities, fail);
	return {
		id: wire.id,
		...(wire.version !== undefined ? { version: wire.version } : {}),
		manifestPath: join(root, MANIFEST_FILE),
		root,
		runtime,
		capabilities,
		uiCapabilities,
	};
}

type Fail = (field: string | undefined, problem: string) => never;

/** The runtime-specific fields: each runtime takes its own and refuses the others' by name. */
function manifestRuntime(wire: ManifestWire, root: string, capabilities: Capability[], fail: Fail): ManifestRuntime {
	const kind = wire.runtime ?? "process";
	if (kind !== "native" && wire.library !== undefined) {
		fail("library", `only a native extension sets library (this one is runtime "${kind}")`);
	}
	if (kind === "process") {
		if (wire.entry !== undefined) fail("entry", "a process extension must not set entry (use executable)");
		if (wire.executable === undefined) fail("executable", "a process extension requires executable");
		const executable = containedFile(root, wire.executable!, "executable", fail);
		try {
			accessSync(executable, constants.X_OK);
		} catch {
			fail("executable", `${executable} is not executable (missing exec bit)`);
		}
		return { kind: "process", executable, arguments: wire.arguments ?? [] };
	}
	if (kind === "native") {
		if (wire.executable !== undefined) fail("executable", "a native extension must not set executable (use library)");
		if (wire.entry !== undefined) fail("entry", "a native extension must not set entry (use library)");
		if (wire.arguments !== undefined && wire.arguments.length > 0) {
			fail("arguments", "a native extension does not support arguments");
		}
		if (wire.library === undefined) fail("library", 'a native extension requires library (e.g. "./libplugin.so")');
		return { kind: "native", library: containedFile(root, wire.library!, "library", fail) };
	}
	if (wire.executable !== undefined) fail("executable", "a QuickJS extension must not set executable (use entry)");
	if (wire.arguments !== undefined && wire.arguments.length > 0) {
		fail("arguments", "a QuickJS extension does not support arguments");
	}
	if (wire.entry === undefined) fail("entry", "a QuickJS extension requires entry");
	if (!/\.(m?js)$/.test(wire.entry!)) {
		fail(
			"entry",
			"must end in .js or .mjs; TypeScript is not supported by the in-process QuickJS runtime (compile it to JavaScript first)",
		);
	}
	for (const capability of QUICKJS_UNSUPPORTED_CAPABILITIES) {
		if (capabilities.includes(capability)) {
			fail("capabilities", `QuickJS extensions do not support the ${capability} capability`);
		}
	}
	return { kind: "quickjs", entry: containedFile(root, wire.entry!, "entry", fail) };
}

function canonicalDir(manifestPath: string, fail: (field: string | undefined, problem: string) => never): string {
	try {
		return realpathSync(dirname(manifestPath));
	} catch {
		return fail(undefined, "manifest directory cannot be resolved");
	}
}

/** A relative path that stays inside `root` after every symlink is resolved, naming a regular file. */
function containedFile(
	root: string,
	relative: string,
	field: string,
	fail: (field: string | undefined, problem: string) => never,
): string {
	if (relative === "") fail(field, "must not be empty");
	if (isAbsolute(relative)) fail(field, `"${relative}" must be relative to the manifest`);
	if (normalize(relative).split(/[\\/]/).includes("..") || relative.split(/[\\/]/).includes("..")) {
		fail(field, `"${relative}" must remain inside the manifest directory (no "..")`);
	}
	const joined = join(root, relative);
	let resolved: string;
	try {
		resolved = realpathSync(joined);
	} catch {
		return fail(field, `"${relative}" does not exist`);
	}
	if (resolved !== root && !resolved.startsWith(root + sep)) {
		fail(field, `"${relative}" escapes the manifest directory (resolves to ${resolved})`);
	}
	const stat = lstatSync(resolved);
	if (!stat.isFile()) fail(field, `"${relative}" is not a regular file`);
	return resolved;
}

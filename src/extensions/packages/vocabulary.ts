/**
 * The words a package is described with, free of Node so the web app can name them (through
 * extensions/catalog/wire.ts): where it is configured, what kind of source it is, what state it is in and what
 * kinds of extension it holds.
 */

/** Which settings file configures it: the user's (every project) or a project's. */
export type PackageScope = "user" | "project";

/** The kind of source a package comes from (sources.ts). */
export type SourceKind = "npm" | "git" | "local";

/** What resolving a configured package found (resolve.ts). */
export type PackageState = "installed" | "missing" | "out-of-date" | "failed" | "overridden" | "untrusted" | "blocked";

/** An extension a package holds: pi's own TypeScript/JavaScript ones, or pier's manifest runtimes (contents.ts). */
export type ExtensionKind = "typescript" | "javascript" | "process" | "quickjs" | "native";

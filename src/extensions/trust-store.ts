/**
 * The project trust store, in later pi's format (pi ≥ 0.79, `trust-manager.ts`) so that a pier user and a pi
 * user share decisions: `<agentDir>/trust.json` is a flat `{"<canonical dir>": true | false}` map, keys sorted,
 * a trailing newline. The nearest ancestor with a decision wins. Writes hold `trust.json.lock`, a directory
 * made with mkdir as proper-lockfile (pi's lock) makes it, so pier and pi exclude each other.
 *
 * rpi writes `{"version": 1, "decisions": {…}}`; pier reads that form too but writes only the flat one (pi ≥ 0.79
 * rejects rpi's envelope). A store that is neither is an error naming the file, never "trusted".
 */
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { auditTrust } from "../audit/trust-audit.js";
import { withDirLockSync } from "./dir-lock.js";

export const TRUST_FILE = "trust.json";

export type TrustValue = boolean | null;

export interface TrustEntry {
	/** The directory whose decision applies (the project itself or an ancestor). */
	path: string;
	decision: boolean;
}

export class TrustStoreError extends Error {
	override name = "TrustStoreError";
}

/** pi's key for a directory: `realpath(resolve(dir))`; a directory that does not exist (yet) keeps its resolved path. */
export function canonicalDir(dir: string): string {
	const absolute = resolve(dir);
	try {
		return realpathSync(absolute);
	} catch {
		return absolute;
	}
}

// pi tries 10 times 20 ms apart; pier waits longer (2 s) because several pier processes may start at once.
// proper-lockfile refreshes a held lock's mtime every 5 s, so one older than 10 s is stale (its default).
const LOCK_WAIT_MS = 2_000;
const LOCK_RETRY_MS = 20;
const LOCK_STALE_MS = 10_000;

export class TrustStore {
	readonly file: string;
	private readonly lockPath: string;

	constructor(readonly agentDir: string) {
		this.file = join(resolve(agentDir), TRUST_FILE);
		this.lockPath = `${this.file}.lock`;
	}

	/** Every stored decision (null entries are no decision and are left out). */
	decisions(): Map<string, boolean> {
		try {
			return this.read();
		} catch (error) {
			// pi writes the file in place: a read during its write may see half a file. Its lock ends that.
			if (!(error instanceof TrustStoreError) || !existsSync(this.lockPath)) throw error;
			return this.withLock(() => this.read());
		}
	}

	private read(): Map<string, boolean> {
		if (!existsSync(this.file)) return new Map();
		let text: string;
		try {
			text = readFileSync(this.file, "utf8");
		} catch (error) {
			throw new TrustStoreError(`cannot read the trust store ${this.file}: ${(error as Error).message}`);
		}
		return parseStore(text.replace(/^\uFEFF/, ""), this.file);
	}

	/** The decision for `dir`: its own, or its nearest ancestor's. */
	entry(dir: string): TrustEntry | undefined {
		const decisions = this.decisions();
		let current = canonicalDir(dir);
		while (true) {
			const decision = decisions.get(current);
			if (decision !== undefined) return { path: current, decision };
			const parent = dirname(current);
			if (parent === current) return undefined;
			current = parent;
		}
	}

	get(dir: string): boolean | undefined {
		return this.entry(dir)?.decision;
	}

	/**
	 * Stores one decision; null removes the directory's own entry (an ancestor's may apply again). `by` names who
	 * decided (`pier trust`, the chamber, the terminal's question, an extension) in the audit trail.
	 */
	set(dir: string, value: TrustValue, by?: string): void {
		this.setMany([[dir, value]], by);
	}

	setMany(changes: ReadonlyArray<readonly [string, TrustValue]>, by?: string): void {
		this.withLock(() => {
			const decisions = this.read();
			for (const [dir, value] of changes) {
				const key = canonicalDir(dir);
				if (value === null) decisions.delete(key);
				else decisions.set(key, value);
			}
			const sorted = Object.fromEntries([...decisions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
			mkdirSync(dirname(this.file), { recursive: true });
			const tmp = `${this.file}.${process.pid}.tmp`;
			writeFileSync(tmp, `${JSON.stringify(sorted, null, 2)}\n`, { mode: 0o600 });
			renameSync(tmp, this.file);
		});
		// Recorded once stored, in the order given: a store that could not be written decided nothing.
		for (const [dir, value] of changes) auditTrust(this.agentDir, canonicalDir(dir), value, by);
	}

	private withLock<T>(fn: () => T): T {
		mkdirSync(dirname(this.lockPath), { recursive: true });
		return withDirLockSync(this.lockPath, this.lockOptions, fn);
	}

	private readonly lockOptions = {
		waitMs: LOCK_WAIT_MS,
		retryMs: LOCK_RETRY_MS,
		staleMs: LOCK_STALE_MS,
		busy: () =>
			new TrustStoreError(
				`the trust store ${this.file} is locked by another process (${this.lockPath}); try again, or remove that directory if no pi or pier is running`,
			),
	};
}

function parseStore(text: string, file: string): Map<string, boolean> {
	const invalid = (what: string) =>
		new TrustStoreError(
			`invalid trust store ${file}: ${what}; fix it or delete it (pier trust / pier untrust then record decisions again)`,
		);
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		throw invalid(`not JSON (${(error as Error).message})`);
	}
	if (!isObject(value)) throw invalid("expected an object of directory → true/false");
	// rpi's envelope: exactly {version: 1, decisions: {...}}.
	const keys = Object.keys(value);
	const rpi = keys.includes("decisions") && keys.every((k) => k === "version" || k === "decisions");
	if (rpi) {
		if (value.version !== undefined && value.version !== 1)
			throw invalid(`unsupported version ${String(value.version)}`);
		if (!isObject(value.decisions)) throw invalid('"decisions" must be an object');
		value = value.decisions;
	}
	const decisions = new Map<string, boolean>();
	for (const [key, decision] of Object.entries(value as Record<string, unknown>)) {
		if (decision === null) continue;
		if (typeof decision !== "boolean") throw invalid(`the value for "${key}" must be true, false or null`);
		decisions.set(key, decision);
	}
	return decisions;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * `<stateDir>/auth.json`: its shape, a strict reader (a corrupt file is an error, never an empty store) and
 * an atomic writer. The store (store.ts) decides what goes in it.
 */
import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { MAX_GENERATIONS } from "./lineage.js";

export const FILE_VERSION = 1;
// A hand-edited or hostile auth.json must not make a login allocate gigabytes.
export const SCRYPT_MAX_MEMORY = 64 * 1024 * 1024;

export interface PasswordHash {
	algo: "scrypt";
	N: number;
	r: number;
	p: number;
	/** base64 */
	salt: string;
	/** base64 */
	hash: string;
}

export interface SessionRecord {
	/** Public: names the browser in the credential list. */
	id: string;
	/** SHA-256 of the cookie value. */
	hash: string;
	/** SHA-256 of the browser key the page sends as X-Pier-Key: the cookie alone is not a credential. */
	keyHash: string;
	createdAt: number;
	expiresAt: number;
	/** Set by the first request after sign-in; sessions never used are the first to make room. */
	lastUsedAt?: number;
	/** How it signed in: the password, or a pairing link (the daemon's, or `pier pair`'s). */
	via?: "password" | "link";
	/** The credentials it was minted through, oldest first (lineage.ts); absent for a root. */
	lineage?: string[];
}

export interface DeviceRecord {
	id: string;
	name: string;
	hash: string;
	createdAt: number;
	lastUsedAt?: number;
	/** The credentials it was minted through, oldest first (lineage.ts); absent for a root. */
	lineage?: string[];
}

export interface AuthFile {
	version: typeof FILE_VERSION;
	password?: PasswordHash;
	browserSessions: SessionRecord[];
	deviceTokens: DeviceRecord[];
}

export function writeFileAtomic(path: string, data: string): void {
	mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
	const tmp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
	try {
		const fd = openSync(tmp, "wx", 0o600);
		try {
			writeSync(fd, data);
			// Without fsync a crash after the rename can leave an empty auth.json, i.e. lost credentials.
			fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
		renameSync(tmp, path);
	} catch (error) {
		rmSync(tmp, { force: true });
		throw error;
	}
}

export function readAuthFile(path: string): AuthFile | undefined {
	let text: string;
	try {
		text = readFileSync(path, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
		throw new Error(`cannot read ${path}: ${(error as Error).message}`);
	}
	// Refusing to start beats starting empty: an empty store would be saved over the user's credentials.
	const fail = (what: string): never => {
		throw new Error(`${path} is corrupt: ${what}. Fix it or delete it to reset the chamber's credentials.`);
	};
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch (error) {
		return fail(`not valid JSON (${(error as Error).message})`);
	}
	if (!isRecord(raw)) return fail("expected a JSON object");
	if (raw.version !== FILE_VERSION) {
		return fail(`unsupported version ${JSON.stringify(raw.version)} (this pier reads version ${FILE_VERSION})`);
	}
	const file: AuthFile = { version: FILE_VERSION, browserSessions: [], deviceTokens: [] };
	if (raw.password !== undefined) file.password = parsePassword(raw.password, fail);
	if (!Array.isArray(raw.browserSessions)) return fail("browserSessions must be an array");
	const ids = new Set<string>();
	raw.browserSessions.forEach((s: unknown, i: number) => {
		if (
			!isRecord(s) ||
			(s.id !== undefined && !isNonEmptyString(s.id)) ||
			(s.via !== undefined && s.via !== "password" && s.via !== "link") ||
			!isLineage(s.lineage) ||
			!isNonEmptyString(s.hash) ||
			!isTime(s.createdAt) ||
			!isTime(s.expiresAt) ||
			(s.keyHash !== undefined && !isNonEmptyString(s.keyHash)) ||
			(s.lastUsedAt !== undefined && !isTime(s.lastUsedAt))
		) {
			fail(
				`browserSessions[${i}] must be {id, hash, keyHash, createdAt, expiresAt, lastUsedAt?, via?, lineage?} ` +
					`(lineage: at most ${MAX_GENERATIONS} ids)`,
			);
		} else if (s.id !== undefined && ids.has(s.id)) {
			fail(`browserSessions[${i}] repeats the id ${JSON.stringify(s.id)}`);
		} else if (s.keyHash !== undefined) {
			// Sessions from before ids get one now; it is saved with the next write.
			const id = s.id ?? randomBytes(9).toString("base64url");
			ids.add(id);
			file.browserSessions.push({
				id,
				hash: s.hash,
				keyHash: s.keyHash,
				createdAt: s.createdAt,
				expiresAt: s.expiresAt,
				...(s.lastUsedAt !== undefined ? { lastUsedAt: s.lastUsedAt } : {}),
				...(s.via !== undefined ? { via: s.via } : {}),
				...(s.lineage !== undefined ? { lineage: s.lineage } : {}),
			});
		}
		// A session from before browser keys (no keyHash) is dropped: its cookie alone could be replayed, so
		// that browser signs in once more.
	});
	if (!Array.isArray(raw.deviceTokens)) return fail("deviceTokens must be an array");
	raw.deviceTokens.forEach((d: unknown, i: number) => {
		if (
			!isRecord(d) ||
			!isNonEmptyString(d.id) ||
			typeof d.name !== "string" ||
			!isNonEmptyString(d.hash) ||
			!isTime(d.createdAt) ||
			(d.lastUsedAt !== undefined && !isTime(d.lastUsedAt)) ||
			!isLineage(d.lineage)
		) {
			fail(
				`deviceTokens[${i}] must be {id, name, hash, createdAt, lastUsedAt?, lineage?} ` +
					`(lineage: at most ${MAX_GENERATIONS} ids)`,
			);
		} else if (ids.has(d.id)) {
			fail(`deviceTokens[${i}] repeats the id ${JSON.stringify(d.id)}`);
		} else {
			ids.add(d.id);
			file.deviceTokens.push({
				id: d.id,
				name: d.name,
				hash: d.hash,
				createdAt: d.createdAt,
				...(d.lastUsedAt !== undefined ? { lastUsedAt: d.lastUsedAt } : {}),
				...(d.lineage !== undefined ? { lineage: d.lineage } : {}),
			});
		}
	});
	return file;
}

function parsePassword(raw: unknown, fail: (what: string) => never): PasswordHash {
	if (!isRecord(raw) || raw.algo !== "scrypt") return fail('password must be {algo:"scrypt", N, r, p, salt, hash}');
	const { N, r, p, salt, hash } = raw;
	if (!Number.isInteger(N) || (N as number) < 2 || ((N as number) & ((N as number) - 1)) !== 0) {
		return fail("password.N must be a power of two");
	}
	if (!Number.isInteger(r) || (r as number) < 1 || !Number.isInteger(p) || (p as number) < 1 || (p as number) > 16) {
		return fail("password.r and password.p must be small positive integers");
	}
	// Node refuses when 128·N·r exceeds maxmem; say so here rather than on the first login.
	if (128 * (N as number) * (r as number) > SCRYPT_MAX_MEMORY) return fail("password scrypt cost is too high");
	if (!isBase64(salt) || Buffer.from(salt, "base64").length < 8) return fail("password.salt must be base64");
	if (!isBase64(hash) || Buffer.from(hash, "base64").length < 16) return fail("password.hash must be base64");
	return { algo: "scrypt", N: N as number, r: r as number, p: p as number, salt, hash };
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNonEmptyString(value: unknown): value is string {
	return typeof value === "string" && value.length > 0;
}

function isLineage(value: unknown): value is string[] | undefined {
	return (
		value === undefined ||
		(Array.isArray(value) && value.length <= MAX_GENERATIONS && value.every((id) => isNonEmptyString(id)))
	);
}

function isTime(value: unknown): value is number {
	return typeof value === "number" && Number.isFinite(value);
}

function isBase64(value: unknown): value is string {
	return typeof value === "string" && /^[A-Za-z0-9+/]+={0,2}$/.test(value);
}

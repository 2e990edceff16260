/**
 * Signed-in browsers. Each sign-in hands out two secrets: the cookie (HttpOnly, so page script cannot read
 * it) and a browser key the page keeps in its origin's localStorage and sends as `X-Pier-Key`. A request
 * needs both. Cookies are not port-scoped, so any other server on the same host receives the cookie; it
 * never receives the key, which only the chamber's own origin can read. Only SHA-256 hashes are kept.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { SessionRecord } from "./auth-file.js";
import { descendsFrom } from "./lineage.js";

export const BROWSER_SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Bounds auth.json and the map whatever a client does. */
export const MAX_BROWSER_SESSIONS = 1000;
const MAX_SECRET_LENGTH = 512;

/** What a cookie and key are worth: `bad_key` is a live cookie without its key (e.g. replayed elsewhere). */
export type BrowserCheck = "ok" | "no_session" | "bad_key";

/** Every slot is held by a browser that has used its session: a new sign-in would have to sign one out. */
export class SessionLimitError extends Error {
	constructor(max: number) {
		super(`${max} browsers are signed in; sign one out (or change the UI password to sign all out) first`);
		this.name = "SessionLimitError";
	}
}

export class BrowserSessions {
	// Insertion order is creation order: eviction takes the oldest first.
	private readonly records = new Map<string, SessionRecord>();

	constructor(
		private readonly now: () => number,
		stored: readonly SessionRecord[] = [],
		private readonly max = MAX_BROWSER_SESSIONS,
	) {
		const at = now();
		for (const s of stored) if (s.expiresAt > at) this.records.set(s.hash, s);
	}

	/**
	 * At the cap, a new sign-in makes room only by dropping the oldest session that was never used after its
	 * sign-in. A browser that has made one request since signing in is never signed out by someone else's
	 * sign-ins (1,000 logins used to sign every other browser out); when all slots are such browsers, the new
	 * sign-in is refused instead.
	 */
	create(origin: { id: string; via: "password" | "link"; lineage: string[] }): {
		token: string;
		key: string;
		record: SessionRecord;
		evicted?: SessionRecord;
	} {
		const now = this.now();
		this.prune(now);
		let evicted: SessionRecord | undefined;
		if (this.records.size >= this.max) {
			for (const record of this.records.values()) {
				if (record.lastUsedAt === undefined) {
					evicted = record;
					break;
				}
			}
			if (!evicted) throw new SessionLimitError(this.max);
			this.records.delete(evicted.hash);
		}
		const token = randomBytes(32).toString("base64url");
		const key = randomBytes(32).toString("base64url");
		const record: SessionRecord = {
			id: origin.id,
			hash: sha256(token),
			keyHash: sha256(key),
			createdAt: now,
			expiresAt: now + BROWSER_SESSION_TTL_MS,
			via: origin.via,
			...(origin.lineage.length > 0 ? { lineage: origin.lineage } : {}),
		};
		this.records.set(record.hash, record);
		return { token, key, record, ...(evicted ? { evicted } : {}) };
	}

	/** Undoes `create` when it could not be saved. */
	undo(created: { record: SessionRecord; evicted?: SessionRecord }): void {
		this.records.delete(created.record.hash);
		if (created.evicted) this.records.set(created.evicted.hash, created.evicted);
	}

	/**
	 * `firstUse` tells the caller to persist: whether a session was used is what protects it from eviction, and
	 * that must survive a restart. Later uses only move `lastUsedAt` in memory.
	 */
	check(
		token: string | undefined,
		key: string | undefined,
	): { verdict: BrowserCheck; record?: SessionRecord; firstUse?: boolean; expired?: boolean } {
		if (!isPlausibleSecret(token)) return { verdict: "no_session" };
		// Looking up the hash (not the token) leaks nothing useful through timing: the hash prefix of a guess
		// says nothing about a token whose hash matches it.
		const record = this.records.get(sha256(token));
		if (!record) return { verdict: "no_session" };
		const now = this.now();
		if (record.expiresAt <= now) {
			this.records.delete(record.hash);
			return { verdict: "no_session", expired: true };
		}
		if (!isPlausibleSecret(key) || !sameHash(sha256(key), record.keyHash)) return { verdict: "bad_key" };
		const firstUse = record.lastUsedAt === undefined;
		record.lastUsedAt = now;
		return { verdict: "ok", record, firstUse };
	}

	/** Removes the session the cookie names; the key is not needed to sign out. */
	revoke(token: string | undefined): boolean {
		if (!isPlausibleSecret(token)) return false;
		return this.records.delete(sha256(token));
	}

	/** Removes the sessions named in `revoked` and those minted through one of them; returns their ids. */
	revokeIds(revoked: ReadonlySet<string>): string[] {
		const gone: string[] = [];
		for (const [hash, s] of this.records) {
			if (!revoked.has(s.id) && !descendsFrom(s.lineage, revoked)) continue;
			this.records.delete(hash);
			gone.push(s.id);
		}
		return gone;
	}

	byId(id: string): SessionRecord | undefined {
		return this.list().find((s) => s.id === id);
	}

	clear(): void {
		this.records.clear();
	}

	snapshot(): Map<string, SessionRecord> {
		return new Map(this.records);
	}

	restore(saved: Map<string, SessionRecord>): void {
		this.records.clear();
		for (const [k, v] of saved) this.records.set(k, v);
	}

	list(): SessionRecord[] {
		this.prune(this.now());
		return [...this.records.values()];
	}

	get size(): number {
		return this.records.size;
	}

	private prune(now: number): void {
		for (const [hash, s] of this.records) if (s.expiresAt <= now) this.records.delete(hash);
	}
}

export function sha256(value: string): string {
	return createHash("sha256").update(value).digest("base64url");
}

export function isPlausibleSecret(token: string | undefined): token is string {
	return typeof token === "string" && token.length > 0 && token.length <= MAX_SECRET_LENGTH;
}

function sameHash(a: string, b: string): boolean {
	const x = Buffer.from(a);
	const y = Buffer.from(b);
	return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Share links: a bearer token that reaches one session, to watch it (`view`) or to drive it (`control`). Tokens are
 * stored as SHA-256 hashes in `<stateDir>/share-links.json` (0600), like device tokens in auth.json, so a leaked
 * file cannot be replayed. A link ends when it expires or is revoked; whoever holds one of its open streams is told
 * at once (`onEnd`), and an ended link is remembered for a day so its holder hears "revoked"/"expired" rather than
 * being counted as a guesser (guesses are rate-limited like logins, principal.ts).
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "../auth/auth-file.js";
import { isPlausibleSecret, sha256 } from "../auth/browser-sessions.js";
import { LoginRateLimiter } from "../auth/rate-limit.js";
import { SHARE_MODES, type ShareEndReason, type ShareInfo, type ShareMode } from "./share-wire.js";

export const SHARE_TOKEN_PREFIX = "pier_sh_";
/** Links alive at once; the next one is refused until one ends. */
export const MAX_LIVE_SHARES = 256;
/** An ended link is remembered this long (then its token reads as unknown). */
const ENDED_KEPT_MS = 24 * 60 * 60 * 1000;
const MAX_RECORDS = 1024;
const FILE_VERSION = 1;

export interface ShareRecord {
	/** Public: names the link in lists and in `DELETE /api/pi/shares/:id`. */
	id: string;
	/** SHA-256 of the token. */
	hash: string;
	sessionId: string;
	mode: ShareMode;
	createdAt: number;
	expiresAt: number;
	/** The credential (browser or device) that created it. */
	mintedBy?: string;
	revokedAt?: number;
}

/** Who a share token speaks for: one session, in one mode. */
export interface SharePrincipal {
	kind: "share";
	/** The link's id. */
	id: string;
	sessionId: string;
	mode: ShareMode;
}

export type ShareCheck =
	| { ok: true; record: ShareRecord }
	| { ok: false; ended: ShareEndReason; record: ShareRecord }
	/** Not a token we ever issued (or one forgotten a day after it ended): a guess. */
	| undefined;

type EndListener = (reason: ShareEndReason) => void;

export class ShareLinks {
	/** By token hash. */
	private readonly records = new Map<string, ShareRecord>();
	private readonly listeners = new Map<string, Set<EndListener>>();
	private readonly timers = new Map<string, NodeJS.Timeout>();
	/** Failed share-token guesses per client address: the login limiter's budget (5 a minute). */
	readonly guesses: LoginRateLimiter;

	constructor(
		readonly path: string,
		private readonly now: () => number = Date.now,
		guesses: LoginRateLimiter = new LoginRateLimiter({ now }),
	) {
		this.guesses = guesses;
		for (const record of readShareFile(path)) {
			this.records.set(record.hash, record);
			if (record.revokedAt === undefined) this.armExpiry(record);
		}
	}

	create(options: { sessionId: string; mode: ShareMode; ttlMs: number; mintedBy?: string }): {
		token: string;
		record: ShareRecord;
	} {
		if (!Number.isFinite(options.ttlMs) || options.ttlMs <= 0) throw new RangeError("ttl must be positive");
		const now = this.now();
		this.prune(now);
		if (this.live().length >= MAX_LIVE_SHARES) {
			throw new RangeError(`at most ${MAX_LIVE_SHARES} share links at once; revoke one first`);
		}
		const token = SHARE_TOKEN_PREFIX + randomBytes(32).toString("base64url");
		const record: ShareRecord = {
			id: this.newId(),
			hash: sha256(token),
			sessionId: options.sessionId,
			mode: options.mode,
			createdAt: now,
			expiresAt: now + options.ttlMs,
			...(options.mintedBy !== undefined ? { mintedBy: options.mintedBy } : {}),
		};
		this.records.set(record.hash, record);
		try {
			this.save();
		} catch (error) {
			this.records.delete(record.hash);
			throw error;
		}
		this.armExpiry(record);
		return { token, record };
	}

	/** Whether `token` is a live link; counts nothing (the caller rate-limits guesses). */
	check(token: string | undefined): ShareCheck {
		if (!isPlausibleSecret(token) || !token.startsWith(SHARE_TOKEN_PREFIX)) return undefined;
		// Looked up by hash: the timing of a miss says nothing about a token whose hash differs.
		const record = this.records.get(sha256(token));
		if (!record) return undefined;
		if (record.revokedAt !== undefined) return { ok: false, ended: "revoked", record };
		if (record.expiresAt <= this.now()) return { ok: false, ended: "expired", record };
		return { ok: true, record };
	}

	/** The session's live links, oldest first. */
	list(sessionId: string): ShareInfo[] {
		return this.live()
			.filter((r) => r.sessionId === sessionId)
			.map(infoOf);
	}

	byId(id: string): ShareRecord | undefined {
		for (const r of this.records.values()) if (r.id === id) return r;
		return undefined;
	}

	/** Ends the live link `id` and cuts its streams; `false` when there is no such live link. */
	revoke(id: string): boolean {
		const record = this.byId(id);
		if (!record || record.revokedAt !== undefined || record.expiresAt <= this.now()) return false;
		record.revokedAt = this.now();
		try {
			this.save();
		} finally {
			// In memory the link is gone whatever the disk says; its holders are cut either way.
			this.end(record, "revoked");
		}
		return true;
	}

	/** Revokes every live link minted by one of `ids` (credentials that were revoked); returns the links' ids. */
	revokeMintedBy(ids: ReadonlySet<string>): string[] {
		const gone = this.live().filter((r) => r.mintedBy !== undefined && ids.has(r.mintedBy));
		for (const r of gone) this.revoke(r.id);
		return gone.map((r) => r.id);
	}

	/** Calls `listener` once when the link ends (revoked or expired); returns the unsubscribe. */
	onEnd(id: string, listener: EndListener): () => void {
		let set = this.listeners.get(id);
		if (!set) {
			set = new Set();
			this.listeners.set(id, set);
		}
		set.add(listener);
		return () => {
			const current = this.listeners.get(id);
			current?.delete(listener);
			if (current?.size === 0) this.listeners.delete(id);
		};
	}

	/** Stops the expiry timers (the daemon's shutdown). */
	close(): void {
		for (const timer of this.timers.values()) clearTimeout(timer);
		this.timers.clear();
		this.listeners.clear();
	}

	private live(): ShareRecord[] {
		const now = this.now();
		return [...this.records.values()]
			.filter((r) => r.revokedAt === undefined && r.expiresAt > now)
			.sort((a, b) => a.createdAt - b.createdAt);
	}

	/** One timer per live link: its streams are cut the moment it expires, nothing polls. */
	private armExpiry(record: ShareRecord): void {
		const wait = record.expiresAt - this.now();
		if (wait <= 0) return;
		const timer = setTimeout(() => {
			this.timers.delete(record.id);
			// A timer may fire a hair early against this clock: wait out the rest.
			if (record.expiresAt > this.now()) this.armExpiry(record);
			else if (record.revokedAt === undefined) this.end(record, "expired");
		}, wait);
		timer.unref();
		this.timers.set(record.id, timer);
	}

	private end(record: ShareRecord, reason: ShareEndReason): void {
		const timer = this.timers.get(record.id);
		if (timer) clearTimeout(timer);
		this.timers.delete(record.id);
		const set = this.listeners.get(record.id);
		this.listeners.delete(record.id);
		for (const listener of set ?? []) {
			try {
				listener(reason);
			} catch {
				// One holder's failure must not spare the others.
			}
		}
	}

	private prune(now: number): void {
		for (const [hash, r] of this.records) {
			if (Math.min(r.revokedAt ?? r.expiresAt, r.expiresAt) + ENDED_KEPT_MS <= now) this.records.delete(hash);
		}
		// Past the bound, the oldest ended links are forgotten first (live ones are bounded by MAX_LIVE_SHARES).
		const ended = [...this.records.entries()]
			.filter(([, r]) => r.revokedAt !== undefined || r.expiresAt <= now)
			.sort(([, a], [, b]) => a.createdAt - b.createdAt);
		while (this.records.size >= MAX_RECORDS && ended.length > 0) {
			const [hash] = ended.shift() as [string, ShareRecord];
			this.records.delete(hash);
		}
	}

	private newId(): string {
		for (;;) {
			const id = `sh_${randomBytes(9).toString("base64url")}`;
			if (!this.byId(id)) return id;
		}
	}

	private save(): void {
		const file = { version: FILE_VERSION, links: [...this.records.values()] };
		writeFileAtomic(this.path, `${JSON.stringify(file, null, "\t")}\n`);
	}
}

export function infoOf(r: ShareRecord): ShareInfo {
	return {
		id: r.id,
		sessionId: r.sessionId,
		mode: r.mode,
		createdAt: new Date(r.createdAt).toISOString(),
		expiresAt: new Date(r.expiresAt).toISOString(),
		...(r.mintedBy !== undefined ? { mintedBy: r.mintedBy } : {}),
	};
}

/** A missing file is no links; a corrupt one is an error naming the file (never silently emptied). */
function readShareFile(path: string): ShareRecord[] {
	let text: string;
	try {
		text = readFileSync(path, "utf8");
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
		throw new Error(`cannot read ${path}: ${(error as Error).message}`);
	}
	const fail = (what: string): never => {
		throw new Error(`${path} is corrupt: ${what}. Fix it or delete it (every share link then stops working).`);
	};
	let raw: unknown;
	try {
		raw = JSON.parse(text);
	} catch (error) {
		return fail(`not valid JSON (${(error as Error).message})`);
	}
	const file = raw as { version?: unknown; links?: unknown };
	if (typeof raw !== "object" || raw === null || file.version !== FILE_VERSION || !Array.isArray(file.links)) {
		return fail(`expected {"version": ${FILE_VERSION}, "links": [...]}`);
	}
	return file.links.map((l: unknown, i: number) => {
		const r = l as Partial<ShareRecord>;
		const isTime = (v: unknown) => typeof v === "number" && Number.isFinite(v);
		if (
			typeof l !== "object" ||
			l === null ||
			typeof r.id !== "string" ||
			typeof r.hash !== "string" ||
			typeof r.sessionId !== "string" ||
			!SHARE_MODES.includes(r.mode as ShareMode) ||
			!isTime(r.createdAt) ||
			!isTime(r.expiresAt) ||
			(r.revokedAt !== undefined && !isTime(r.revokedAt)) ||
			(r.mintedBy !== undefined && typeof r.mintedBy !== "string")
		) {
			return fail(`links[${i}] must be {id, hash, sessionId, mode, createdAt, expiresAt, mintedBy?, revokedAt?}`);
		}
		return r as ShareRecord;
	});
}

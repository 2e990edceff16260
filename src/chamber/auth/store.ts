/**
 * The chamber's credentials: the UI password (as an scrypt hash), browser sessions (browser-sessions.ts) and
 * device tokens, kept in `<stateDir>/auth.json` (auth-file.ts), plus one-time pairing links kept in memory
 * (the daemon's own, pairing-links.ts) or in `<stateDir>/pairing-inbox.json` (`pier pair`'s). Secrets that we
 * hand out are stored as SHA-256 hashes, so a leaked auth.json cannot be replayed as a cookie, a browser key or a
 * bearer token. Every credential records what minted it (lineage.ts): revoking one revokes its descendants.
 */
import { dirname, join } from "node:path";
import { randomBytes, type ScryptOptions, scrypt as scryptCallback, timingSafeEqual } from "node:crypto";
import {
	type AuthFile,
	type DeviceRecord,
	FILE_VERSION,
	type PasswordHash,
	readAuthFile,
	SCRYPT_MAX_MEMORY,
	writeFileAtomic,
} from "./auth-file.js";
import { type BrowserCheck, BrowserSessions, isPlausibleSecret, sha256 } from "./browser-sessions.js";
import { type CredentialInfo, describeCredentials, INBOX_ID_PREFIX } from "./credential-list.js";
import { childLineage, descendsFrom, mintedBy } from "./lineage.js";
import { dropInboxLink, inboxLinks, takePairingToken } from "./pairing-inbox.js";
import { PairingLinks } from "./pairing-links.js";
import { ShareLinks } from "../share/share-links.js";
import type { DeviceTokenInfo } from "./auth-wire.js";

export type { PasswordHash } from "./auth-file.js";
export { BROWSER_SESSION_TTL_MS, type BrowserCheck, SessionLimitError } from "./browser-sessions.js";
export const DEVICE_TOKEN_PREFIX = "pier_dt_";

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 64, saltBytes: 16 } as const;
// Bounds that keep the file and the in-memory maps small whatever a client does.
const MAX_DEVICE_TOKENS = 256;
const MAX_PASSWORD_LENGTH = 4096;
const MAX_TOKEN_NAME_LENGTH = 100;
// lastUsedAt is informational; writing the file on every request would be wasteful, hourly is precise enough.
const LAST_USED_PERSIST_MS = 60 * 60 * 1000;

export type { DeviceTokenInfo } from "./auth-wire.js";
export type { CredentialInfo } from "./credential-list.js";
/** Who mints a credential: the credential a request came with. */
export interface Minter {
	id: string;
}

export interface CreatedDeviceToken {
	id: string;
	name: string;
	/** Shown once: only its hash is kept. */
	token: string;
}

export interface PairingToken {
	id: string;
	token: string;
	/** epoch ms */
	expiresAt: number;
}

export interface AuthStoreOptions {
	/** Injectable so tests can expire sessions and pairing tokens without sleeping. */
	now?: () => number;
	/** Signed-in browsers at most (default 1,000); tests shrink it. */
	maxBrowserSessions?: number;
}

export class AuthStore {
	readonly path: string;
	private readonly now: () => number;
	private password: PasswordHash | undefined;
	private readonly sessions: BrowserSessions;
	private readonly devices = new Map<string, DeviceRecord>();
	private readonly pairing: PairingLinks;
	/** Share links (share/): hashed like device tokens, in their own file next to auth.json. */
	readonly shares: ShareLinks;
	private readonly lastUsedPersisted = new Map<string, number>();
	private dirty = false;

	constructor(path: string, options: AuthStoreOptions = {}) {
		this.path = path;
		this.now = options.now ?? Date.now;
		const file = readAuthFile(path);
		this.sessions = new BrowserSessions(this.now, file?.browserSessions, options.maxBrowserSessions);
		this.pairing = new PairingLinks(this.now);
		this.shares = new ShareLinks(join(dirname(path), "share-links.json"), this.now);
		if (!file) return;
		this.password = file.password;
		for (const d of file.deviceTokens) {
			this.devices.set(d.id, d);
			if (d.lastUsedAt !== undefined) this.lastUsedPersisted.set(d.id, d.lastUsedAt);
		}
	}

	// ---- password ---------------------------------------------------------------------------------

	get passwordConfigured(): boolean {
		return this.password !== undefined;
	}

	/**
	 * Replacing an existing password also signs out every browser: a password is usually changed because the
	 * old one leaked, and sessions obtained with it should not outlive it. Device tokens stay, they were
	 * issued deliberately and are revoked one by one.
	 */
	async setPassword(password: string): Promise<void> {
		checkPassword(password);
		const salt = randomBytes(SCRYPT.saltBytes);
		const hash = await scrypt(normalize(password), salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
		const replacing = this.password !== undefined;
		const previous = { password: this.password, sessions: this.sessions.snapshot() };
		this.password = {
			algo: "scrypt",
			N: SCRYPT.N,
			r: SCRYPT.r,
			p: SCRYPT.p,
			salt: salt.toString("base64"),
			hash: hash.toString("base64"),
		};
		if (replacing) this.sessions.clear();
		try {
			this.save();
		} catch (error) {
			this.password = previous.password;
			this.sessions.restore(previous.sessions);
			throw error;
		}
	}

	/**
	 * For the daemon's start: keeps the stored hash when it already matches (so sessions survive restarts),
	 * otherwise stores the new password.
	 */
	async ensurePassword(password: string): Promise<"unchanged" | "set" | "replaced"> {
		if (this.password && (await this.verifyPassword(password))) return "unchanged";
		const replacing = this.password !== undefined;
		await this.setPassword(password);
		return replacing ? "replaced" : "set";
	}

	async verifyPassword(password: string): Promise<boolean> {
		const stored = this.password;
		if (!stored || typeof password !== "string" || password.length > MAX_PASSWORD_LENGTH) return false;
		const expected = Buffer.from(stored.hash, "base64");
		const actual = await scrypt(normalize(password), Buffer.from(stored.salt, "base64"), expected.length, {
			N: stored.N,
			r: stored.r,
			p: stored.p,
			maxmem: SCRYPT_MAX_MEMORY,
		});
		return timingSafeEqual(actual, expected);
	}

	// ---- browser sessions --------------------------------------------------------------------------

	/**
	 * The cookie value and the browser key of a new signed-in browser. Throws `SessionLimitError` when every
	 * slot is held by a browser that has used its session (see BrowserSessions.create).
	 */
	createBrowserSession(origin: { via: "password" | "link"; lineage?: string[] } = { via: "password" }): {
		id: string;
		token: string;
		key: string;
		expiresAt: number;
	} {
		const created = this.sessions.create({ id: this.newId(), via: origin.via, lineage: origin.lineage ?? [] });
		try {
			this.save();
		} catch (error) {
			this.sessions.undo(created);
			throw error;
		}
		return { id: created.record.id, token: created.token, key: created.key, expiresAt: created.record.expiresAt };
	}

	/** The cookie and the key together; either alone is `no_session` or `bad_key`. */
	checkBrowserSession(token: string | undefined, key: string | undefined): BrowserCheck {
		return this.identifyBrowser(token, key).verdict;
	}

	/** As checkBrowserSession, with the session's id when it is `ok`. */
	identifyBrowser(token: string | undefined, key: string | undefined): { verdict: BrowserCheck; id?: string } {
		const { verdict, record, firstUse, expired } = this.sessions.check(token, key);
		if (expired) this.dirty = true;
		if (firstUse) {
			try {
				this.save();
			} catch {
				// Only the "used" mark would be lost (it is kept in memory); failing the request would be worse.
				this.dirty = true;
			}
		} else if (verdict === "ok") {
			this.dirty = true;
		}
		return record ? { verdict, id: record.id } : { verdict };
	}

	verifyBrowserSession(token: string | undefined, key: string | undefined): boolean {
		return this.checkBrowserSession(token, key) === "ok";
	}

	/**
	 * Signing out: ends this browser only. What it minted stays (listed, and still revoked with anything this
	 * browser descends from, since each credential keeps its whole lineage).
	 */
	revokeBrowserSession(token: string | undefined): boolean {
		if (!this.sessions.revoke(token)) return false;
		this.save();
		return true;
	}

	/** Signed-in browsers (for tests and diagnostics). */
	get browserSessionCount(): number {
		return this.sessions.size;
	}

	// ---- device tokens -----------------------------------------------------------------------------

	createDeviceToken(name: string, minter?: Minter): CreatedDeviceToken {
		const trimmed = typeof name === "string" ? name.trim() : "";
		if (!trimmed || trimmed.length > MAX_TOKEN_NAME_LENGTH) {
			throw new RangeError(`device token name must be 1-${MAX_TOKEN_NAME_LENGTH} characters`);
		}
		if (this.devices.size >= MAX_DEVICE_TOKENS) {
			throw new RangeError(`at most ${MAX_DEVICE_TOKENS} device tokens; revoke one first`);
		}
		const lineage = this.lineageBelow(minter);
		const id = this.newId();
		const token = DEVICE_TOKEN_PREFIX + randomBytes(32).toString("base64url");
		this.devices.set(id, {
			id,
			name: trimmed,
			hash: sha256(token),
			createdAt: this.now(),
			...(lineage.length > 0 ? { lineage } : {}),
		});
		try {
			this.save();
		} catch (error) {
			this.devices.delete(id);
			throw error;
		}
		return { id, name: trimmed, token };
	}

	listDeviceTokens(): DeviceTokenInfo[] {
		return [...this.devices.values()].map((d) => ({
			id: d.id,
			name: d.name,
			createdAt: new Date(d.createdAt).toISOString(),
			...(d.lastUsedAt !== undefined ? { lastUsedAt: new Date(d.lastUsedAt).toISOString() } : {}),
			...(mintedBy(d.lineage) !== undefined ? { mintedBy: mintedBy(d.lineage) } : {}),
		}));
	}

	/** Revokes the device token `id` and everything minted through it (see revokeCredential). */
	revokeDeviceToken(id: string): boolean {
		return this.devices.has(id) && this.revokeCredential(id) !== undefined;
	}

	/** Returns the token's identity when it is valid. */
	verifyDeviceToken(token: string | undefined): { id: string; name: string } | undefined {
		if (!isPlausibleSecret(token) || !token.startsWith(DEVICE_TOKEN_PREFIX)) return undefined;
		const hash = sha256(token);
		for (const d of this.devices.values()) {
			if (d.hash !== hash) continue;
			const now = this.now();
			d.lastUsedAt = now;
			this.dirty = true;
			if (now - (this.lastUsedPersisted.get(d.id) ?? Number.NEGATIVE_INFINITY) >= LAST_USED_PERSIST_MS) {
				try {
					this.save();
				} catch {
					// Only lastUsedAt would be lost; failing the request for that would be worse.
				}
			}
			return { id: d.id, name: d.name };
		}
		return undefined;
	}

	// ---- pairing links ----------------------------------------------------------------------------

	/** A one-time link; the browser it signs in is minted through `minter` (pairing-links.ts). */
	createPairingToken(ttlMs: number, minter?: Minter): PairingToken {
		const { token, record } = this.pairing.create(ttlMs, this.lineageBelow(minter), () => this.newId());
		return { id: record.id, token, expiresAt: record.expiresAt };
	}

	/** Uses up a link: the lineage the browser it signs in gets, or `false` when it is unknown, used or expired. */
	consumePairingToken(token: string | undefined): { lineage: string[] } | false {
		const link = this.pairing.consume(token);
		if (link) return { lineage: link.lineage };
		// Not one of ours: perhaps `pier pair` minted it for this state directory (a root, like a password login).
		if (link === undefined && takePairingToken(dirname(this.path), token, this.now())) return { lineage: [] };
		return false;
	}

	// ---- every credential --------------------------------------------------------------------------

	/** Device tokens, signed-in browsers and unused pairing links (the daemon's and `pier pair`'s). */
	listCredentials(): CredentialInfo[] {
		return describeCredentials({
			devices: [...this.devices.values()],
			browsers: this.sessions.list(),
			links: this.pairing.list(),
			inbox: inboxLinks(dirname(this.path), this.now()),
		});
	}

	/**
	 * Revokes the credential `id` and, transitively, every token, pairing link and browser minted through it. The
	 * revocation takes effect in memory even if the write fails; the error still reaches the caller. `undefined`
	 * when no credential has that id.
	 */
	revokeCredential(id: string): string[] | undefined {
		if (id.startsWith(INBOX_ID_PREFIX)) {
			return dropInboxLink(dirname(this.path), id.slice(INBOX_ID_PREFIX.length), this.now()) ? [id] : undefined;
		}
		if (!this.devices.has(id) && !this.sessions.byId(id) && !this.pairing.has(id)) return undefined;
		const revoked = new Set([id]);
		const gone: string[] = [];
		for (const [key, d] of this.devices) {
			if (!revoked.has(key) && !descendsFrom(d.lineage, revoked)) continue;
			this.devices.delete(key);
			this.lastUsedPersisted.delete(key);
			gone.push(key);
		}
		gone.push(...this.sessions.revokeIds(revoked), ...this.pairing.revoke(revoked));
		// The share links a revoked credential created end with it.
		this.shares.revokeMintedBy(new Set(gone));
		this.save();
		return gone;
	}

	/** The lineage of what `minter` mints: its own, and itself. */
	private lineageBelow(minter: Minter | undefined): string[] {
		if (!minter) return [];
		const own = this.devices.get(minter.id)?.lineage ?? this.sessions.byId(minter.id)?.lineage;
		if (!this.devices.has(minter.id) && !this.sessions.byId(minter.id)) {
			throw new RangeError("the credential minting this was revoked");
		}
		return childLineage(own ?? [], minter.id);
	}

	/** Ids are public; one space for every kind, so a revocation names exactly one credential. */
	private newId(): string {
		for (;;) {
			const id = randomBytes(9).toString("base64url");
			if (!this.devices.has(id) && !this.sessions.byId(id) && !this.pairing.has(id)) return id;
		}
	}

	// ---- persistence -------------------------------------------------------------------------------

	/** Writes pending lazy updates (lastUsedAt, expired sessions); the daemon calls it on shutdown. */
	flush(): void {
		if (this.dirty) this.save();
	}

	private save(): void {
		const file: AuthFile = {
			version: FILE_VERSION,
			...(this.password ? { password: this.password } : {}),
			browserSessions: this.sessions.list(),
			deviceTokens: [...this.devices.values()],
		};
		writeFileAtomic(this.path, `${JSON.stringify(file, null, "\t")}\n`);
		this.dirty = false;
		for (const d of this.devices.values()) {
			if (d.lastUsedAt !== undefined) this.lastUsedPersisted.set(d.id, d.lastUsedAt);
		}
	}
}

// ---- helpers ----------------------------------------------------------------------------------------

function scrypt(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		scryptCallback(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key)));
	});
}

// The same password typed on two keyboards can arrive as different Unicode sequences.
function normalize(password: string): string {
	return password.normalize("NFC");
}

function checkPassword(password: string): void {
	if (typeof password !== "string" || password.length === 0) throw new RangeError("password must not be empty");
	if (password.length > MAX_PASSWORD_LENGTH) {
		throw new RangeError(`password must be at most ${MAX_PASSWORD_LENGTH} characters`);
	}
}

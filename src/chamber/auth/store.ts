/**
 * The chamber's credentials: the UI password (as an scrypt hash), browser sessions (browser-sessions.ts) and
 * device tokens, kept in `<stateDir>/auth.json` (auth-file.ts), plus one-time pairing tokens kept in memory
 * (the daemon's own) or in `<stateDir>/pairing-inbox.json` (`pier pair`'s). Secrets that we hand out are stored as SHA-256 hashes, so a leaked auth.json cannot be replayed as a
 * cookie, a browser key or a bearer token.
 */
import { dirname } from "node:path";
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
import { takePairingToken } from "./pairing-inbox.js";

export type { PasswordHash } from "./auth-file.js";
export { BROWSER_SESSION_TTL_MS, type BrowserCheck, SessionLimitError } from "./browser-sessions.js";
export const DEVICE_TOKEN_PREFIX = "pier_dt_";

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 64, saltBytes: 16 } as const;
// Bounds that keep the file and the in-memory maps small whatever a client does.
const MAX_DEVICE_TOKENS = 256;
const MAX_PAIRING_TOKENS = 1000;
const MAX_PASSWORD_LENGTH = 4096;
const MAX_TOKEN_NAME_LENGTH = 100;
// lastUsedAt is informational; writing the file on every request would be wasteful, hourly is precise enough.
const LAST_USED_PERSIST_MS = 60 * 60 * 1000;

export interface DeviceTokenInfo {
	id: string;
	name: string;
	/** ISO 8601 */
	createdAt: string;
	/** ISO 8601 */
	lastUsedAt?: string;
}

export interface CreatedDeviceToken {
	id: string;
	name: string;
	/** Shown once: only its hash is kept. */
	token: string;
}

export interface PairingToken {
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
	private readonly pairing = new Map<string, number>();
	private readonly lastUsedPersisted = new Map<string, number>();
	private dirty = false;

	constructor(path: string, options: AuthStoreOptions = {}) {
		this.path = path;
		this.now = options.now ?? Date.now;
		const file = readAuthFile(path);
		this.sessions = new BrowserSessions(this.now, file?.browserSessions, options.maxBrowserSessions);
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
	createBrowserSession(): { token: string; key: string; expiresAt: number } {
		const created = this.sessions.create();
		try {
			this.save();
		} catch (error) {
			this.sessions.undo(created);
			throw error;
		}
		return { token: created.token, key: created.key, expiresAt: created.record.expiresAt };
	}

	/** The cookie and the key together; either alone is `no_session` or `bad_key`. */
	checkBrowserSession(token: string | undefined, key: string | undefined): BrowserCheck {
		const { verdict, firstUse, expired } = this.sessions.check(token, key);
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
		return verdict;
	}

	verifyBrowserSession(token: string | undefined, key: string | undefined): boolean {
		return this.checkBrowserSession(token, key) === "ok";
	}

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

	createDeviceToken(name: string): CreatedDeviceToken {
		const trimmed = typeof name === "string" ? name.trim() : "";
		if (!trimmed || trimmed.length > MAX_TOKEN_NAME_LENGTH) {
			throw new RangeError(`device token name must be 1-${MAX_TOKEN_NAME_LENGTH} characters`);
		}
		if (this.devices.size >= MAX_DEVICE_TOKENS) {
			throw new RangeError(`at most ${MAX_DEVICE_TOKENS} device tokens; revoke one first`);
		}
		let id = randomBytes(9).toString("base64url");
		while (this.devices.has(id)) id = randomBytes(9).toString("base64url");
		const token = DEVICE_TOKEN_PREFIX + randomBytes(32).toString("base64url");
		this.devices.set(id, { id, name: trimmed, hash: sha256(token), createdAt: this.now() });
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
		}));
	}

	revokeDeviceToken(id: string): boolean {
		// Revocation takes effect in memory even if the write fails; the error still reaches the caller.
		if (!this.devices.delete(id)) return false;
		this.lastUsedPersisted.delete(id);
		this.save();
		return true;
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

	// ---- pairing tokens ----------------------------------------------------------------------------

	/**
	 * In memory only: a restart invalidates outstanding links, which errs on the safe side. Links that
	 * `pier pair` minted wait in the state directory instead (pairing-inbox.ts).
	 */
	createPairingToken(ttlMs: number): PairingToken {
		if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError("pairing token ttl must be a positive number");
		const now = this.now();
		for (const [hash, expiresAt] of this.pairing) if (expiresAt <= now) this.pairing.delete(hash);
		while (this.pairing.size >= MAX_PAIRING_TOKENS) {
			const oldest = this.pairing.keys().next().value;
			if (oldest === undefined) break;
			this.pairing.delete(oldest);
		}
		const token = randomBytes(32).toString("base64url");
		const expiresAt = now + ttlMs;
		this.pairing.set(sha256(token), expiresAt);
		return { token, expiresAt };
	}

	consumePairingToken(token: string | undefined): boolean {
		if (!isPlausibleSecret(token)) return false;
		const hash = sha256(token);
		const expiresAt = this.pairing.get(hash);
		// Not one of ours: perhaps `pier pair` minted it for this state directory.
		if (expiresAt === undefined) return takePairingToken(dirname(this.path), token, this.now());
		this.pairing.delete(hash);
		return expiresAt > this.now();
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

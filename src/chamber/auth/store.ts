/**
 * The chamber's credentials: the UI password (as an scrypt hash), browser sessions and device tokens, kept in
 * `<stateDir>/auth.json`, plus one-time pairing tokens kept in memory only. Secrets that we hand out are
 * stored as SHA-256 hashes, so a leaked auth.json cannot be replayed as a cookie or a bearer token.
 */
import { createHash, randomBytes, type ScryptOptions, scrypt as scryptCallback, timingSafeEqual } from "node:crypto";
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";

export const BROWSER_SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const DEVICE_TOKEN_PREFIX = "pier_dt_";

const FILE_VERSION = 1;
const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 64, saltBytes: 16 } as const;
// A hand-edited or hostile auth.json must not make a login allocate gigabytes.
const SCRYPT_MAX_MEMORY = 64 * 1024 * 1024;
// Bounds that keep the file and the in-memory maps small whatever a client does.
const MAX_BROWSER_SESSIONS = 1000;
const MAX_DEVICE_TOKENS = 256;
const MAX_PAIRING_TOKENS = 1000;
const MAX_SECRET_LENGTH = 512;
const MAX_PASSWORD_LENGTH = 4096;
const MAX_TOKEN_NAME_LENGTH = 100;
// lastUsedAt is informational; writing the file on every request would be wasteful, hourly is precise enough.
const LAST_USED_PERSIST_MS = 60 * 60 * 1000;

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
}

interface SessionRecord {
	hash: string;
	createdAt: number;
	expiresAt: number;
}

interface DeviceRecord {
	id: string;
	name: string;
	hash: string;
	createdAt: number;
	lastUsedAt?: number;
}

interface AuthFile {
	version: typeof FILE_VERSION;
	password?: PasswordHash;
	browserSessions: SessionRecord[];
	deviceTokens: DeviceRecord[];
}

export class AuthStore {
	readonly path: string;
	private readonly now: () => number;
	private password: PasswordHash | undefined;
	private readonly sessions = new Map<string, SessionRecord>();
	private readonly devices = new Map<string, DeviceRecord>();
	private readonly pairing = new Map<string, number>();
	private readonly lastUsedPersisted = new Map<string, number>();
	private dirty = false;

	constructor(path: string, options: AuthStoreOptions = {}) {
		this.path = path;
		this.now = options.now ?? Date.now;
		const file = readAuthFile(path);
		if (!file) return;
		this.password = file.password;
		const now = this.now();
		for (const s of file.browserSessions) if (s.expiresAt > now) this.sessions.set(s.hash, s);
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
		const previous = { password: this.password, sessions: new Map(this.sessions) };
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
			for (const [k, v] of previous.sessions) this.sessions.set(k, v);
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

	createBrowserSession(): { token: string; expiresAt: number } {
		const now = this.now();
		this.pruneSessions(now);
		while (this.sessions.size >= MAX_BROWSER_SESSIONS) {
			// Insertion order is creation order, so this signs out the oldest browser.
			const oldest = this.sessions.keys().next().value;
			if (oldest === undefined) break;
			this.sessions.delete(oldest);
		}
		const token = randomBytes(32).toString("base64url");
		const record: SessionRecord = { hash: sha256(token), createdAt: now, expiresAt: now + BROWSER_SESSION_TTL_MS };
		this.sessions.set(record.hash, record);
		try {
			this.save();
		} catch (error) {
			this.sessions.delete(record.hash);
			throw error;
		}
		return { token, expiresAt: record.expiresAt };
	}

	verifyBrowserSession(token: string | undefined): boolean {
		if (!isPlausibleSecret(token)) return false;
		// Looking up the hash (not the token) leaks nothing useful through timing: the hash prefix of a guess
		// says nothing about a token whose hash matches it.
		const record = this.sessions.get(sha256(token));
		if (!record) return false;
		if (record.expiresAt <= this.now()) {
			this.sessions.delete(record.hash);
			this.dirty = true;
			return false;
		}
		return true;
	}

	revokeBrowserSession(token: string | undefined): boolean {
		if (!isPlausibleSecret(token)) return false;
		if (!this.sessions.delete(sha256(token))) return false;
		this.save();
		return true;
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

	/** In memory only: a restart invalidates outstanding links, which errs on the safe side. */
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
		if (expiresAt === undefined) return false;
		this.pairing.delete(hash);
		return expiresAt > this.now();
	}

	// ---- persistence -------------------------------------------------------------------------------

	/** Writes pending lazy updates (lastUsedAt, expired sessions); the daemon calls it on shutdown. */
	flush(): void {
		if (this.dirty) this.save();
	}

	private pruneSessions(now: number): void {
		for (const [hash, s] of this.sessions) if (s.expiresAt <= now) this.sessions.delete(hash);
	}

	private save(): void {
		this.pruneSessions(this.now());
		const file: AuthFile = {
			version: FILE_VERSION,
			...(this.password ? { password: this.password } : {}),
			browserSessions: [...this.sessions.values()],
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

function sha256(value: string): string {
	return createHash("sha256").update(value).digest("base64url");
}

function isPlausibleSecret(token: string | undefined): token is string {
	return typeof token === "string" && token.length > 0 && token.length <= MAX_SECRET_LENGTH;
}

function writeFileAtomic(path: string, data: string): void {
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

function readAuthFile(path: string): AuthFile | undefined {
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
	raw.browserSessions.forEach((s: unknown, i: number) => {
		if (!isRecord(s) || !isNonEmptyString(s.hash) || !isTime(s.createdAt) || !isTime(s.expiresAt)) {
			fail(`browserSessions[${i}] must be {hash, createdAt, expiresAt}`);
		} else {
			file.browserSessions.push({ hash: s.hash, createdAt: s.createdAt, expiresAt: s.expiresAt });
		}
	});
	if (!Array.isArray(raw.deviceTokens)) return fail("deviceTokens must be an array");
	const ids = new Set<string>();
	raw.deviceTokens.forEach((d: unknown, i: number) => {
		if (
			!isRecord(d) ||
			!isNonEmptyString(d.id) ||
			typeof d.name !== "string" ||
			!isNonEmptyString(d.hash) ||
			!isTime(d.createdAt) ||
			(d.lastUsedAt !== undefined && !isTime(d.lastUsedAt))
		) {
			fail(`deviceTokens[${i}] must be {id, name, hash, createdAt, lastUsedAt?}`);
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

function isTime(value: unknown): value is number {
	return typeof value === "number" && Number.isFinite(value);
}

function isBase64(value: unknown): value is string {
	return typeof value === "string" && /^[A-Za-z0-9+/]+={0,2}$/.test(value);
}

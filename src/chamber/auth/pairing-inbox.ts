/**
 * Pairing links minted outside the daemon (`pier pair`), so a signed-out user is never locked out: the
 * command writes the link's hash to `<stateDir>/pairing-inbox.json`, and the daemon, asked for a token it
 * does not hold, takes it from there (once). The daemon also leaves `<stateDir>/daemon.json` with the
 * addresses it serves, so the command can print a link that reaches it. Only hashes are stored.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "./auth-file.js";
import { isPlausibleSecret, sha256 } from "./browser-sessions.js";

const INBOX = "pairing-inbox.json";
const DAEMON = "daemon.json";
const MAX_INBOX = 100;

export interface InboxEntry {
	hash: string;
	expiresAt: number;
}

export interface DaemonRecord {
	pid: number;
	/** Every address the page is reachable on: loopback first, then LAN addresses when bound wider. */
	urls: string[];
	startedAt: string;
}

function readInbox(stateDir: string): InboxEntry[] {
	const file = join(stateDir, INBOX);
	if (!existsSync(file)) return [];
	try {
		const entries = JSON.parse(readFileSync(file, "utf8")) as unknown;
		return Array.isArray(entries)
			? entries.filter((e): e is InboxEntry => typeof e?.hash === "string" && typeof e?.expiresAt === "number")
			: [];
	} catch {
		return [];
	}
}

/** `pier pair`: a link's token, its hash left for the daemon (now or when it next starts). */
export function mintPairingToken(stateDir: string, token: string, expiresAt: number, now = Date.now()): void {
	const kept = readInbox(stateDir).filter((e) => e.expiresAt > now);
	kept.push({ hash: sha256(token), expiresAt });
	writeFileAtomic(join(stateDir, INBOX), `${JSON.stringify(kept.slice(-MAX_INBOX))}\n`);
}

/** The daemon: takes a token minted by `pier pair`; true when it was there and unexpired (one use). */
export function takePairingToken(stateDir: string, token: string | undefined, now = Date.now()): boolean {
	if (!isPlausibleSecret(token)) return false;
	const hash = sha256(token);
	const entries = readInbox(stateDir);
	const found = entries.find((e) => e.hash === hash);
	if (!found) return false;
	writeFileAtomic(
		join(stateDir, INBOX),
		`${JSON.stringify(entries.filter((e) => e !== found && e.expiresAt > now))}\n`,
	);
	return found.expiresAt > now;
}

/** The links `pier pair` minted that the daemon has not taken yet (unexpired). */
export function inboxLinks(stateDir: string, now = Date.now()): InboxEntry[] {
	return readInbox(stateDir).filter((e) => e.expiresAt > now);
}

/** Revokes the unused `pier pair` link whose hash starts with `hashPrefix`; false when there is none. */
export function dropInboxLink(stateDir: string, hashPrefix: string, now = Date.now()): boolean {
	const entries = readInbox(stateDir);
	const live = entries.filter((e) => e.expiresAt > now);
	const kept = live.filter((e) => !(hashPrefix.length > 0 && e.hash.startsWith(hashPrefix)));
	if (kept.length === live.length) return false;
	writeFileAtomic(join(stateDir, INBOX), `${JSON.stringify(kept)}\n`);
	return true;
}

export function writeDaemonRecord(stateDir: string, record: DaemonRecord): void {
	writeFileAtomic(join(stateDir, DAEMON), `${JSON.stringify(record)}\n`);
}

export function removeDaemonRecord(stateDir: string): void {
	rmSync(join(stateDir, DAEMON), { force: true });
}

/** The running daemon of that state directory, if its record is there and its process lives. */
export function runningDaemon(stateDir: string): DaemonRecord | undefined {
	const file = join(stateDir, DAEMON);
	if (!existsSync(file)) return undefined;
	try {
		const record = JSON.parse(readFileSync(file, "utf8")) as DaemonRecord;
		process.kill(record.pid, 0);
		return record;
	} catch {
		return undefined;
	}
}

/**
 * The daemon's VAPID key pair (RFC 8292): made once, on the first use of push, and kept in the state directory
 * (`vapid.json`, mode 0600), because every browser's push subscription is bound to the public key it subscribed
 * with: a new key would silently orphan them all.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import webpush from "web-push";

export interface VapidKeys {
	/** base64url, the uncompressed P-256 point (65 bytes): what `pushManager.subscribe` takes. */
	publicKey: string;
	/** base64url, the 32-byte private scalar. */
	privateKey: string;
}

/** The contact push services are given (RFC 8292 `sub`); pier has no site of its own to name. */
export const VAPID_SUBJECT = "mailto:pier@localhost";

const B64URL = /^[A-Za-z0-9_-]+$/;

function bytes(text: unknown, length: number): boolean {
	return typeof text === "string" && B64URL.test(text) && Buffer.from(text, "base64url").length === length;
}

/**
 * Reads the key pair, making it when the file does not exist. A file that is not a key pair is an error naming the
 * file and what to do: replacing it here would orphan every device's subscription without a word.
 */
export function loadVapidKeys(file: string): VapidKeys {
	if (!existsSync(file)) {
		const keys = webpush.generateVAPIDKeys();
		mkdirSync(dirname(file), { recursive: true });
		try {
			// `wx`: two daemons starting on one state directory never write two different keys.
			writeFileSync(file, `${JSON.stringify({ ...keys, createdAt: new Date().toISOString() }, null, 2)}\n`, {
				mode: 0o600,
				flag: "wx",
			});
			return keys;
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
		}
	}
	// The private key signs every push: nobody else on the machine reads it.
	if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
	let parsed: unknown;
	try {
		parsed = JSON.parse(readFileSync(file, "utf8"));
	} catch (error) {
		throw new Error(`${file}: not valid JSON (${(error as Error).message}); remove it to make new keys`);
	}
	const keys = parsed as Partial<VapidKeys> | null;
	if (!keys || !bytes(keys.publicKey, 65) || !bytes(keys.privateKey, 32)) {
		throw new Error(
			`${file}: publicKey (65 bytes) and privateKey (32 bytes) must be base64url; remove the file to make new keys (devices then enable notifications again)`,
		);
	}
	return { publicKey: keys.publicKey as string, privateKey: keys.privateKey as string };
}

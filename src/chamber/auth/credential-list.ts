/**
 * Every credential the chamber honours, as the credential list shows it (`GET /api/auth/credentials`): device
 * tokens, signed-in browsers and pairing links not yet used. Ids are public; no secret or hash leaves here, except
 * a prefix of a `pier pair` link's hash, which names that link and says nothing about its token.
 */
import type { DeviceRecord, SessionRecord } from "./auth-file.js";
import { mintedBy } from "./lineage.js";
import type { InboxEntry } from "./pairing-inbox.js";
import type { PairingLinkRecord } from "./pairing-links.js";

/** Ids of `pier pair` links: they live in the state directory, not in the daemon's store. */
export const INBOX_ID_PREFIX = "pair_";
export const INBOX_ID_HASH_CHARS = 16;

export interface CredentialInfo {
	id: string;
	kind: "device" | "browser" | "pairing";
	/** A device token's name. */
	name?: string;
	/** ISO 8601 */
	createdAt?: string;
	/** ISO 8601 */
	lastUsedAt?: string;
	/** ISO 8601: browsers and pairing links expire. */
	expiresAt?: string;
	/** A browser's sign-in: the password, or a pairing link. */
	via?: "password" | "link";
	/** The credential that minted it (it may since be gone); absent for a password login or `pier pair`. */
	mintedBy?: string;
	/** "pier pair" for links minted by that command. */
	source?: "pier pair";
}

export function describeCredentials(all: {
	devices: readonly DeviceRecord[];
	browsers: readonly SessionRecord[];
	links: readonly PairingLinkRecord[];
	inbox: readonly InboxEntry[];
}): CredentialInfo[] {
	const iso = (t: number) => new Date(t).toISOString();
	const parent = (lineage: readonly string[] | undefined) => {
		const by = mintedBy(lineage);
		return by === undefined ? {} : { mintedBy: by };
	};
	return [
		...all.devices.map(
			(d): CredentialInfo => ({
				id: d.id,
				kind: "device",
				name: d.name,
				createdAt: iso(d.createdAt),
				...(d.lastUsedAt !== undefined ? { lastUsedAt: iso(d.lastUsedAt) } : {}),
				...parent(d.lineage),
			}),
		),
		...all.browsers.map(
			(s): CredentialInfo => ({
				id: s.id,
				kind: "browser",
				createdAt: iso(s.createdAt),
				...(s.lastUsedAt !== undefined ? { lastUsedAt: iso(s.lastUsedAt) } : {}),
				expiresAt: iso(s.expiresAt),
				...(s.via !== undefined ? { via: s.via } : {}),
				...parent(s.lineage),
			}),
		),
		...all.links.map(
			(l): CredentialInfo => ({
				id: l.id,
				kind: "pairing",
				createdAt: iso(l.createdAt),
				expiresAt: iso(l.expiresAt),
				...parent(l.lineage),
			}),
		),
		...all.inbox.map(
			(e): CredentialInfo => ({
				id: INBOX_ID_PREFIX + e.hash.slice(0, INBOX_ID_HASH_CHARS),
				kind: "pairing",
				expiresAt: iso(e.expiresAt),
				source: "pier pair",
			}),
		),
	];
}

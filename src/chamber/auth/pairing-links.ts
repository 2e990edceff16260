/**
 * The daemon's own one-time pairing links, in memory only: a restart invalidates outstanding links, which errs on
 * the safe side (links that `pier pair` minted wait in the state directory instead, pairing-inbox.ts). Each link
 * has a public id and the lineage of the credential that minted it (lineage.ts), so it can be listed, revoked on
 * its own, and revoked with what minted it; the browser it signs in inherits that lineage.
 */
import { randomBytes } from "node:crypto";
import { isPlausibleSecret, sha256 } from "./browser-sessions.js";
import { descendsFrom } from "./lineage.js";

const MAX_PAIRING_TOKENS = 1000;

export interface PairingLinkRecord {
	id: string;
	/** SHA-256 of the token. */
	hash: string;
	createdAt: number;
	expiresAt: number;
	lineage: string[];
}

export class PairingLinks {
	// Insertion order is creation order: at the cap, the oldest link goes.
	private readonly links = new Map<string, PairingLinkRecord>();

	constructor(private readonly now: () => number) {}

	create(ttlMs: number, lineage: string[], newId: () => string): { token: string; record: PairingLinkRecord } {
		if (!Number.isFinite(ttlMs) || ttlMs <= 0) throw new RangeError("pairing token ttl must be a positive number");
		const now = this.now();
		this.prune(now);
		while (this.links.size >= MAX_PAIRING_TOKENS) {
			const oldest = this.links.keys().next().value;
			if (oldest === undefined) break;
			this.links.delete(oldest);
		}
		const token = randomBytes(32).toString("base64url");
		const record: PairingLinkRecord = {
			id: newId(),
			hash: sha256(token),
			createdAt: now,
			expiresAt: now + ttlMs,
			lineage,
		};
		this.links.set(record.hash, record);
		return { token, record };
	}

	/**
	 * `undefined` when the token is not one of ours (perhaps `pier pair` minted it); `false` when it is ours but
	 * expired; the link otherwise. Either way a token of ours is used up.
	 */
	consume(token: string | undefined): PairingLinkRecord | false | undefined {
		if (!isPlausibleSecret(token)) return false;
		const hash = sha256(token);
		const record = this.links.get(hash);
		if (!record) return undefined;
		this.links.delete(hash);
		return record.expiresAt > this.now() ? record : false;
	}

	has(id: string): boolean {
		return this.list().some((l) => l.id === id);
	}

	list(): PairingLinkRecord[] {
		this.prune(this.now());
		return [...this.links.values()];
	}

	/** Removes the link `id` and every link minted through one of `revoked`; returns the ids removed. */
	revoke(revoked: ReadonlySet<string>): string[] {
		const gone: string[] = [];
		for (const [hash, link] of this.links) {
			if (!revoked.has(link.id) && !descendsFrom(link.lineage, revoked)) continue;
			this.links.delete(hash);
			gone.push(link.id);
		}
		return gone;
	}

	private prune(now: number): void {
		for (const [hash, link] of this.links) if (link.expiresAt <= now) this.links.delete(hash);
	}
}

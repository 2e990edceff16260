/**
 * The share links' wire (docs/chamber-api.md, "Share links"): the request body, the answers and the stream's last
 * event. The daemon and the web app both import it; it stays free of Node imports.
 */
import { Type } from "typebox";

export const SHARE_MODES = ["view", "control"] as const;
export type ShareMode = (typeof SHARE_MODES)[number];
export type ShareEndReason = "revoked" | "expired";

/** An hour unless asked; a day at most: a link outlives the conversation it was sent in only briefly. */
export const SHARE_TTL_DEFAULT_SECONDS = 3600;
export const SHARE_TTL_MAX_SECONDS = 86_400;

/** Where a share link carries its token: the fragment, which browsers never send to the server. */
export const SHARE_FRAGMENT = "share";

export const ShareBodies = {
	create: Type.Object(
		{
			mode: Type.Union(SHARE_MODES.map((m) => Type.Literal(m))),
			ttlSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: SHARE_TTL_MAX_SECONDS })),
		},
		{ additionalProperties: false },
	),
};

/** A link as lists show it: never its token. */
export interface ShareInfo {
	id: string;
	sessionId: string;
	mode: ShareMode;
	/** ISO 8601 */
	createdAt: string;
	/** ISO 8601 */
	expiresAt: string;
	/** The credential that created it. */
	mintedBy?: string;
}

/** `POST /api/pi/sessions/:id/share`: the token is shown once, only its hash is kept. */
export interface CreatedShare extends ShareInfo {
	token: string;
	/** The chamber's page with the token in the fragment (`#share=…`). */
	url: string;
}

export interface ShareListResponse {
	shares: ShareInfo[];
}

/** The last event on a stream held with a share token, just before the daemon ends it. */
export interface ShareEndedPayload {
	shareId: string;
	reason: ShareEndReason;
}
export const SHARE_ENDED_EVENT = "share.ended";

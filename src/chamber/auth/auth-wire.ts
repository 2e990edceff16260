/**
 * The answers of `/api/auth` (http.ts, credential-routes.ts), declared once as TypeBox schemas: the routes use
 * their `Static` types and the OpenAPI document (openapi/operations.ts) publishes them. Free of Node imports, like
 * the other wire files: the web app and `pier/client` compile it.
 */
import { type Static, Type } from "typebox";
import type { CredentialInfo } from "./credential-list.js";

export const AuthStatusResponse = Type.Object({
	authenticated: Type.Boolean(),
	passwordConfigured: Type.Boolean(),
	pairCommand: Type.String({
		description: "What to run where the daemon runs for a new sign-in link (e.g. `pier pair`, `npm start -- pair`).",
	}),
});

/** Login and pairing: the cookie comes as Set-Cookie, the key in the body (the page keeps it in localStorage). */
export const SignedInResponse = Type.Object({ ok: Type.Literal(true), key: Type.String() });

export const PairingLinkResponse = Type.Object({
	id: Type.String({ description: "Names the link in the credential list." }),
	token: Type.String(),
	expiresAt: Type.Number({ description: "Epoch milliseconds." }),
	urls: Type.Optional(
		Type.Array(Type.String(), { description: "Every address the daemon serves: the link may use any." }),
	),
});

export const DeviceTokenInfo = Type.Object({
	id: Type.String(),
	name: Type.String(),
	createdAt: Type.String({ description: "ISO 8601." }),
	lastUsedAt: Type.Optional(Type.String({ description: "ISO 8601." })),
	mintedBy: Type.Optional(
		Type.String({
			description: "The credential that minted it (it may since be gone); absent: the daemon's own code.",
		}),
	),
});

export const DeviceTokenListResponse = Type.Object({ tokens: Type.Array(DeviceTokenInfo) });

export const CreatedDeviceTokenResponse = Type.Object({
	id: Type.String(),
	name: Type.String(),
	token: Type.String({ description: "Shown once: only its hash is kept." }),
});

export const CredentialListResponse = Type.Object({
	credentials: Type.Array(
		Type.Unsafe<CredentialInfo>({ type: "object", description: "A credential (src/chamber/auth/credential-list.ts)." }),
	),
	current: Type.String({ description: "The id of the credential this request came with." }),
});

export const RevokedResponse = Type.Object({
	ok: Type.Literal(true),
	revoked: Type.Array(Type.String(), { description: "The credential named, then everything minted through it." }),
});

export type AuthStatusResponse = Static<typeof AuthStatusResponse>;
export type SignedInResponse = Static<typeof SignedInResponse>;
export type PairingLinkResponse = Static<typeof PairingLinkResponse>;
export type DeviceTokenInfo = Static<typeof DeviceTokenInfo>;
export type DeviceTokenListResponse = Static<typeof DeviceTokenListResponse>;
export type CreatedDeviceTokenResponse = Static<typeof CreatedDeviceTokenResponse>;
export type CredentialListResponse = Static<typeof CredentialListResponse>;
export type RevokedResponse = Static<typeof RevokedResponse>;

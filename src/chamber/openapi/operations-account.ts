/**
 * The document itself, sign-in and credentials, notifications: entries of operations.ts.
 */
import { Type } from "typebox";
import {
	AuthStatusResponse,
	CreatedDeviceTokenResponse,
	CredentialListResponse,
	DeviceTokenListResponse,
	PairingLinkResponse,
	RevokedResponse,
	SignedInResponse,
} from "../auth/auth-wire.js";
import { type Operation, Ok, PushDevice } from "./operation.js";

export const ACCOUNT_OPERATIONS = {
	// ---- the document itself ----
	"GET /api/openapi.json": {
		summary: "This OpenAPI document (no credential needed: it describes routes, never data or secrets).",
		response: Type.Object({}, { additionalProperties: true, description: "An OpenAPI 3.1 document." }),
		public: true,
	},

	// ---- sign-in and credentials (auth/http.ts, auth/credential-routes.ts) ----
	"GET /api/auth/status": {
		summary: "Whether this request is signed in, and how a new sign-in link is made.",
		response: AuthStatusResponse,
		public: true,
	},
	"POST /api/auth/login": {
		summary: "Sign in with the UI password: a session cookie and the browser key.",
		body: Type.Object({ password: Type.String() }),
		response: SignedInResponse,
		public: true,
	},
	"POST /api/auth/pair": {
		summary: "Sign in with a one-use pairing token.",
		body: Type.Object({ token: Type.String() }),
		response: SignedInResponse,
		public: true,
	},
	"POST /api/auth/logout": { summary: "Sign this browser out.", body: Type.Object({}), response: Ok },
	"POST /api/auth/pairing-links": {
		summary: "A one-use pairing link for another device.",
		body: Type.Object({ ttlSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })) }),
		response: PairingLinkResponse,
	},
	"GET /api/auth/tokens": {
		summary: "The device tokens.",
		response: DeviceTokenListResponse,
	},
	"POST /api/auth/tokens": {
		summary: "A new device token (shown once), for `Authorization: Bearer`.",
		body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
		response: CreatedDeviceTokenResponse,
	},
	"DELETE /api/auth/tokens/:id": { summary: "Revoke a device token and what it minted.", response: RevokedResponse },
	"GET /api/auth/credentials": {
		summary: "Every credential: device tokens, signed-in browsers, unused pairing links.",
		response: CredentialListResponse,
	},
	"DELETE /api/auth/credentials/:id": { summary: "Revoke a credential and what it minted.", response: RevokedResponse },

	// ---- notifications (push/routes.ts) ----
	"GET /api/push/vapid-key": {
		summary: "The daemon's VAPID public key.",
		response: Type.Object({ publicKey: Type.String() }),
	},
	"GET /api/push/settings": { summary: "This device's notification settings.", response: PushDevice },
	"PUT /api/push/settings": { summary: "Set this device's notification settings.", response: PushDevice },
	"POST /api/push/subscribe": { summary: "Subscribe this device to push.", response: PushDevice, status: 201 },
	"POST /api/push/unsubscribe": { summary: "Unsubscribe this device.", response: PushDevice },
} as const satisfies Record<string, Operation>;

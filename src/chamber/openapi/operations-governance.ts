/**
 * The routes of what governs a session and its extensions (share links, the audit trail, permission rules, the
 * package catalog): entries of operations.ts.
 */
import { Type } from "typebox";
import type * as Catalog from "../../extensions/catalog/wire.js";
import type { AuditView, PermissionsView } from "../audit/wire.js";
import { PermissionChange } from "../audit/wire.js";
import { EnabledBody, InspectBody, InstallBody, RemoveBody, UpdateBody } from "../packages/wire.js";
import type { CreatedShare, ShareInfo, ShareListResponse } from "../share/share-wire.js";
import { ShareBodies } from "../share/share-wire.js";
import { described } from "../wire-views.js";
import type { Operation } from "./operation.js";

const Permissions = described<PermissionsView>("The permission rules by source (src/chamber/audit/wire.ts).");
const CwdQuery = { cwd: Type.String({ description: "A project directory; the daemon's when absent." }) };

export const GOVERNANCE_OPERATIONS = {
	"POST /api/pi/sessions/:id/share": {
		summary: "Create a share link for one session (view or control).",
		body: ShareBodies.create,
		response: described<CreatedShare>("src/chamber/share/share-wire.ts CreatedShare: the token is shown once."),
		status: 201,
	},
	"GET /api/pi/sessions/:id/shares": {
		summary: "The session's live share links (no tokens).",
		response: described<ShareListResponse>("src/chamber/share/share-wire.ts ShareListResponse."),
	},
	"GET /api/pi/shares/current": {
		summary: "What the share link presenting this request is.",
		response: described<ShareInfo>("src/chamber/share/share-wire.ts ShareInfo."),
	},
	"DELETE /api/pi/shares/:shareId": {
		summary: "Revoke a share link; its open streams end.",
		response: Type.Object({ ok: Type.Literal(true), revoked: Type.String() }),
	},
	"GET /api/pi/audit": {
		summary: "The audit trail's newest decisions, overall or for one session.",
		query: {
			session: Type.String(),
			since: Type.String({ description: "An ISO time, or 30m, 1h, 2d, 1w." }),
			limit: Type.String({ pattern: "^[0-9]+$" }),
		},
		response: described<AuditView>("src/chamber/audit/wire.ts AuditView."),
	},
	"GET /api/pi/permissions": {
		summary: "The permission rules, global and the project's.",
		query: CwdQuery,
		response: Permissions,
	},
	"POST /api/pi/permissions": { summary: "Add a permission rule.", body: PermissionChange, response: Permissions },
	"DELETE /api/pi/permissions": { summary: "Remove a permission rule.", body: PermissionChange, response: Permissions },
	"GET /api/pi/packages": {
		summary: "Installed packages, with newer versions named.",
		query: CwdQuery,
		response: described<Catalog.InstalledView>("src/extensions/catalog/wire.ts InstalledView."),
	},
	"GET /api/pi/packages/search": {
		summary: "Search the npm registry for pi packages.",
		query: { q: Type.String(), size: Type.String(), from: Type.String(), ...CwdQuery },
		response: described<Catalog.SearchAnswer>("src/extensions/catalog/wire.ts SearchAnswer."),
	},
	"GET /api/pi/packages/details": {
		summary: "A registry package's details and README.",
		query: { name: Type.String(), ...CwdQuery },
		requiredQuery: ["name"],
		response: described<Catalog.PackageDetails>("src/extensions/catalog/wire.ts PackageDetails."),
	},
	"POST /api/pi/packages/inspect": {
		summary: "What installing a source would bring, before anything runs.",
		body: InspectBody,
		response: described<Catalog.Inspection>("src/extensions/catalog/wire.ts Inspection."),
	},
	"POST /api/pi/packages/install": {
		summary: "Install a package (confirmed).",
		body: InstallBody,
		response: described<Catalog.InstallAnswer>("src/extensions/catalog/wire.ts InstallAnswer."),
	},
	"POST /api/pi/packages/update": {
		summary: "Update a package.",
		body: UpdateBody,
		response: described<Catalog.UpdateAnswer>("src/extensions/catalog/wire.ts UpdateAnswer."),
	},
	"POST /api/pi/packages/remove": {
		summary: "Remove a package.",
		body: RemoveBody,
		response: described<Catalog.RemoveAnswer>("src/extensions/catalog/wire.ts RemoveAnswer."),
	},
	"PUT /api/pi/packages/enabled": {
		summary: "Switch a package on or off, for all projects or one.",
		body: EnabledBody,
		response: described<Catalog.EnabledAnswer>("src/extensions/catalog/wire.ts EnabledAnswer."),
	},
} as const satisfies Record<string, Operation>;

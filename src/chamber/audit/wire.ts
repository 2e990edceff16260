/** The wire of the audit trail's and the permission rules' routes (`/api/pi/audit`, `/api/pi/permissions`). */
import { type Static, Type } from "typebox";
import type { AuditEntry } from "../../audit/audit-log.js";

export type { AuditEntry };

export interface AuditView {
	/** Oldest first: the last `limit` decisions that match. */
	entries: AuditEntry[];
	/** How many matched before `limit` cut the oldest off. */
	total: number;
	file: string;
}

export const PERMISSION_LISTS = ["allow", "ask", "deny"] as const;
export type PermissionList = (typeof PERMISSION_LISTS)[number];

/** One settings file's rules. */
export interface PermissionSource {
	scope: "global" | "project";
	file: string;
	allow: string[];
	ask: string[];
	deny: string[];
	/** What in the file is not a rule list (each names the field), and rules the scope may not hold. */
	problems: string[];
}

export interface PermissionsView {
	global: PermissionSource;
	project: {
		cwd: string;
		/** Only a trusted project's rules are shown, added to or removed from. */
		trusted: boolean;
		source?: PermissionSource;
	};
}

export const PermissionChange = Type.Object(
	{
		scope: Type.Union([Type.Literal("global"), Type.Literal("project")]),
		list: Type.Union([Type.Literal("allow"), Type.Literal("ask"), Type.Literal("deny")]),
		rule: Type.String(),
		/** The project, for scope "project" (relative: to the daemon's directory). */
		cwd: Type.Optional(Type.String()),
	},
	{ additionalProperties: false },
);

export type PermissionChangeBody = Static<typeof PermissionChange>;

export const PERMISSION_CHANGE_SHAPE = `want {"scope":"global"|"project","list":"allow"|"ask"|"deny","rule":"bash(rm *)","cwd"?:"<project>"}`;

/**
 * What a share token may reach, as an allow-list checked once at the auth boundary (principal.ts `requireAuth`),
 * before any route runs. Anything not listed here is refused, so a route added later is closed to share links
 * until it is listed. Paths are compared segment by segment after the same decoding Hono gives route params, and
 * the session segment (or `?session=`) must be the link's own session exactly.
 *
 * - `view`: the session's reads that draw the transcript live: its view, older rows, the event stream, drawings,
 *   user images, the TUI palette CSS, and `GET /api/pi/shares/current` (what the link is).
 * - `control`: those, plus the session's acting routes named in CONTROL_PARTS (prompt, steer, abort, dialogs,
 *   commands, files, changes, MCP, worktree…), renaming it, and the model and extension lists of that session.
 *   Not the terminal: a shell is the machine, not the session (it can leave the project, read the state
 *   directory, mint credentials); not copy or fork (they make another session); not deleting the session, and
 *   never share links themselves.
 */
import type { SharePrincipal } from "./share-links.js";

const SESSION = Symbol("the link's session");
const ANY = Symbol("any one segment");
type Segment = string | typeof SESSION | typeof ANY;

interface Rule {
	methods: readonly string[];
	path: readonly Segment[];
	/** `path` is a prefix: any deeper path matches too. */
	deeper?: boolean;
	/** `?session=` must name the link's session. */
	sessionQuery?: boolean;
}

const READ = ["GET", "HEAD"] as const;
const ANY_METHOD = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;
const S = ["api", "pi", "sessions", SESSION] as const;

const VIEW_RULES: readonly Rule[] = [
	{ methods: READ, path: S },
	{ methods: READ, path: [...S, "rows"] },
	{ methods: READ, path: [...S, "drawings"] },
	{ methods: READ, path: [...S, "images", ANY, ANY] },
	{ methods: READ, path: ["api", "pi", "events"], sessionQuery: true },
	{ methods: READ, path: ["api", "pi", "tui-palette.css"] },
	{ methods: READ, path: ["api", "pi", "shares", "current"] },
];

/** The first segment after `/api/pi/sessions/:id/` of every route a control link may use, at any depth. */
export const CONTROL_PARTS = [
	"open",
	"rows",
	"drawings",
	"images",
	"prompt",
	"steer",
	"follow-up",
	"abort",
	"queue",
	"command",
	"apps",
	"cards",
	"panels",
	"model",
	"thinking",
	"editor",
	"dialogs",
	"overlay",
	"ui",
	"tree",
	"export",
	"files",
	"changes",
	"worktree",
	"mcp",
	"mcp-apps",
	"archive",
	"restore",
] as const;

const CONTROL_RULES: readonly Rule[] = [
	...VIEW_RULES,
	{ methods: ["PATCH"], path: S },
	...CONTROL_PARTS.map((part): Rule => ({ methods: ANY_METHOD, path: [...S, part], deeper: true })),
	{ methods: READ, path: ["api", "pi", "models"], sessionQuery: true },
	{ methods: READ, path: ["api", "pi", "extensions"], sessionQuery: true },
];

/** Undefined when the link may make this request; otherwise the refusal's message, naming the link. */
export function shareRefusal(
	share: SharePrincipal,
	method: string,
	path: string,
	sessionQuery: string | undefined,
): string | undefined {
	if (allowed(share, method.toUpperCase(), path, sessionQuery)) return undefined;
	const what =
		share.mode === "view"
			? `reaches only the read routes of session ${share.sessionId}`
			: `reaches only session ${share.sessionId} (no terminal, no other session, no accounts or settings)`;
	return `share link ${share.id} (${share.mode}) ${what}: ${method} ${path} is refused`;
}

function allowed(share: SharePrincipal, method: string, path: string, sessionQuery: string | undefined): boolean {
	const segments = decodeSegments(path);
	if (!segments) return false;
	const rules = share.mode === "control" ? CONTROL_RULES : VIEW_RULES;
	return rules.some(
		(rule) =>
			rule.methods.includes(method) &&
			matches(rule, segments, share.sessionId) &&
			(!rule.sessionQuery || sessionQuery === share.sessionId),
	);
}

function matches(rule: Rule, segments: readonly string[], sessionId: string): boolean {
	if (rule.deeper ? segments.length < rule.path.length : segments.length !== rule.path.length) return false;
	return rule.path.every((want, i) => {
		const got = segments[i];
		if (want === ANY) return got !== undefined && got.length > 0;
		if (want === SESSION) return got === sessionId;
		return got === want;
	});
}

/** `/a/b%2Fc` → ["a", "b/c"], as Hono decodes route params; `undefined` for a path it could not decode. */
function decodeSegments(path: string): string[] | undefined {
	if (!path.startsWith("/")) return undefined;
	try {
		return path
			.slice(1)
			.split("/")
			.map((s) => (s.includes("%") ? decodeURIComponent(s) : s));
	} catch {
		return undefined;
	}
}

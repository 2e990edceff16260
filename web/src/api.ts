/**
 * The chamber's HTTP API as typed calls. Every error becomes an `ApiError` carrying the server's code, so
 * components branch on `code` ("busy", "trust_required", …) instead of parsing bodies.
 */
import type {
	AuditView,
	PermissionChangeBody,
	PermissionsView,
	Credential,
	CustomInput,
	CustomProviderResult,
	DialogAnswer,
	FileListing,
	FilePreview,
	McpAppView,
	McpListView,
	McpServerView,
	McpSignInAnswer,
	ModelView,
	NoticeSettings,
	OverlayInput,
	PromptBody,
	PushDeviceView,
	QueueView,
	SessionSummary,
	SessionView,
	TerminalView,
	TranscriptRow,
	TrashedSession,
	TreeNodeView,
	TrustView,
	UiSettings,
	WorktreeMerged,
	WorktreeRemoved,
	WorktreeStatus,
	WorktreeView,
	UploadBody,
	UploadResult,
} from "./types.js";
import type { CreatedShare, ShareInfo, ShareListResponse, ShareMode } from "../../src/chamber/share/share-wire.js";
import { heldShareToken } from "./share-token.js";
import { PierApiError as ApiError, createClient } from "../../src/client/index.js";

export type ImageAttachment = NonNullable<PromptBody["images"]>[number];

/** The typed client's error (pier/client): the server's code, status and `Retry-After`. */
export { ApiError };

/**
 * The browser key from sign-in, sent as `X-Pier-Key` with every request. The daemon wants it next to the
 * session cookie because cookies are not port-scoped: another server on this host gets the cookie, but only
 * this origin (scheme, host and port) can read this localStorage entry.
 */
const KEY_STORAGE = "pier.browserKey";
const KEY_HEADER = "X-Pier-Key";

function storedKey(): string | undefined {
	try {
		return localStorage.getItem(KEY_STORAGE) ?? undefined;
	} catch {
		return undefined;
	}
}

function storeKey(key: string | undefined): void {
	try {
		if (key) localStorage.setItem(KEY_STORAGE, key);
		else localStorage.removeItem(KEY_STORAGE);
	} catch {
		// Storage disabled: the page signs in again on each load, nothing worse.
	}
}

/** The headers that prove this page is the signed-in browser (none before sign-in), or carry its share link. */
export function authHeaders(): Record<string, string> {
	// A tab opened from a share link speaks only with that link (share-token.ts), never with this browser's sign-in.
	const share = heldShareToken();
	if (share) return { Authorization: `Bearer ${share}` };
	const key = storedKey();
	return key ? { [KEY_HEADER]: key } : {};
}

let onUnauthorized: (() => void) | undefined;

/** The app registers this once: a 401 anywhere outside the sign-in routes means the cookie is gone. */
export function setUnauthorizedHandler(handler: (() => void) | undefined): void {
	onUnauthorized = handler;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * A read of a running session's state (its files, tree, extensions) before anything started it: the daemon
 * answers `not_open`, since looking never starts a runtime. The user asked for it, which is an action: start
 * the session, then read again.
 */
async function request<T>(method: Method, path: string, body?: unknown): Promise<T> {
	try {
		return await send<T>(method, path, body);
	} catch (err) {
		const id = method === "GET" && err instanceof ApiError && err.code === "not_open" ? sessionOf(path) : undefined;
		if (id === undefined) throw err;
		await send("POST", `${session(id)}/open`, {});
		return send<T>(method, path, body);
	}
}

function sessionOf(path: string): string | undefined {
	const url = new URL(path, "http://x");
	const inPath = /^\/api\/pi\/sessions\/([^/]+)\//.exec(url.pathname)?.[1];
	return inPath ? decodeURIComponent(inPath) : (url.searchParams.get("session") ?? undefined);
}

/** pier/client with this page's credentials: the session cookie and the browser key. */
const client = createClient({ credentials: "same-origin", headers: authHeaders });

async function send<T>(method: Method, path: string, body?: unknown): Promise<T> {
	try {
		return await client.send<T>(method, path, body);
	} catch (err) {
		if (err instanceof ApiError && err.status === 401 && !path.startsWith("/api/auth/")) onUnauthorized?.();
		throw err;
	}
}

type SignedIn = { ok: true; key: string };

const enc = encodeURIComponent;
const session = (id: string) => `/api/pi/sessions/${enc(id)}`;

export const api = {
	authStatus: () =>
		request<{ authenticated: boolean; passwordConfigured: boolean; pairCommand?: string }>("GET", "/api/auth/status"),
	login: async (password: string) => {
		storeKey((await request<SignedIn>("POST", "/api/auth/login", { password })).key);
	},
	pair: async (token: string) => {
		storeKey((await request<SignedIn>("POST", "/api/auth/pair", { token })).key);
	},
	logout: async () => {
		try {
			await request<{ ok: true }>("POST", "/api/auth/logout", {});
		} finally {
			storeKey(undefined);
		}
	},
	createPairingLink: () =>
		request<{ token: string; expiresAt: number; urls?: string[] }>("POST", "/api/auth/pairing-links", {}),
	listCredentials: () => request<{ credentials: Credential[]; current: string }>("GET", "/api/auth/credentials"),
	/** Revokes it and everything minted through it; answers the ids revoked. */
	revokeCredential: (id: string) =>
		request<{ ok: true; revoked: string[] }>("DELETE", `/api/auth/credentials/${enc(id)}`),

	listSessions: (options: { archived?: boolean; q?: string } = {}) => {
		const query = new URLSearchParams();
		if (options.archived) query.set("archived", "1");
		if (options.q) query.set("q", options.q);
		const qs = query.toString();
		return request<{ sessions: SessionSummary[] }>("GET", `/api/pi/sessions${qs ? `?${qs}` : ""}`);
	},
	listTrash: () => request<{ sessions: TrashedSession[] }>("GET", "/api/pi/trash"),
	/** A new session with a copy of this one's entries (pi's --fork): for a session another pier holds. */
	copySession: (id: string) => request<{ session: SessionSummary }>("POST", `${session(id)}/copy`, {}),
	archiveSession: (id: string, archived: boolean) =>
		request<{ session: SessionSummary }>("POST", `${session(id)}/archive`, { archived }),
	restoreSession: (id: string) => request<{ session: SessionSummary }>("POST", `${session(id)}/restore`, {}),
	createSession: (body: { cwd?: string; name?: string; approve?: boolean }) =>
		request<{ session: SessionSummary }>("POST", "/api/pi/sessions", body),
	getSession: (id: string, rows?: number) =>
		request<SessionView>("GET", rows === undefined ? session(id) : `${session(id)}?rows=${rows}`),
	olderRows: (id: string, before: string, limit: number) =>
		request<{ rows: TranscriptRow[]; olderRows: number }>(
			"GET",
			`${session(id)}/rows?before=${enc(before)}&limit=${limit}`,
		),
	/** Starts the session's runtime if it is not running; viewing (GET) never does. */
	openSession: (id: string) => request<{ session: SessionSummary }>("POST", `${session(id)}/open`, {}),
	renameSession: (id: string, name: string) => request<{ session: SessionSummary }>("PATCH", session(id), { name }),
	deleteSession: (id: string) => request<{ ok: true; undoUntil?: number }>("DELETE", session(id)),

	/** `files`: project paths picked with `@`; `images`: pasted, dropped or picked (pi's image content). */
	prompt: (id: string, text: string, extra: { files?: string[]; images?: ImageAttachment[] } = {}) =>
		request<{ ok: true }>("POST", `${session(id)}/prompt`, {
			text,
			...(extra.files?.length ? { files: extra.files } : {}),
			...(extra.images?.length ? { images: extra.images } : {}),
		}),
	files: (id: string, q: string) => request<{ files: string[] }>("GET", `${session(id)}/files?q=${enc(q)}`),
	/** The file browser (part 2 of issue 33): one directory, a file's preview, an upload into the project. */
	fileList: (id: string, dir: string) => request<FileListing>("GET", `${session(id)}/files/list?dir=${enc(dir)}`),
	filePreview: (id: string, path: string) =>
		request<FilePreview>("GET", `${session(id)}/files/preview?path=${enc(path)}`),
	uploadFile: (id: string, body: UploadBody) => request<UploadResult>("POST", `${session(id)}/files/upload`, body),
	userImage: (id: string, entryId: string, n: number) =>
		request<{ mimeType: string; data: string }>("GET", `${session(id)}/images/${enc(entryId)}/${n}`),
	tree: (id: string) => request<{ nodes: TreeNodeView[] }>("GET", `${session(id)}/tree`),
	navigateTree: (id: string, entryId: string, summarize: boolean) =>
		request<{ ok: true }>("POST", `${session(id)}/tree`, { entryId, ...(summarize ? { summarize } : {}) }),
	fork: (id: string, entryId: string) => request<{ id: string }>("POST", `${session(id)}/fork`, { entryId }),
	clearQueue: (id: string) => request<QueueView>("DELETE", `${session(id)}/queue`),
	/** pi's HTML export as a file the browser saves (fetched with the browser key, then handed over as a blob). */
	exportHtml: async (id: string): Promise<{ name: string; blob: Blob }> => {
		const res = await client.fetchRaw(`${session(id)}/export`).catch((err: unknown) => {
			throw err instanceof ApiError && err.code !== "network"
				? new ApiError(err.status, `http_${err.status}`, `export failed: ${err.message}`)
				: err;
		});
		const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "session.html";
		return { name, blob: await res.blob() };
	},
	steer: (id: string, text: string) => request<{ ok: true }>("POST", `${session(id)}/steer`, { text }),
	followUp: (id: string, text: string) => request<{ ok: true }>("POST", `${session(id)}/follow-up`, { text }),
	abort: (id: string) => request<{ ok: true }>("POST", `${session(id)}/abort`, {}),
	command: (id: string, command: string, args?: string) =>
		request<{ ok: true }>("POST", `${session(id)}/command`, args === undefined ? { command } : { command, args }),
	cardCommand: (id: string, place: { entry: string } | { panel: string }, command: string, args?: string) =>
		request<{ ok: true }>(
			"POST",
			"panel" in place
				? `${session(id)}/panels/${enc(place.panel)}/command`
				: `${session(id)}/cards/${enc(place.entry)}/command`,
			args === undefined ? { command } : { command, args },
		),
	appCommand: (id: string, appId: string, command: string, args?: string) =>
		request<{ ok: true }>(
			"POST",
			`${session(id)}/apps/${enc(appId)}/command`,
			args === undefined ? { command } : { command, args },
		),
	mcpApp: (id: string, entryId: string) => request<McpAppView>("GET", `${session(id)}/mcp-apps/${enc(entryId)}`),
	mcpAppToolCall: (id: string, entryId: string, name: string, args: Record<string, unknown> | undefined) =>
		request<{ result: unknown }>(
			"POST",
			`${session(id)}/mcp-apps/${enc(entryId)}/tools-call`,
			args === undefined ? { name } : { name, arguments: args },
		),
	setModel: (id: string, model: string) => request<{ model: string }>("PUT", `${session(id)}/model`, { model }),
	setThinking: (id: string, level: string) =>
		request<{ thinkingLevel: string }>("PUT", `${session(id)}/thinking`, { level }),
	/** `live: false`: the session does not run, so nothing was mirrored (typing does not start it). */
	setEditor: (id: string, text: string) =>
		request<{ ok: true; live?: false }>("PUT", `${session(id)}/editor`, { text }),
	answerDialog: (id: string, requestId: string, answer: DialogAnswer) =>
		request<{ ok: true }>("POST", `${session(id)}/dialogs/${enc(requestId)}`, answer),
	overlayInput: (id: string, input: OverlayInput) => request<{ ok: true }>("POST", `${session(id)}/overlay`, input),
	/** Keys for an open ctx.ui.custom component (terminal input), and/or the size of the page's terminal. */
	customInput: (id: string, customId: string, input: CustomInput) =>
		request<{ ok: true }>("POST", `${session(id)}/ui/custom/${enc(customId)}/input`, input),
	cancelCustom: (id: string, customId: string) =>
		request<{ ok: true }>("POST", `${session(id)}/ui/custom/${enc(customId)}/cancel`, {}),

	/** With a session: also the models its extensions provide (pi's registry of that running session). */
	models: (sessionId?: string) =>
		request<{ models: ModelView[] }>("GET", `/api/pi/models${sessionId ? `?session=${enc(sessionId)}` : ""}`),
	/** What a running session's extensions are, of which kind, how they do (opaque ids, no paths). */
	extensions: <T>(sessionId: string) => request<T>("GET", `/api/pi/extensions?session=${enc(sessionId)}`),
	/** pi's MCP servers of a running session, and pi's `/mcp` actions on one. */
	mcp: (sessionId: string) => request<McpListView>("GET", `${session(sessionId)}/mcp`),
	mcpAction: (sessionId: string, server: string, action: string, body: Record<string, unknown> = {}) =>
		request<{ server: McpServerView }>("POST", `${session(sessionId)}/mcp/${enc(server)}/${enc(action)}`, body),
	/** Starts pi's sign-in to an OAuth server: the page to open, which comes back to the daemon's callback. */
	mcpSignIn: (sessionId: string, server: string) =>
		request<McpSignInAnswer>("POST", `${session(sessionId)}/mcp/${enc(server)}/signin`, {}),
	/** The project's trust as the daemon sees it (an empty cwd: the daemon's own directory). */
	projectTrust: (cwd: string) => request<TrustView>("GET", `/api/pi/projects/trust?cwd=${enc(cwd || ".")}`),
	grants: <T>() => request<T>("GET", "/api/pi/grants"),
	providers: <T>() => request<T>("GET", "/api/pi/providers"),
	setProviderKey: (provider: string, apiKey: string) =>
		request<{ provider: string; credentials: string }>("PUT", `/api/pi/providers/${enc(provider)}/key`, { apiKey }),
	removeProviderKey: (provider: string) =>
		request<{ provider: string; credentials: string }>("DELETE", `/api/pi/providers/${enc(provider)}/key`),
	addProvider: (body: { id: string; baseUrl: string; api: string; apiKey?: string; models: { id: string }[] }) =>
		request<CustomProviderResult>("POST", "/api/pi/providers", body),
	/** `dir` binds the grant to that extension directory (needed when the id alone does not say which). */
	setGrants: (id: string, grants: string[], dir?: string) =>
		request<{ id: string; dir?: string; grants: string[] }>("PUT", `/api/pi/grants/${enc(id)}`, {
			grants,
			...(dir ? { dir } : {}),
		}),
	// The terminal (issue 33, part 3): a session's shells; their output comes on `…/terminals/stream`.
	terminals: (id: string) => request<{ terminals: TerminalView[] }>("GET", `${session(id)}/terminals`),
	openTerminal: (id: string, size: { cols?: number; rows?: number }) =>
		request<{ terminal: TerminalView }>("POST", `${session(id)}/terminals`, size),
	terminalInput: (id: string, terminalId: string, data: string) =>
		request<{ ok: true }>("POST", `${session(id)}/terminals/${enc(terminalId)}/input`, { data }),
	resizeTerminal: (id: string, terminalId: string, cols: number, rows: number) =>
		request<{ ok: true }>("POST", `${session(id)}/terminals/${enc(terminalId)}/resize`, { cols, rows }),
	closeTerminal: (id: string, terminalId: string) =>
		request<{ ok: true }>("DELETE", `${session(id)}/terminals/${enc(terminalId)}`),
	getUiSettings: () => request<UiSettings>("GET", "/api/pi/ui-settings"),
	// Issue 33, worktrees (src/chamber/worktrees/wire.ts): a worktree for a new session, and the session's own.
	createWorktree: (body: { cwd?: string; branch?: string }) =>
		request<{ worktree: WorktreeView }>("POST", "/api/pi/worktrees", body),
	worktree: (id: string) => request<{ worktree: WorktreeStatus | null }>("GET", `${session(id)}/worktree`),
	mergeWorktree: (id: string, commit?: string) =>
		request<WorktreeMerged>("POST", `${session(id)}/worktree/merge`, commit ? { commit } : {}),
	removeWorktree: (id: string, force: boolean) =>
		request<WorktreeRemoved>("POST", `${session(id)}/worktree/remove`, force ? { force } : {}),
	putUiSettings: (settings: UiSettings) => request<UiSettings>("PUT", "/api/pi/ui-settings", settings),
	// Issue 33, Changes (ChangesPanel.tsx; the types are src/chamber/changes/wire.ts).
	changes: <T>(id: string) => request<T>("GET", `${session(id)}/changes`),
	changesRevert: <T>(id: string, body: { path?: string; turn?: number }) =>
		request<T>("POST", `${session(id)}/changes/revert`, body),
	changesStage: (id: string, paths: string[]) =>
		request<{ staged: string[] }>("POST", `${session(id)}/changes/stage`, { paths }),
	changesCommit: <T>(id: string, message: string) => request<T>("POST", `${session(id)}/changes/commit`, { message }),

	// Notifications (issue 33, push/): this device's settings and push subscription.
	pushKey: () => request<{ publicKey: string }>("GET", "/api/push/vapid-key"),
	pushSettings: () => request<PushDeviceView>("GET", "/api/push/settings"),
	putPushSettings: (settings: NoticeSettings) => request<PushDeviceView>("PUT", "/api/push/settings", settings),
	pushSubscribe: (subscription: PushSubscriptionJSON) =>
		request<PushDeviceView>("POST", "/api/push/subscribe", subscription),
	pushUnsubscribe: () => request<PushDeviceView>("POST", "/api/push/unsubscribe", {}),

	// Issue 34, audit trail and permission rules (src/chamber/audit/wire.ts).
	audit: (query: { session?: string; since?: string; limit?: number } = {}) => {
		const q = new URLSearchParams();
		for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
		return request<AuditView>("GET", `/api/pi/audit${q.size > 0 ? `?${q}` : ""}`);
	},
	permissions: (cwd: string) => request<PermissionsView>("GET", `/api/pi/permissions?cwd=${enc(cwd || ".")}`),
	changePermission: (method: "POST" | "DELETE", body: PermissionChangeBody) =>
		request<PermissionsView>(method, "/api/pi/permissions", body),
	// Issue 34, the package catalog (Packages.tsx; the types are src/extensions/catalog/wire.ts).
	packages: <T>(cwd?: string) => request<T>("GET", `/api/pi/packages${cwd ? `?cwd=${enc(cwd)}` : ""}`),
	packageSearch: <T>(q: string, cwd?: string) =>
		request<T>("GET", `/api/pi/packages/search?q=${enc(q)}${cwd ? `&cwd=${enc(cwd)}` : ""}`),
	packageDetails: <T>(name: string, cwd?: string) =>
		request<T>("GET", `/api/pi/packages/details?name=${enc(name)}${cwd ? `&cwd=${enc(cwd)}` : ""}`),
	packageAction: <T>(action: "inspect" | "install" | "update" | "remove", body: Record<string, unknown>) =>
		request<T>("POST", `/api/pi/packages/${action}`, body),
	packageEnabled: <T>(body: { identity: string; enabled: boolean; project?: string }) =>
		request<T>("PUT", "/api/pi/packages/enabled", body),
};

/** Issue 35, share links (SharePanel.tsx, ShareView.tsx; the wire is src/chamber/share/share-wire.ts). */
export const shareApi = {
	create: (id: string, mode: ShareMode, ttlSeconds: number) =>
		request<CreatedShare>("POST", `${session(id)}/share`, { mode, ttlSeconds }),
	list: (id: string) => request<ShareListResponse>("GET", `${session(id)}/shares`),
	revoke: (shareId: string) => request<{ ok: true; revoked: string }>("DELETE", `/api/pi/shares/${enc(shareId)}`),
	/** What the link this tab holds is. */
	current: () => request<ShareInfo>("GET", "/api/pi/shares/current"),
};

/** A short human sentence for an error, with the wait time for rate limiting. */
export function describeError(err: unknown): string {
	if (err instanceof ApiError) {
		if (err.code === "rate_limited" && err.retryAfter) return `${err.message} (try again in ${err.retryAfter} s)`;
		return err.message;
	}
	return err instanceof Error ? err.message : String(err);
}

/**
 * The daemon's state: which sessions are open, the daemon-wide event channel, trust decisions and UI
 * settings. HTTP lives elsewhere (routes.ts); this is what the routes call.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import { agentDir, SESSION_DIR_ENV } from "../agent/paths.js";
import { decideProjectTrust } from "../extensions/trust.js";
import { previewProjectMcp } from "../extensions/trust-mcp.js";
import { canonicalDir, TrustStore } from "../extensions/trust-store.js";
import { ColdStream, holderOf } from "./cold-stream.js";
import { EventChannel, RUN_SEQUENCE_BASE } from "./events/channel.js";
import { readJsonFile, writeJsonFile } from "./json-file.js";
import { migrateChamberTrust } from "./trust-migration.js";
import { LiveSession } from "./live-session.js";
import { SessionError } from "./session-error.js";
import { SessionIndex } from "./session-index.js";
import { SessionSearch } from "./session-search.js";
import { announceOutside, SessionWatch } from "./session-watch.js";
import { SessionShelf, trashedSessions } from "./session-shelf.js";
import { Terminals } from "./terminal/terminals.js";
import { entryOfFile, viewOfFile } from "./session-file.js";
import { type UserImage, userImage } from "./user-images.js";
import { forkedFromOf, latestRows, pageOf, type RowPage } from "./transcript.js";
import { isCommandName } from "./ui/text.js";
import { branchOf } from "./worktrees/branch.js";
import { BUILTIN_SHORTCUTS } from "./ui/shortcuts.js";
import type { CreateSessionBody, SessionSummary, SessionView, TrashedSession, TrustView, UiSettings } from "./wire.js";

export interface ChamberOptions {
	/** Where auth.json and ui-settings.json live (and the trust.json of older pier versions, migrated once). */
	stateDir: string;
	/** The project a session opens in when the client names none. */
	defaultCwd: string;
	/** `-e` paths given to `pier serve`: loaded into every session. */
	extensionPaths?: string[];
	/** `--approve` / `--no-approve` for every project, overriding stored decisions. */
	approve?: boolean;
	model?: string;
	/** Extension flags for every session (`pier serve --plan`); a session's own flags win. */
	extensionFlags?: ReadonlyMap<string, boolean | string>;
	replay?: { maxEvents?: number; maxBytes?: number };
	/** A session nobody uses for this long is closed (its file keeps everything). Default 15 minutes. */
	idleCloseMs?: number;
	/** How long a deleted session waits in the trash, restorable, before its file is deleted for good. Default 7 days. */
	undoMs?: number;
}

/** A whole view cut to a page of its rows. */
function withPage(view: SessionView, page: { limit?: number; before?: string }): SessionView & RowPage {
	return { ...view, ...pageOf(view.rows, page) };
}

export class Chamber {
	readonly events = new EventChannel("", undefined, RUN_SEQUENCE_BASE);
	private readonly live = new Map<string, LiveSession>();
	private readonly opening = new Map<string, Promise<LiveSession>>();
	/** Streams of sessions looked at but not running (cold-stream.ts): the runtime takes one over when it starts. */
	private readonly cold = new Map<string, ColdStream>();
	/** Session id → file, from the last listing: how a session not open yet is found. */
	private readonly files = new Map<string, string>();
	/** Session id → the flags it was created with: a session reopened after an idle close keeps them (not a restart). */
	private readonly sessionFlags = new Map<string, Map<string, boolean | string>>();
	/** pi's own store (`<agentDir>/trust.json`), shared with `pier trust` and pi ≥ 0.79. */
	private readonly trustStore = new TrustStore(agentDir());
	private readonly settingsFile: string;
	private readonly shelf: SessionShelf;
	/** Listings by project directory, reused while its files are unchanged (session-index.ts). */
	private readonly index = new SessionIndex();
	/** Every message's text for the list's search, kept per file while it is unchanged (session-search.ts). */
	private readonly search = new SessionSearch();
	/** Session files written by other processes: the list hears of them without a reload. */
	private readonly outside = new SessionWatch(join(agentDir(), "sessions"), (paths) => void this.outsideChanged(paths));

	private readonly idleSweep: NodeJS.Timeout;
	/** Shells users opened in their sessions' directories (terminal/): none until one is opened. */
	readonly terminals = new Terminals();

	constructor(readonly options: ChamberOptions) {
		this.settingsFile = resolve(options.stateDir, "ui-settings.json");
		this.shelf = new SessionShelf(options.stateDir, Date.now, options.undoMs);
		migrateChamberTrust(resolve(options.stateDir, "trust.json"), this.trustStore);
		// Fail at start-up, not on first use, when a state file is corrupt.
		this.trustStore.decisions();
		this.uiSettings();
		const idleMs = options.idleCloseMs ?? 15 * 60_000;
		this.idleSweep = setInterval(() => void this.closeIdle(idleMs), Math.min(60_000, idleMs)).unref();
		this.shelf.start();
	}

	/** Starts watching pi's session directory (once the daemon serves: a failed start leaves nothing running). */
	watchSessions(): void {
		this.outside.start();
	}

	/** Tells clients of sessions another process created, wrote or removed (the daemon's own are told already). */
	private outsideChanged(paths: string[]): Promise<void> {
		return announceOutside(paths, {
			own: new Set([...this.live.values()].map((s) => s.file)),
			files: this.files,
			listAll: () => this.listAll(),
			archived: () => this.shelf.archived(),
			isLive: (id) => this.live.has(id),
			publish: (payload) => this.events.publish("sessions.changed", payload),
		});
	}

	/** Closes sessions idle for `idleMs`: extension processes and memory are not held for sessions nobody uses. */
	async closeIdle(idleMs: number): Promise<string[]> {
		const cutoff = Date.now() - idleMs;
		const idle = [...this.live.values()].filter((s) => s.isIdleSince(cutoff));
		for (const session of idle) await this.closeLive(session);
		return idle.map((s) => s.id);
	}

	/** Ends one open session (its extensions too); its file stays, and its next view or action reopens it. */
	private async closeLive(session: LiveSession): Promise<void> {
		if (this.live.get(session.id) !== session) return;
		const summary = { ...session.summary(), live: false, streaming: false };
		this.live.delete(session.id);
		await session.close();
		this.events.publish("sessions.changed", { reason: "updated", id: session.id, session: summary });
	}

	// ---- sessions --------------------------------------------------------------------------------

	/**
	 * The sessions, newest first: the default list without archived ones, or only those (`archived`);
	 * `query` keeps those whose name, first message or project contains it (case-insensitive).
	 */
	async list(options: { archived?: boolean; query?: string } = {}): Promise<SessionSummary[]> {
		const all = await this.listAll();
		const archived = this.shelf.archived();
		const query = options.query?.trim().toLowerCase();
		const shown = all
			.map((s) => (archived.has(s.id) ? { ...s, archived: true } : s))
			.filter((s) => (options.archived === true) === (s.archived === true));
		if (!query) return shown;
		this.search.keepOnly(this.files.values());
		const found: SessionSummary[] = [];
		for (const s of shown) {
			const file = this.files.get(s.id);
			if ([s.name, s.firstMessage, s.cwd].some((text) => text?.toLowerCase().includes(query))) found.push(s);
			else if (file && (await this.search.matches(file, query))) found.push(s);
		}
		return found;
	}

	private async listAll(): Promise<SessionSummary[]> {
		const stored = await this.index.listAll();
		const byId = new Map<string, SessionSummary>();
		for (const info of stored) {
			this.files.set(info.id, info.path);
			byId.set(info.id, {
				id: info.id,
				...(info.name ? { name: info.name } : {}),
				cwd: info.cwd,
				createdAt: info.created.toISOString(),
				modifiedAt: info.modified.toISOString(),
				messageCount: info.messageCount,
				...(info.firstMessage ? { firstMessage: info.firstMessage.slice(0, 200) } : {}),
				live: false,
				streaming: false,
				...forkedFromOf(info.parentSession),
				...branchOf(info.cwd),
			});
		}
		// Open sessions know better (and a new one has no file until its first answer).
		for (const session of this.live.values()) byId.set(session.id, session.summary());
		return [...byId.values()].sort((a, b) => b.modifiedAt.localeCompare(a.modifiedAt));
	}

	/** The extension paths the daemon loads into every session (`pier serve -e`). */
	get extensionPaths(): readonly string[] {
		return this.options.extensionPaths ?? [];
	}

	/** Gives every running session what models.json and auth.json now say about `providers`; answers how many. */
	async refreshModels(providers: string[]): Promise<number> {
		const sessions = [...this.live.values()];
		await Promise.all(sessions.map((s) => s.actions.refreshModels(providers)));
		return sessions.length;
	}

	async create(body: CreateSessionBody): Promise<LiveSession> {
		const cwd = resolve(this.options.defaultCwd, body.cwd ?? ".");
		if (!isDirectory(cwd)) throw new SessionError("bad_request", `cwd: ${cwd} is not a directory`);
		if (body.approve !== undefined && this.options.approve === undefined) {
			this.decideTrust(cwd, body.approve, { parent: body.trustParent === true });
		}
		const trust = this.trustOf(cwd);
		if (trust.needsDecision && !trust.decided) {
			// Answered with approve (true/false) and, for the parent folder, trustParent: true.
			const parent = trust.parent ? `, trust its parent folder ${trust.parent}` : "";
			throw new SessionError(
				"trust_required",
				`${trust.cwd} has files pier would load: ${trust.resources.join(", ")}. Trust it${parent}, or do not trust it.`,
			);
		}
		const flags = new Map([...(this.options.extensionFlags ?? []), ...Object.entries(body.flags ?? {})]);
		const session = await LiveSession.open({
			// The session reads the same store (so its trust line says how it was decided); only the daemon's flag overrides.
			...this.openOptions(cwd, this.options.approve),
			extensionFlags: flags,
			target: { kind: "new" },
			...(body.name ? { name: body.name } : {}),
			...(body.model ? { model: body.model } : {}),
			...(body.thinkingLevel ? { thinkingLevel: body.thinkingLevel as ThinkingLevel } : {}),
		});
		this.adopt(session);
		if (body.flags) this.sessionFlags.set(session.id, flags);
		this.events.publish("sessions.changed", { reason: "created", id: session.id, session: session.summary() });
		return session;
	}

	/** The live session, opening it from its file if needed (concurrent callers share one opening). */
	async get(id: string): Promise<LiveSession> {
		const open = this.live.get(id);
		if (open) {
			open.lastActivity = Date.now();
			return open;
		}
		const pending = this.opening.get(id);
		if (pending) return pending;
		const file = await this.fileOf(id);
		if (!file) throw new SessionError("not_found", `no session ${id}`);
		const opening = (async () => {
			const cwd = readHeaderCwd(file) || this.options.defaultCwd;
			const flags = this.sessionFlags.get(id);
			const cold = this.cold.get(id);
			cold?.starting();
			let session: LiveSession;
			try {
				session = await LiveSession.open({
					...this.openOptions(cwd, this.options.approve),
					...(flags ? { extensionFlags: flags } : {}),
					...(cold ? { channel: cold.channel } : {}),
					target: { kind: "open", file },
				});
			} catch (error) {
				cold?.startFailed();
				throw error;
			}
			if (cold && this.cold.get(id) === cold) {
				cold.stop();
				this.cold.delete(id);
			}
			this.adopt(session);
			return session;
		})();
		this.opening.set(id, opening);
		try {
			return await opening;
		} finally {
			this.opening.delete(id);
		}
	}

	/**
	 * The session a read (the event stream) attaches to: running already, or being opened. A GET never
	 * starts a runtime (that runs the project's extensions); `POST /sessions/:id/open` or any action does.
	 */
	async running(id: string): Promise<LiveSession> {
		const open = this.live.get(id);
		if (open) return open;
		const pending = this.opening.get(id);
		if (pending) return pending;
		if (!(await this.fileOf(id))) throw new SessionError("not_found", `no session ${id}`);
		throw new SessionError("not_open", `session ${id} is not running; POST /api/pi/sessions/${id}/open first`);
	}

	/**
	 * The stream a client follows: the running session's, or (not running) one fed from its file, which never
	 * starts the runtime and follows what other processes write. `release` when the client is gone.
	 */
	async stream(id: string, limit?: number) {
		const live = this.live.get(id) ?? (await this.opening.get(id)?.catch(() => undefined));
		if (live) return { channel: live.channel, snapshot: () => latestRows(live.view(), limit), release: () => {} };
		const file = await this.fileOf(id);
		if (!file || !existsSync(file)) throw new SessionError("not_found", `no session ${id}`);
		let cold = this.cold.get(id);
		if (!cold || cold.file !== file) {
			cold?.stop();
			cold = new ColdStream(id, file, this.options.replay);
			this.cold.set(id, cold);
		}
		const stream = cold;
		return {
			channel: stream.channel,
			snapshot: () => stream.snapshot(limit),
			release: () => {
				if (stream.channel.clientCount > 0 || this.cold.get(id) !== stream) return;
				stream.stop();
				this.cold.delete(id);
			},
		};
	}

	/**
	 * What a client shows for a session: the live view, or (for a session not running) the view read from its
	 * file, with the page of rows asked for (`pageOf`). Reading does not start the session; neither does its
	 * event stream (see `running`).
	 */
	async view(id: string, page: { limit?: number; before?: string } = {}): Promise<SessionView & RowPage> {
		const live = this.live.get(id);
		if (live) return withPage(live.view(), page);
		const file = await this.fileOf(id);
		const fromFile = file ? viewOfFile(file, page) : undefined;
		const heldBy = file && fromFile ? holderOf(file) : undefined;
		if (fromFile) return heldBy ? { ...fromFile, session: { ...fromFile.session, heldBy } } : fromFile;
		return withPage((await this.get(id)).view(), page);
	}

	/** A user message's image: from the running session, or read from the file (looking never starts a runtime). */
	async image(id: string, entryId: string, n: number): Promise<UserImage> {
		const live = this.live.get(id);
		if (live) return live.actions.image(entryId, n);
		const file = await this.fileOf(id);
		if (!file || !existsSync(file)) throw new SessionError("not_found", `no session ${id}`);
		return userImage({ getEntry: (entryId) => entryOfFile(file, entryId) }, entryId, n);
	}

	/** pi names session files `<time>_<id>.jsonl`: a directory listing finds one without parsing any. */
	private async fileOf(id: string): Promise<string | undefined> {
		const known = this.files.get(id);
		if (known) return known;
		const suffix = `_${id}.jsonl`;
		const fromEnv = process.env[SESSION_DIR_ENV];
		const root = join(agentDir(), "sessions");
		const dirs = fromEnv ? [resolve(fromEnv)] : listDir(root).map((name) => join(root, name));
		for (const dir of dirs) {
			const name = listDir(dir).find((n) => n.endsWith(suffix));
			if (name) {
				this.files.set(id, join(dir, name));
				return join(dir, name);
			}
		}
		return undefined;
	}

	/**
	 * A new session with a copy of this one's entries (pi's `--fork`), made from the file without its lease: how a
	 * session another pier holds goes on here. The original is not touched.
	 */
	async copy(id: string): Promise<SessionSummary> {
		const file = await this.fileOf(id);
		if (!file || !existsSync(file)) throw new SessionError("not_found", `no session ${id}`);
		const session = await LiveSession.open({
			...this.openOptions(readHeaderCwd(file) || this.options.defaultCwd, this.options.approve),
			target: { kind: "fork", file },
		});
		this.adopt(session);
		const summary = session.summary();
		this.events.publish("sessions.changed", { reason: "created", id: session.id, session: summary });
		return summary;
	}

	liveSession(id: string): LiveSession | undefined {
		return this.live.get(id);
	}

	async rename(id: string, name: string): Promise<SessionSummary> {
		const session = await this.get(id);
		const summary = session.actions.rename(name);
		this.events.publish("sessions.changed", { reason: "renamed", id, session: summary });
		return summary;
	}

	async archive(id: string, archived: boolean): Promise<SessionSummary> {
		const summary = (await this.listAll()).find((s) => s.id === id);
		if (!summary) throw new SessionError("not_found", `no session ${id}`);
		this.shelf.setArchived(id, archived);
		const changed = { ...summary, ...(archived ? { archived: true } : {}) };
		this.events.publish("sessions.changed", { reason: "updated", id, session: changed });
		return changed;
	}

	/** The trash: deleted sessions that can still be restored, newest first. */
	trash(): Promise<TrashedSession[]> {
		return trashedSessions(this.shelf.list());
	}

	/** A deleted session back from the trash, within its undo window. */
	async restore(id: string): Promise<SessionSummary> {
		const file = this.shelf.restore(id);
		if (!file) throw new SessionError("gone", `session ${id} is not in the trash (or its undo window passed)`);
		this.files.set(id, file);
		const summary = (await this.listAll()).find((s) => s.id === id);
		if (!summary) throw new SessionError("internal", `session ${id} was restored but is not listed`);
		this.events.publish("sessions.changed", { reason: "created", id, session: summary });
		return summary;
	}

	/**
	 * Closes the session if it runs (bounded: each extension gets its shutdown timeout) and moves its file to the
	 * trash, where `restore` finds it for the undo window (UNDO_MS unless configured); the answer is until when.
	 */
	async delete(id: string): Promise<{ undoUntil?: number }> {
		// A session that is not running is not started just to be deleted (its extensions would run for nothing).
		const session = this.live.get(id) ?? (await this.opening.get(id)?.catch(() => undefined));
		const file = session ? session.file : await this.fileOf(id);
		if (!session && !file) throw new SessionError("not_found", `no session ${id}`);
		this.live.delete(id);
		await Promise.all([session?.close(), this.terminals.closeSession(id)]);
		// A session pi never wrote has no file: nothing to keep.
		const undoUntil = file && existsSync(file) ? this.shelf.discard(id, file) : undefined;
		this.files.delete(id);
		this.sessionFlags.delete(id);
		this.events.publish("sessions.changed", { reason: "deleted", id });
		return undoUntil !== undefined ? { undoUntil } : {};
	}

	/** Closes every session together; bounded, since each extension's shutdown is (its shutdown timeout). */
	async shutdown(): Promise<void> {
		clearInterval(this.idleSweep);
		this.shelf.stop();
		this.outside.stop();
		for (const cold of this.cold.values()) cold.stop();
		this.cold.clear();
		const sessions = [...this.live.values()];
		this.live.clear();
		await Promise.allSettled([...sessions.map((s) => s.close()), this.terminals.closeAll()]);
	}

	private openOptions(cwd: string, approve: boolean | undefined) {
		return {
			cwd,
			stateDir: this.options.stateDir,
			...(approve !== undefined ? { approve } : {}),
			...(this.options.extensionPaths ? { extensionPaths: this.options.extensionPaths } : {}),
			...(this.options.model ? { model: this.options.model } : {}),
			...(this.options.extensionFlags ? { extensionFlags: this.options.extensionFlags } : {}),
			...(this.options.replay ? { replay: this.options.replay } : {}),
			onChange: (summary: SessionSummary) =>
				this.events.publish("sessions.changed", { reason: "updated", id: summary.id, session: summary }),
			// pi's RPC mode exits on ctx.shutdown(); here it ends that session once its current turn is over,
			// never the daemon with everyone else's.
			onShutdown: (session: LiveSession) => {
				void session.idle().then(() => this.closeLive(session));
			},
			onReplaced: (previousId: string, session: LiveSession) => {
				this.live.delete(previousId);
				// switchSession() to a session that is open here already: one runtime per file.
				const other = this.live.get(session.id);
				if (other && other !== session) void other.close();
				this.adopt(session);
				this.events.publish("sessions.changed", { reason: "created", id: session.id, session: session.summary() });
				this.events.publish("sessions.changed", { reason: "updated", id: previousId });
			},
		};
	}

	private adopt(session: LiveSession): void {
		this.live.set(session.id, session);
		const file = session.file;
		if (file) this.files.set(session.id, file);
	}

	// ---- trust -------------------------------------------------------------------------------------

	/** The project's decision as sessions get it: `pier serve --approve/--no-approve`, else the shared store. */
	trustOf(cwd: string): TrustView {
		const decision = decideProjectTrust(resolve(this.options.defaultCwd, cwd), {
			agentDir: agentDir(),
			...(this.options.approve !== undefined ? { approve: this.options.approve } : {}),
		});
		const parent = dirname(decision.cwd);
		const needsDecision = decision.resources.length > 0;
		const mcp = needsDecision ? previewProjectMcp(decision.cwd) : undefined;
		return {
			cwd: decision.cwd,
			hasProjectExtensions: needsDecision,
			needsDecision,
			resources: decision.resources,
			trusted: decision.trusted,
			decided: !decision.undecided,
			source: decision.source,
			...(decision.matchedPath ? { decidedFor: decision.matchedPath } : {}),
			...(parent !== decision.cwd ? { parent } : {}),
			...(mcp ? { mcp } : {}),
		};
	}

	/**
	 * Stores a decision in the shared store. `parent` trusts the parent folder and drops the project's own entry
	 * (pi's "Trust parent folder"); `trusted: null` forgets the project's own decision.
	 */
	decideTrust(cwd: string, trusted: boolean | null, options: { parent?: boolean } = {}): TrustView {
		const dir = canonicalDir(resolve(this.options.defaultCwd, cwd));
		if (trusted !== null && !isDirectory(dir)) throw new SessionError("bad_request", `cwd: ${dir} is not a directory`);
		if (options.parent) {
			if (trusted !== true) throw new SessionError("bad_request", "parent: only trusting the parent folder is offered");
			const parent = dirname(dir);
			if (parent === dir) throw new SessionError("bad_request", `${dir} has no parent folder`);
			this.trustStore.setMany(
				[
					[parent, true],
					[dir, null],
				],
				"the chamber",
			);
		} else this.trustStore.set(dir, trusted, "the chamber");
		return this.trustOf(dir);
	}

	// ---- UI settings -------------------------------------------------------------------------------

	uiSettings(): UiSettings {
		return readJsonFile<UiSettings>(this.settingsFile, { triggers: [] });
	}

	/** Stores triggers after checking what the schema cannot: command names and built-in shortcuts. */
	saveUiSettings(settings: UiSettings): UiSettings {
		for (const trigger of settings.triggers) {
			if (!isCommandName(trigger.command)) {
				throw new SessionError("bad_request", `trigger ${trigger.id}: "${trigger.command}" is not a command name`);
			}
			const shortcut = trigger.shortcut?.toLowerCase();
			if (shortcut && BUILTIN_SHORTCUTS.some((s) => s.toLowerCase() === shortcut)) {
				throw new SessionError("bad_request", `trigger ${trigger.id}: ${trigger.shortcut} is a built-in shortcut`);
			}
		}
		writeJsonFile(this.settingsFile, settings);
		return settings;
	}
}

/** The project of a session file, from its first line only: opening the whole file here would parse it twice. */
function readHeaderCwd(file: string): string | undefined {
	const fd = openSync(file, "r");
	try {
		const chunk = Buffer.alloc(64 * 1024);
		const read = readSync(fd, chunk, 0, chunk.length, 0);
		const line = chunk.subarray(0, read).toString("utf8").split("\n", 1)[0] ?? "";
		const header = JSON.parse(line) as { type?: string; cwd?: unknown };
		return header.type === "session" && typeof header.cwd === "string" ? header.cwd : undefined;
	} catch {
		return undefined;
	} finally {
		closeSync(fd);
	}
}

function isDirectory(path: string): boolean {
	try {
		return statSync(path).isDirectory();
	} catch {
		return false;
	}
}

function listDir(dir: string): string[] {
	try {
		return readdirSync(dir);
	} catch {
		return [];
	}
}

/**
 * Records what each run of a session changed in its project, as an in-process extension the chamber gives every
 * session (pi's public extension events; an inline extension is not listed as the user's). A run is one user
 * prompt's agent loop, `agent_start` to `agent_end`, both of which pi awaits, so the snapshots are complete before
 * the first model request and before the chamber hears the run ended.
 *
 * In a git repository the whole project is snapshotted as a tree (git.ts) before and after the run: whatever
 * changed it, `write`, `edit` or `bash`, is seen. Elsewhere each `write` and `edit` call is seen before it runs
 * (`tool_call`, awaited by pi), its file's content kept, and read again after the run.
 */
import { homedir } from "node:os";
import { dirname, isAbsolute, resolve } from "node:path";
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { insideProject } from "../attachments/attach.js";
import { readBlob, snapshotTree, treeChanges, workTreeOf } from "./git.js";
import { projectRoot, readCurrent, realOf, relativeName } from "./project-path.js";
import { type FileRecord, SessionStore, type TurnRecord } from "./store.js";
import type { ChangesMode } from "./wire.js";

/** Outside git, a file larger than this is not copied before a write (its change is listed without a revert). */
export const SNAPSHOT_MAX_BYTES = 16 * 1024 * 1024;
const PROMPT_CHARS = 200;

interface Pending {
	sessionId: string;
	turn: number;
	prompt: string;
	startedAt: string;
	beforeTree?: string;
	/** Outside git: each written file's absolute path → its content id before the run's first write to it. */
	writes: Map<string, { before: string | null; beforeMode?: string }>;
}

export interface TrackerOptions {
	/** The session's directory: the project. */
	cwd: string;
	/** `<state>/changes`. */
	changesDir: string;
	/** pier's state directory, left out of the snapshots when it lies inside the project. */
	stateDir: string;
	/** A snapshot failed: said once in the transcript, the run goes on. */
	report?: (message: string) => void;
}

export class ChangeTracker {
	readonly root: string;
	private modeOf: Promise<ChangesMode> | undefined;
	private readonly stores = new Map<string, SessionStore>();
	private pending: Pending | undefined;
	private prompt = "";
	/** Snapshots, reverts and views, one at a time: a view never reads a half-written turn. */
	private queue: Promise<unknown> = Promise.resolve();

	constructor(readonly options: TrackerOptions) {
		this.root = projectRoot(options.cwd);
	}

	mode(): Promise<ChangesMode> {
		this.modeOf ??= workTreeOf(this.root).then((top) => (top ? "git" : "snapshots"));
		return this.modeOf;
	}

	store(sessionId: string): SessionStore {
		let store = this.stores.get(sessionId);
		if (!store) {
			store = new SessionStore(this.options.changesDir, sessionId);
			this.stores.set(sessionId, store);
		}
		return store;
	}

	/** Runs `task` after everything queued before it (and never lets one failure stop the queue). */
	serial<T>(task: () => Promise<T>): Promise<T> {
		const run = this.queue.then(task, task);
		this.queue = run.catch(() => undefined);
		return run;
	}

	get running(): boolean {
		return this.pending !== undefined;
	}

	/** pier's state directory relative to the project, when it lies inside it (left out of the snapshots). */
	private excluded(): string | undefined {
		const state = resolve(this.options.stateDir);
		return insideProject(this.root, state) && state !== this.root ? relativeName(this.root, state) : undefined;
	}

	readonly extension: ExtensionFactory = (pi) => {
		pi.on("before_agent_start", (event) => {
			this.prompt = event.messageType === "user" ? event.prompt : "(a message from an extension)";
		});
		pi.on("agent_start", (_event, ctx) => this.guarded(() => this.start(ctx.sessionManager.getSessionId())));
		pi.on("tool_call", async (event) => {
			if (event.toolName !== "write" && event.toolName !== "edit") return;
			const path = (event.input as { path?: unknown }).path;
			if (typeof path === "string") await this.guarded(() => this.beforeWrite(path));
		});
		pi.on("agent_end", () => this.guarded(() => this.finish()));
	};

	/** A failure here costs the view its record, never the run: a throwing tool_call handler would block the tool. */
	private async guarded(task: () => Promise<void>): Promise<void> {
		try {
			await this.serial(task);
		} catch (error) {
			this.options.report?.(`Changes: ${(error as Error).message}`);
		}
	}

	private async start(sessionId: string): Promise<void> {
		const store = this.store(sessionId);
		this.pending = {
			sessionId,
			turn: store.nextTurn(),
			prompt: this.prompt.slice(0, PROMPT_CHARS),
			startedAt: new Date().toISOString(),
			writes: new Map(),
		};
		this.prompt = "";
		if ((await this.mode()) !== "git") return;
		try {
			this.pending.beforeTree = await snapshotTree(this.root, store.indexFile, this.excluded());
		} catch (error) {
			this.options.report?.(
				`Changes: the project could not be snapshotted before the run: ${(error as Error).message}`,
			);
		}
	}

	/** Outside git: the file as it is before the run's first write to it (pi resolves the path as here). */
	private async beforeWrite(path: string): Promise<void> {
		const pending = this.pending;
		if (!pending || (await this.mode()) !== "snapshots") return;
		const name = toolPath(this.root, path);
		// A write outside the project is not the project's change: pi's own permissions decide whether it runs.
		if (!insideProject(this.root, name) || pending.writes.has(name)) return;
		if (!insideProject(this.root, realOf(dirname(name)))) return;
		const current = await readCurrent(name, SNAPSHOT_MAX_BYTES);
		if (current.kind === "other") return;
		const store = this.store(pending.sessionId);
		pending.writes.set(
			name,
			current.kind === "absent"
				? { before: null }
				: { before: await store.putBlob(current.bytes), beforeMode: "100644" },
		);
	}

	private async finish(): Promise<void> {
		const pending = this.pending;
		this.pending = undefined;
		if (!pending) return;
		const store = this.store(pending.sessionId);
		const files: FileRecord[] = [];
		if ((await this.mode()) === "git") {
			if (!pending.beforeTree) return;
			try {
				const after = await snapshotTree(this.root, store.indexFile, this.excluded());
				for (const c of await treeChanges(this.root, pending.beforeTree, after)) files.push({ ...c });
			} catch (error) {
				this.options.report?.(
					`Changes: the project could not be snapshotted after the run: ${(error as Error).message}`,
				);
				return;
			}
		} else {
			for (const [name, { before, beforeMode }] of pending.writes) {
				const current = await readCurrent(name, SNAPSHOT_MAX_BYTES);
				if (current.kind === "other") continue;
				const after = current.kind === "absent" ? null : await store.putBlob(current.bytes);
				if (after === before) continue;
				files.push({
					path: relativeName(this.root, name),
					before,
					after,
					...(beforeMode ? { beforeMode } : {}),
					...(after ? { afterMode: "100644" } : {}),
				});
			}
		}
		if (files.length === 0) return;
		files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
		const record: TurnRecord = {
			turn: pending.turn,
			prompt: pending.prompt,
			startedAt: pending.startedAt,
			endedAt: new Date().toISOString(),
			mode: await this.mode(),
			files,
		};
		store.add(record);
	}

	/** The content a record's id names: a git blob, or a kept snapshot. */
	async content(sessionId: string, mode: ChangesMode, id: string): Promise<Buffer> {
		if (mode === "git") return readBlob(this.root, id);
		return this.store(sessionId).getBlob(id);
	}
}

/** A tool's path as pi's tools resolve it: a leading `@` dropped, `~` the home directory, relative to the project. */
function toolPath(root: string, path: string): string {
	const bare = path.startsWith("@") ? path.slice(1) : path;
	const home = bare === "~" ? homedir() : bare.startsWith("~/") ? resolve(homedir(), bare.slice(2)) : bare;
	return isAbsolute(home) ? resolve(home) : resolve(root, home);
}

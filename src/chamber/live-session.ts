/**
 * One open chamber session: a pier runtime whose extensions see the chamber's `ctx.ui`, an event channel,
 * and the projection of everything the session does (agent events, persisted entries) onto that channel.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { AgentSessionEvent, SessionEntry, SessionManager } from "@earendil-works/pi-coding-agent";
import { commandContextActions } from "../agent/command-actions.js";
import { createPierRuntime, modelRefOf, type PierRuntime, type SessionTarget } from "../agent/session-factory.js";
import { AgentEventProjection } from "./agent-events.js";
import { ChangeTracker } from "./changes/tracker.js";
import { sessionCommands } from "./chamber-commands.js";
import { EventChannel, RUN_SEQUENCE_BASE } from "./events/channel.js";
import { watchPersistence } from "./persistence-watch.js";
import { PiExtensionMetrics } from "./pi-metrics.js";
import { TransformedRows, MarkdownTransforms } from "./tui/markdown-transforms.js";
import { SessionActions } from "./session-actions.js";
import { RowDrawings } from "./tui/row-drawings.js";
import { surfacesFromBranch } from "./ui/branch-surfaces.js";
import { DIALOG_ENTRY, ERROR_ENTRY, entryFacts, rowOf, rowsOf, summaryOf, withTokensAfter } from "./transcript.js";
import { AppMounts } from "./ui/app-mounts.js";
import { callerExtension, withOwner } from "./ui/app-owner.js";
import { stampMessageCards } from "./ui/card-owner.js";
import { LIMITS } from "./ui/descriptors.js";
import { type DialogEnd, SessionUi } from "./ui/session-ui.js";
import { assistantUsages, otherUsages, sameUsage, usageOf } from "./usage.js";
import { branchOf } from "./worktrees/branch.js";
import type { CommandView, EventName, EventPayloads, SessionSummary, SessionUsage, SessionView } from "./wire.js";

export interface OpenOptions {
	cwd: string;
	target: SessionTarget;
	approve?: boolean;
	extensionPaths?: string[];
	model?: string;
	thinkingLevel?: ThinkingLevel;
	/** Extension flags, as `pier --name value` passes them. */
	extensionFlags?: ReadonlyMap<string, boolean | string>;
	name?: string;
	/** Replay window for this session's stream (tests shrink it). */
	replay?: { maxEvents?: number; maxBytes?: number };
	/** The daemon hears about renames and state changes to keep its list fresh. */
	onChange?: (summary: SessionSummary) => void;
	/** An extension replaced the session (new, fork, switch): the chamber re-keys it. */
	onReplaced?: (previousId: string, session: LiveSession) => void;
	/** An extension called `ctx.shutdown()`: pi's RPC mode exits; in the chamber only this session ends. */
	onShutdown?: (session: LiveSession) => void;
	/** The stream the page already follows (cold-stream.ts): its clients stay attached as the runtime starts. */
	channel?: EventChannel;
	/** pier's state directory: the Changes view keeps its records under `<stateDir>/changes` (changes/store.ts). */
	stateDir: string;
}

export class LiveSession {
	/** The stream of the pi session this chamber session currently runs (it changes when the session is replaced). */
	channel: EventChannel;
	readonly ui: SessionUi;
	/** Who mounts each app surface, so its commands can be held to its own extension's. */
	private readonly mounts: AppMounts;
	/** Rows an extension's renderer draws (pi's components, on the daemon). */
	readonly drawings: RowDrawings;
	/** Markdown rows through pi's markdown transformers, republished when their text changes. */
	private readonly transformed: TransformedRows;
	private readonly agentEvents = new AgentEventProjection({
		publish: (event, payload) => this.publish(event, payload),
		publishUsage: () => this.publishUsage(),
		publishModel: () => this.publishModel(),
		runStarted: () => this.options.onChange?.({ ...this.summary(), streaming: true }),
		runEnded: () => this.options.onChange?.({ ...this.summary(), streaming: false }),
		infoChanged: () => {
			const summary = this.summary();
			this.publish("session.info", { session: summary });
			this.options.onChange?.(summary);
		},
	});
	/** What its in-process pi extensions do (protocol extensions are measured by their host). */
	readonly piMetrics = new PiExtensionMetrics(() => this.session.extensionRunner);
	/** What clients can do to it (session-actions.ts). */
	readonly actions: SessionActions;
	private lastUsage: SessionUsage | undefined;
	private unsubscribe: (() => void) | undefined;
	private closed = false;
	private firstMessageListed = false;

	private constructor(
		readonly pier: PierRuntime,
		private readonly options: OpenOptions,
		/** What each run changed in the project (changes/tracker.ts), for the Changes view. */
		readonly changes: ChangeTracker,
	) {
		const id = pier.runtime.session.sessionId;
		this.channel =
			options.channel?.sessionId === id ? options.channel : new EventChannel(id, options.replay, RUN_SEQUENCE_BASE);
		this.ui = new SessionUi(this.publish, (ended) => this.dialogsChanged(ended), {
			caller: () => this.callingExtension(),
			reportError: (message, source) => this.reportError(message, source),
		});
		this.mounts = new AppMounts(pier.extensionHost);
		this.drawings = new RowDrawings({
			session: () => this.session,
			host: pier.extensionHost,
			changed: (ids) => this.publish("transcript.drawn", { ids }),
			transformers: () => this.session.extensionRunner.getMarkdownTransformers(),
		});
		this.transformed = new TransformedRows(
			new MarkdownTransforms({
				host: pier.extensionHost,
				session: () => this.session,
				report: (message, source) => this.reportError(message, source),
			}),
			(row) => this.publish("transcript.row", { row: this.drawings.mark(row) }),
		);
		const live = this;
		this.actions = new SessionActions({
			get id() {
				return live.id;
			},
			pier,
			ui: this.ui,
			piMetrics: this.piMetrics,
			publish: this.publish,
			reportError: (message, source) => this.reportError(message, source),
			reloaded: () => this.replaced(true),
			commands: () => this.commands(),
			summary: () => this.summary(),
			publishModel: () => this.publishModel(),
			publishUsage: () => this.publishUsage(),
		});
	}

	static async open(options: OpenOptions): Promise<LiveSession> {
		let live: LiveSession | undefined;
		const changes = new ChangeTracker({
			cwd: options.cwd,
			changesDir: join(options.stateDir, "changes"),
			stateDir: options.stateDir,
			report: (message) => live?.reportError(message, "changes"),
		});
		const pier = await createPierRuntime({
			cwd: options.cwd,
			session: options.target,
			mode: "rpc",
			leaseHolder: "serve",
			...(options.approve !== undefined ? { approve: options.approve } : {}),
			...(options.extensionPaths ? { extensionPaths: options.extensionPaths } : {}),
			...(options.model ? { model: options.model } : {}),
			...(options.thinkingLevel ? { thinkingLevel: options.thinkingLevel } : {}),
			...(options.extensionFlags ? { extensionFlags: new Map(options.extensionFlags) } : {}),
			extensionHost: { environment: { PICHAMBER: "1" } },
			extensionFactories: [changes.extension],
			onExtensionDiagnostic: (d) => live?.reportError(d.message, "extension host"),
		});
		live = new LiveSession(pier, options, changes);
		try {
			await live.start();
		} catch (error) {
			await pier.dispose();
			throw error;
		}
		return live;
	}

	private get session() {
		return this.pier.runtime.session;
	}

	get id(): string {
		return this.channel.sessionId;
	}

	/** When this runtime (and its extensions) started: what the extension metrics count from. */
	readonly startedAt = new Date().toISOString();

	private async start(): Promise<void> {
		this.attach();
		for (const d of this.pier.diagnostics) if (d.type === "error") this.reportError(d.message, "start-up");
		// `pier run` prints this line for a project whose files it skipped; a new session keeps it, once, as a row.
		const trust = this.pier.trust;
		if (this.options.target.kind === "new" && !trust.trusted && trust.resources.length > 0 && trust.reason)
			this.reportError(trust.reason.replaceAll("`", ""), "project trust");
		if (this.options.name) this.session.setSessionName(this.options.name);
		// ctx.newSession(), fork() and switchSession() replace the runtime's session; pi calls this afterwards.
		this.pier.runtime.setRebindSession(() => this.replaced());
		// pi's terminal shows its MCP extension's start-up report (servers that failed or need a sign-in) in the
		// chat; the chamber keeps it in the transcript, not only in a passing notice.
		this.pier.mcp.onReport((message) => this.reportError(message, "mcp"));
		await this.bind();
		// A page that followed the file learns the session now runs (and is no longer "starting").
		this.publish("session.info", { session: this.summary() });
	}

	/** Follows the runtime's current pi session: its entries feed the dock and the transcript, its events the stream. */
	private attach(): void {
		const { session } = this;
		const manager = session.sessionManager;
		// Panels and apps outlive the daemon: they are rebuilt from the entries that created them.
		surfacesFromBranch(this.ui, manager);
		watchPersistence(manager, {
			current: (written) => written === this.session.sessionManager,
			written: (entry, written) => this.entryWritten(entry, written),
			refused: (message) => this.reportError(message, "chamber"),
			stampOwner: (data) => withOwner(data, this.mounter()),
		});
		stampMessageCards(session, () => this.mounter());
		this.unsubscribe?.();
		this.unsubscribe = session.subscribe((event) => this.onAgentEvent(event));
	}

	/** The in-process extension calling `ctx.ui` right now, by label: its file is on the call stack. */
	private callingExtension(): string | undefined {
		const limit = Error.stackTraceLimit;
		Error.stackTraceLimit = 64;
		const stack = new Error().stack ?? "";
		Error.stackTraceLimit = limit;
		const path = callerExtension(stack, this.session.extensionRunner.getExtensionPaths());
		return path ? extensionLabel(path) : undefined;
	}

	/** The extension appending an entry or sending a message right now (app-mounts.ts). */
	private mounter(): string | undefined {
		return this.mounts.mounter(this.session.extensionRunner.getExtensionPaths());
	}

	private async bind(): Promise<void> {
		const { session } = this;
		const runtime = this.pier.runtime;
		await session.bindExtensions({
			uiContext: this.ui.context(),
			// The chamber shows ctx.ui.custom components as pi's terminal does: extensions that need it (`ctx.mode ===
			// "tui"`, as qna and tic-tac-toe check) run here; what the page cannot show says so (ui/unavailable.ts).
			mode: "tui",
			commandContextActions: commandContextActions(runtime, () => this.piMetrics.reloaded()),
			shutdownHandler: () => this.options.onShutdown?.(this),
			onError: (e) => {
				this.piMetrics.onError(e);
				this.reportError(`${e.event}: ${e.error}`, extensionLabel(e.extensionPath));
			},
		});
		// A client that hydrated from the file (no commands, no model yet) catches up from these.
		this.publish("session.commands", { commands: this.commands() });
		this.publishModel();
	}

	/**
	 * The runtime now runs another pi session (an extension called ctx.newSession, fork or switchSession). The
	 * chamber session follows it under the new id: clients of the old stream are told where it went.
	 */
	private async replaced(reloaded = false): Promise<void> {
		const previous = this.channel;
		const id = this.session.sessionId;
		if (id === previous.sessionId && !reloaded) return;
		previous.publish("session.replaced", { id });
		previous.detachAll();
		this.channel = new EventChannel(id, this.options.replay, RUN_SEQUENCE_BASE);
		this.agentEvents.dropDraft();
		this.attach();
		await this.bind();
		this.options.onReplaced?.(previous.sessionId, this);
	}

	/** When the session last did or was asked anything (Date.now()). */
	lastActivity = Date.now();

	readonly publish = <E extends EventName>(event: E, payload: EventPayloads[E]): void => {
		if (this.closed) return;
		this.lastActivity = Date.now();
		try {
			this.channel.publish(event, payload);
		} catch (error) {
			// A payload that cannot be encoded (too deep, cyclic) must not take the caller down with it; the
			// stream notices the gap and resyncs from a snapshot.
			if (event !== "extension.error") {
				this.reportError(`the chamber could not send a ${event} event: ${(error as Error).message}`, "chamber");
			}
		}
	};

	/**
	 * Nobody watches it, it runs nothing, no extension waits on a user, and its file holds everything: closing it
	 * loses nothing (pi writes a session file only once it has an answer, so a fresh session never qualifies).
	 */
	isIdleSince(cutoff: number): boolean {
		const file = this.file;
		return (
			this.lastActivity < cutoff &&
			this.channel.clientCount === 0 &&
			!this.session.isStreaming &&
			!this.ui.hasPendingDialogs &&
			file !== undefined &&
			existsSync(file)
		);
	}

	/** Every persisted entry becomes a transcript row as it is written; pichamber entries also feed the dock. */
	private entryWritten(entry: SessionEntry, manager: SessionManager): void {
		const plain = rowOf(entry);
		const row = plain?.kind === "compaction" ? withTokensAfter(plain, entry, manager.getBranch()) : plain;
		if (row) {
			const draftId = row.kind === "assistant" ? this.agentEvents.takeDraft() : undefined;
			this.publish("transcript.row", { row: this.drawings.mark(row), ...(draftId ? { draftId } : {}) });
			this.drawings.entryWritten(entry);
			this.transformed.observe(row);
			// The list labels a session by its first message: it learns it now, not when the first run ends.
			if (row.kind === "user" && !this.firstMessageListed) {
				this.firstMessageListed = true;
				this.options.onChange?.(this.summary());
			}
		}
		if (entry.type === "compaction") this.publishUsage();
		if (entry.type === "custom") {
			const problem = this.ui.applyEntry(entry.customType, entry.data, true);
			if (problem) this.reportError(problem, entry.customType);
		}
	}

	private onAgentEvent(event: AgentSessionEvent): void {
		this.piMetrics.onEvent(event);
		this.agentEvents.project(event);
	}

	private publishModel(): void {
		const model = modelRefOf(this.pier.runtime);
		this.publish("session.model", { ...(model ? { model } : {}), thinkingLevel: this.session.thinkingLevel });
		this.publishUsage();
	}

	/** pi's footer numbers: tokens and cost over the whole file, the context fill from pi's own estimate. */
	usage(): SessionUsage {
		const context = this.session.getContextUsage();
		const entries = this.session.sessionManager.getEntries();
		return usageOf(assistantUsages(entries), context, this.session.model?.contextWindow ?? 0, otherUsages(entries));
	}

	private publishUsage(): void {
		const usage = this.usage();
		if (sameUsage(this.lastUsage, usage)) return;
		this.lastUsage = usage;
		this.publish("session.usage", usage);
	}

	/** An extension failure: an error row in the transcript (persisted) and an event; the session goes on. */
	reportError(message: string, source?: string): void {
		if (this.closed) return;
		const data = { message: message.slice(0, 50_000), ...(source ? { source } : {}) };
		this.session.sessionManager.appendCustomEntry(ERROR_ENTRY, data);
		this.publish("extension.error", data);
	}

	/**
	 * A dialog opened or ended: the list's "waiting" count changes; one that ended unanswered leaves a row (a
	 * custom entry, outside the model's context like pier.error), so a timed-out question does not vanish unseen.
	 */
	private dialogsChanged(ended: DialogEnd | undefined): void {
		if (this.closed || ended?.reason === "session-closed") return;
		if (ended?.leaveRow) {
			const { method, title } = ended.request;
			this.session.sessionManager.appendCustomEntry(DIALOG_ENTRY, {
				method,
				title: title.slice(0, LIMITS.titleChars),
				reason: ended.reason,
			});
		}
		// A summary costs a pass over the entries, and dialogs can open and end hundreds of times a second: the
		// list hears of them at most every 100 ms, with the count as it is then.
		this.waitingNotice ??= setTimeout(() => {
			this.waitingNotice = undefined;
			if (!this.closed) this.options.onChange?.(this.summary());
		}, 100);
		this.waitingNotice.unref?.();
	}

	private waitingNotice: NodeJS.Timeout | undefined;

	summary(): SessionSummary {
		const manager = this.session.sessionManager;
		const name = manager.getSessionName();
		// A session pi has not written yet still has its header in memory.
		const header = manager.getHeader() ?? { id: this.id, cwd: manager.getCwd(), timestamp: new Date().toISOString() };
		const waiting = this.ui.pendingDialogCount;
		return {
			...summaryOf({ ...header, id: this.id }, entryFacts(manager.getEntries()), {
				...(name ? { name } : {}),
				live: true,
				streaming: this.session.isStreaming,
			}),
			...(waiting > 0 ? { waiting } : {}),
			...branchOf(header.cwd),
		};
	}

	commands(): CommandView[] {
		return sessionCommands(this.session);
	}

	view(): SessionView {
		const model = modelRefOf(this.pier.runtime);
		return {
			session: this.summary(),
			rows: this.drawings.markAll(this.transformed.apply(rowsOf(this.session.sessionManager.getBranch()))),
			ui: this.ui.view(),
			commands: this.commands(),
			usage: this.usage(),
			queue: this.agentEvents.queue,
			...(model ? { model } : {}),
			thinkingLevel: this.session.thinkingLevel,
			streaming: this.session.isStreaming,
			seq: this.channel.latest,
		};
	}

	/** The `-e` extensions the daemon gives every session. */
	get cliExtensionPaths(): readonly string[] {
		return this.options.extensionPaths ?? [];
	}

	get file(): string | undefined {
		return this.session.sessionFile;
	}

	/** Resolves once the call that is running now (a command, a turn) is over and the agent is idle. */
	async idle(): Promise<void> {
		await new Promise((resolve) => setImmediate(resolve));
		await this.session.agent.waitForIdle();
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.ui.dismissAll("session-closed");
		this.closed = true;
		this.unsubscribe?.();
		this.channel.detachAll();
		await this.session.abort().catch(() => {});
		await this.pier.dispose();
	}
}

/** Extension files are named by their base name: server paths stay on the server. */
function extensionLabel(path: string): string {
	return path.split(/[\\/]/).filter(Boolean).slice(-2).join("/");
}

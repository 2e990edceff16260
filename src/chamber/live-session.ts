/**
 * One open chamber session: a pier runtime whose extensions see the chamber's `ctx.ui`, an event channel,
 * and the projection of everything the session does (agent events, persisted entries) onto that channel.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentSessionEvent, SessionEntry, SessionManager } from "@earendil-works/pi-coding-agent";
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import { commandContextActions } from "../agent/command-actions.js";
import { createPierRuntime, modelRefOf, type PierRuntime, type SessionTarget } from "../agent/session-factory.js";
import { EventChannel, RUN_SEQUENCE_BASE } from "./events/channel.js";
import { attachFiles, findProjectFiles } from "./project-files.js";
import { treeOf } from "./session-tree.js";
import { DIALOG_ENTRY, ERROR_ENTRY, entryFacts, rowOf, rowsOf, summaryOf, withTokensAfter } from "./transcript.js";
import { assistantUsages, sameUsage, usageOf } from "./usage.js";
import { runUserBash, userBashOf } from "./user-bash.js";
import { OutsideWrites } from "./outside-writes.js";
import { watchPersistence } from "./persistence-watch.js";
import { PiExtensionMetrics } from "./pi-metrics.js";
import { RenderedRows } from "./rendered-rows.js";
import { AgentEventProjection } from "./agent-events.js";
import { AppMounts } from "./ui/app-mounts.js";
import { appCommandProblem, withOwner } from "./ui/app-owner.js";
import { COMMAND_NAME, LIMITS } from "./ui/descriptors.js";
import { type DialogEnd, SessionUi } from "./ui/session-ui.js";
import { SessionError } from "./session-error.js";
import {
	CHAMBER_COMMAND_NAMES,
	type ChamberCommandTarget,
	isChamberCommand,
	runChamberCommand,
	sessionCommands,
} from "./chamber-commands.js";
import type {
	CommandView,
	EventName,
	EventPayloads,
	PromptBody,
	QueueView,
	SessionSummary,
	SessionUsage,
	SessionView,
	TreeNodeView,
} from "./wire.js";

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
}

export class LiveSession {
	/** The stream of the pi session this chamber session currently runs (it changes when the session is replaced). */
	channel: EventChannel;
	readonly ui: SessionUi;
	/** Who mounts each app surface, so its commands can be held to its own extension's. */
	private readonly mounts: AppMounts;
	/** Custom messages drawn by their extension's message renderer. */
	private readonly rendered: RenderedRows;
	private readonly agentEvents = new AgentEventProjection({
		publish: (event, payload) => this.publish(event, payload),
		publishUsage: () => this.publishUsage(),
		publishModel: () => this.publishModel(),
		runEnded: () => this.options.onChange?.({ ...this.summary(), streaming: false }),
		infoChanged: () => {
			const summary = this.summary();
			this.publish("session.info", { session: summary });
			this.options.onChange?.(summary);
		},
	});
	/** What its in-process pi extensions do (protocol extensions are measured by their host). */
	readonly piMetrics = new PiExtensionMetrics(() => this.session.extensionRunner);
	private bashRuns = 0;
	private lastUsage: SessionUsage | undefined;
	private unsubscribe: (() => void) | undefined;
	private closed = false;

	private constructor(
		readonly pier: PierRuntime,
		private readonly options: OpenOptions,
	) {
		const id = pier.runtime.session.sessionId;
		this.channel = new EventChannel(id, options.replay, RUN_SEQUENCE_BASE);
		this.ui = new SessionUi(this.publish, (ended) => this.dialogsChanged(ended));
		this.mounts = new AppMounts(pier.extensionHost);
		this.rendered = new RenderedRows(
			pier.extensionHost,
			(row) => this.publish("transcript.row", { row }),
			(message, source) => this.reportError(message, source),
		);
	}

	static async open(options: OpenOptions): Promise<LiveSession> {
		let live: LiveSession | undefined;
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
			onExtensionDiagnostic: (d) => live?.reportError(d.message, "extension host"),
		});
		live = new LiveSession(pier, options);
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

	private async start(): Promise<void> {
		this.attach();
		for (const d of this.pier.diagnostics) if (d.type === "error") this.reportError(d.message, "start-up");
		if (this.options.name) this.session.setSessionName(this.options.name);
		// ctx.newSession(), fork() and switchSession() replace the runtime's session; pi calls this afterwards.
		this.pier.runtime.setRebindSession(() => this.replaced());
		await this.bind();
	}

	/** Follows the runtime's current pi session: its entries feed the dock and the transcript, its events the stream. */
	private attach(): void {
		const { session } = this;
		const manager = session.sessionManager;
		// Panels and apps outlive the daemon: they are rebuilt from the entries that created them.
		this.ui.resetEntries();
		for (const entry of manager.getEntries()) {
			if (entry.type === "custom") this.ui.applyEntry(entry.customType, entry.data, false);
		}
		watchPersistence(manager, {
			current: (written) => written === this.session.sessionManager,
			written: (entry, written) => this.entryWritten(entry, written),
			refused: (message) => this.reportError(message, "chamber"),
			stampApp: (data) => withOwner(data, this.mounts.mounter(this.session.extensionRunner.getExtensionPaths())),
		});
		this.unsubscribe?.();
		this.unsubscribe = session.subscribe((event) => this.onAgentEvent(event));
	}

	private async bind(): Promise<void> {
		const { session } = this;
		const runtime = this.pier.runtime;
		await session.bindExtensions({
			uiContext: this.ui.context(),
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
			this.publish("transcript.row", { row, ...(draftId ? { draftId } : {}) });
			this.rendered.observe(entry, row);
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
		return usageOf(
			assistantUsages(this.session.sessionManager.getEntries()),
			context,
			this.session.model?.contextWindow ?? 0,
		);
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
		};
	}

	commands(): CommandView[] {
		return sessionCommands(this.session);
	}

	view(): SessionView {
		const model = modelRefOf(this.pier.runtime);
		return {
			session: this.summary(),
			rows: this.rendered.apply(rowsOf(this.session.sessionManager.getBranch())),
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

	/** What the chamber's own commands act on (chamber-commands.ts). */
	private get commandTarget(): ChamberCommandTarget {
		return {
			session: this.session,
			runtime: this.pier.runtime,
			piMetrics: this.piMetrics,
			run: (work, what) => this.run(work, what),
			rename: (name) => this.rename(name),
			setModel: (ref) => this.setModel(ref),
			setThinkingLevel: (level) => this.setThinkingLevel(level),
			navigate: (entryId) => this.navigate(entryId),
			fork: (entryId) => this.fork(entryId),
		};
	}

	// ---- operations ------------------------------------------------------------------------------

	/** Runs in the background: the answer streams as events; a failure becomes an error row. */
	private run(work: Promise<void>, what: string): void {
		work.catch((error: unknown) => this.reportError(`${what} failed: ${(error as Error).message ?? error}`, "chamber"));
	}

	/**
	 * A message for the agent, an extension command, or one of the chamber's own commands (pi's terminal has them
	 * as built-ins; here they take the same precedence over extension commands).
	 */
	async prompt(text: string, extra: Omit<PromptBody, "text"> = {}): Promise<void> {
		await this.catchUpWithFile();
		const builtin = /^\/([a-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
		const name = builtin?.[1];
		if (name && isChamberCommand(name)) return runChamberCommand(this.commandTarget, name, builtin?.[2]?.trim() ?? "");
		const bash = userBashOf(text);
		if (bash) {
			// pi's terminal refuses a second one while one runs (Esc cancels it first).
			if (this.session.isBashRunning) throw new SessionError("busy", "a bash command is already running");
			this.run(runUserBash(this.session, `bash_${++this.bashRuns}`, bash, this.publish), `!${bash.command}`);
			return;
		}
		if (this.session.isStreaming && !text.startsWith("/")) {
			throw new SessionError("busy", "the agent is running: steer it or queue a follow-up");
		}
		// pi's `@file` arguments: the files' text before the message, their images with it.
		const files = extra.files?.length
			? await attachFiles(this.session.sessionManager.getCwd(), extra.files)
			: undefined;
		const images = [...(files?.images ?? []), ...(extra.images ?? [])];
		const message = files?.text ? `${files.text}${text}` : text;
		const running = this.session.prompt(message, {
			...(this.session.isStreaming ? { streamingBehavior: "followUp" as const } : {}),
			...(images.length > 0 ? { images } : {}),
		});
		this.run(this.piMetrics.observePrompt(text, running), "prompt");
	}

	/** `@` completion: the project's files matching `query` (pi-tui's fuzzy filter). */
	files(query: string): string[] {
		return findProjectFiles(this.session.sessionManager.getCwd(), query);
	}

	tree(): TreeNodeView[] {
		return treeOf(this.session.sessionManager);
	}

	/**
	 * pi's `navigateTree`: the leaf moves to `entryId` (a user message: to its parent, its text back into the
	 * composer), optionally leaving a summary of the abandoned branch. Clients refetch the rows (`session.branch`).
	 */
	async navigate(entryId: string, options: { summarize?: boolean; customInstructions?: string } = {}): Promise<void> {
		if (this.session.isStreaming) throw new SessionError("busy", "wait for the agent before moving in the tree");
		if (!this.session.sessionManager.getEntry(entryId))
			throw new SessionError("not_found", `this session has no entry ${entryId}`);
		const result = await this.session.navigateTree(entryId, options);
		if (result.cancelled) throw new SessionError("cancelled", "an extension cancelled the move in the tree");
		this.publish("session.branch", { leafId: this.session.sessionManager.getLeafId() });
		if (result.editorText !== undefined) this.ui.replaceEditorText(result.editorText);
		this.publishUsage();
	}

	/**
	 * pi's fork: a new session file with the history before the user message `entryId`, whose text goes to the
	 * composer. The chamber session follows it (`session.replaced`); the original stays in the list.
	 */
	async fork(entryId: string): Promise<{ id: string }> {
		if (this.session.isStreaming) throw new SessionError("busy", "wait for the agent before forking");
		const entry = this.session.sessionManager.getEntry(entryId);
		if (entry?.type !== "message" || entry.message.role !== "user")
			throw new SessionError("bad_request", `entryId: ${entryId} is not a user message of this session`);
		const result = await this.pier.runtime.fork(entryId);
		if (result.cancelled) throw new SessionError("cancelled", "an extension cancelled the fork");
		if (result.selectedText) this.ui.replaceEditorText(result.selectedText);
		return { id: this.id };
	}

	/** pi's HTML export of the session, as a string (written to a private temporary directory, then removed). */
	async exportHtml(): Promise<{ name: string; html: string }> {
		const dir = mkdtempSync(join(tmpdir(), "pier-export-"));
		try {
			const name = `pi-session-${this.id}.html`;
			const path = await this.session.exportToHtml(join(dir, name));
			return { name, html: readFileSync(path, "utf8") };
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}

	/** Takes back every queued steer and follow-up (pi's clearQueue); the page puts them back in the composer. */
	clearQueue(): QueueView {
		// pi emits queue_update, which publishes the empty queue.
		const taken = this.session.clearQueue();
		return { steering: taken.steering, followUp: taken.followUp };
	}

	private readonly outside = new OutsideWrites();

	/**
	 * Another writer (pi's CLI, which knows no leases) appended to this session's file: reload it from the file
	 * before anything is written, so the next entry continues the file's leaf, not a second branch.
	 */
	private async catchUpWithFile(): Promise<void> {
		const file = this.session.sessionFile;
		if (!file || this.session.isStreaming) return;
		const known = new Set(this.session.sessionManager.getEntries().map((e) => e.id));
		if (!this.outside.changed(file, known)) return;
		this.outside.forget();
		await this.pier.runtime.switchSession(file);
		await this.replaced(true);
		this.publish("extension.notify", {
			message: "the session file changed outside the chamber (pi's CLI?): reloaded it before going on",
			level: "warning",
		});
	}

	steer(text: string): void {
		this.run(this.session.isStreaming ? this.session.steer(text) : this.session.prompt(text), "steer");
	}

	followUp(text: string): void {
		this.run(this.session.isStreaming ? this.session.followUp(text) : this.session.prompt(text), "follow-up");
	}

	async abort(): Promise<void> {
		await this.session.abort();
	}

	/** `/command args` through the prompt path, for registered commands with a valid name only. */
	async command(name: string, args: string | undefined): Promise<void> {
		checkCommandName(name);
		if (!this.commands().some((c) => c.name === name)) {
			throw new SessionError("unknown_command", `this session has no command /${name}`);
		}
		await this.prompt(args ? `/${name} ${args}` : `/${name}`);
	}

	/**
	 * A command an app surface asked for (after a real click, the page checks that). Only a command of the
	 * extension that mounted the app runs; the chamber's own commands never do.
	 */
	async appCommand(appId: string, name: string, args: string | undefined): Promise<void> {
		checkCommandName(name);
		if (!this.ui.view().apps.some((a) => a.appId === appId)) {
			throw new SessionError("not_found", `this session has no app surface "${appId}"`);
		}
		const runner = this.session.extensionRunner;
		const registry = this.pier.extensionHost.registry;
		const problem = appCommandProblem(this.ui.appOwner(appId), name, {
			chamberCommands: CHAMBER_COMMAND_NAMES,
			command: (invocation) => {
				const found = runner.getCommand(invocation);
				return found ? { name: found.name, sourcePath: found.sourceInfo.path } : undefined;
			},
			protocolOwner: (command) => registry.commands.get(command)?.instance.id,
		});
		if (problem) throw new SessionError("app_command_refused", problem);
		await this.prompt(args ? `/${name} ${args}` : `/${name}`);
	}

	/** Every model this session can switch to (what `setModel` finds): its registry, extension providers included. */
	availableModels() {
		return this.session.modelRegistry.getAvailable();
	}

	async setModel(ref: string): Promise<void> {
		const slash = ref.indexOf("/");
		const model = slash > 0 ? this.session.modelRegistry.find(ref.slice(0, slash), ref.slice(slash + 1)) : undefined;
		if (!model) throw new SessionError("bad_request", `unknown model "${ref}"`);
		await this.session.setModel(model);
		this.publishModel();
	}

	setThinkingLevel(level: string): void {
		const levels = this.session.getAvailableThinkingLevels();
		if (!levels.includes(level as ThinkingLevel)) {
			throw new SessionError("bad_request", `thinking level must be one of ${levels.join(", ")}`);
		}
		this.session.setThinkingLevel(level as ThinkingLevel);
		this.publishModel();
	}

	rename(name: string): SessionSummary {
		this.session.setSessionName(name);
		return this.summary();
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

function checkCommandName(name: string): void {
	if (!COMMAND_NAME.test(name))
		throw new SessionError("bad_command", `"${name}" is not a command name ([A-Za-z0-9][A-Za-z0-9:_-]{0,127})`);
}

/** Extension files are named by their base name: server paths stay on the server. */
function extensionLabel(path: string): string {
	return path.split(/[\\/]/).filter(Boolean).slice(-2).join("/");
}

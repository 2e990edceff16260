/**
 * What a client can do to one open chamber session: prompt it (a message, an extension command, one of the
 * chamber's own commands, `!bash`), steer and queue, move in its tree, fork, export, switch model and thinking
 * level, rename. Each checks what pi's terminal would refuse and says why; what happens next streams as the
 * live session's events (live-session.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import type { PierRuntime } from "../agent/session-factory.js";
import {
	type ChamberCommandTarget,
	CHAMBER_COMMAND_NAMES,
	isChamberCommand,
	runChamberCommand,
} from "./chamber-commands.js";
import { OutsideWrites } from "./outside-writes.js";
import type { PiExtensionMetrics } from "./pi-metrics.js";
import { attachFiles } from "./attachments/attach.js";
import { type UserImage, userImage } from "./user-images.js";
import { surfacesFromBranch } from "./ui/branch-surfaces.js";
import { findProjectFiles } from "./project-files.js";
import { SessionError } from "./session-error.js";
import { treeOf } from "./session-tree.js";
import { type CommandSource, surfaceCommandProblem } from "./ui/app-owner.js";
import { cardActionProblem, cardOfEntry } from "./ui/card-owner.js";
import { COMMAND_NAME } from "./ui/descriptors.js";
import type { SessionUi } from "./ui/session-ui.js";
import { runUserBash, userBashOf } from "./user-bash.js";
import type {
	CommandView,
	EventName,
	EventPayloads,
	PromptBody,
	QueueView,
	SessionSummary,
	TreeNodeView,
} from "./wire.js";

/** The open session the actions work on, as live-session.ts gives it. */
export interface ActionSubject {
	readonly id: string;
	readonly pier: PierRuntime;
	readonly ui: SessionUi;
	readonly piMetrics: PiExtensionMetrics;
	publish<E extends EventName>(event: E, payload: EventPayloads[E]): void;
	reportError(message: string, source?: string): void;
	/** The session file changed outside the chamber: follow the runtime's session as reloaded from it. */
	reloaded(): Promise<void>;
	commands(): CommandView[];
	summary(): SessionSummary;
	publishModel(): void;
	publishUsage(): void;
}

export class SessionActions implements ChamberCommandTarget {
	private bashRuns = 0;
	private readonly outside = new OutsideWrites();

	constructor(private readonly live: ActionSubject) {}

	/** The pi session the runtime runs now (it changes when an extension replaces it). */
	get session() {
		return this.live.pier.runtime.session;
	}

	get runtime() {
		return this.live.pier.runtime;
	}

	get piMetrics(): PiExtensionMetrics {
		return this.live.piMetrics;
	}

	/** Runs in the background: the answer streams as events; a failure becomes an error row. */
	run(work: Promise<void>, what: string): void {
		work.catch((error: unknown) =>
			this.live.reportError(`${what} failed: ${(error as Error).message ?? error}`, "chamber"),
		);
	}

	/**
	 * A message for the agent, an extension command, or one of the chamber's own commands (pi's terminal has them
	 * as built-ins; here they take the same precedence over extension commands).
	 */
	async prompt(text: string, extra: Omit<PromptBody, "text"> = {}): Promise<void> {
		await this.catchUpWithFile();
		const builtin = /^\/([a-z]+)(?:\s+([\s\S]*))?$/.exec(text.trim());
		const name = builtin?.[1];
		if (name && isChamberCommand(name)) return runChamberCommand(this, name, builtin?.[2]?.trim() ?? "");
		const bash = userBashOf(text);
		if (bash) {
			// pi's terminal refuses a second one while one runs (Esc cancels it first).
			if (this.session.isBashRunning) throw new SessionError("busy", "a bash command is already running");
			this.run(
				runUserBash(this.session, `bash_${++this.bashRuns}`, bash, (event, payload) =>
					this.live.publish(event, payload),
				),
				`!${bash.command}`,
			);
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
		this.run(this.live.piMetrics.observePrompt(text, running), "prompt");
	}

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
		await this.runtime.switchSession(file);
		await this.live.reloaded();
		this.live.publish("extension.notify", {
			message: "the session file changed outside the chamber (pi's CLI?): reloaded it before going on",
			level: "warning",
		});
	}

	steer(text: string): void {
		this.run(this.session.isStreaming ? this.session.steer(text).then(() => {}) : this.session.prompt(text), "steer");
	}

	followUp(text: string): void {
		const queued = this.session.isStreaming ? this.session.followUp(text).then(() => {}) : this.session.prompt(text);
		this.run(queued, "follow-up");
	}

	async abort(): Promise<void> {
		await this.session.abort();
	}

	/** Takes back every queued steer and follow-up (pi's clearQueue); the page puts them back in the composer. */
	clearQueue(): QueueView {
		// pi emits queue_update, which publishes the empty queue.
		const taken = this.session.clearQueue();
		return { steering: taken.steering, followUp: taken.followUp };
	}

	/** `/command args` through the prompt path, for registered commands with a valid name only. */
	async command(name: string, args: string | undefined): Promise<void> {
		checkCommandName(name);
		if (!this.live.commands().some((c) => c.name === name)) {
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
		const { ui } = this.live;
		if (!ui.view().apps.some((a) => a.appId === appId)) {
			throw new SessionError("not_found", `this session has no app surface "${appId}"`);
		}
		const problem = surfaceCommandProblem("app surface", ui.appOwner(appId), name, this.commandSource());
		if (problem) throw new SessionError("app_command_refused", problem);
		await this.prompt(args ? `/${name} ${args}` : `/${name}`);
	}

	/**
	 * A card's button: the card is a transcript entry (`{ entry }`) or a live panel (`{ panel }`). Only one of
	 * the card's own buttons, naming a command of the extension that appended the card, runs.
	 */
	async cardCommand(
		where: { entry: string } | { panel: string },
		name: string,
		args: string | undefined,
	): Promise<void> {
		checkCommandName(name);
		const found = "panel" in where ? this.live.ui.panel(where.panel) : this.entryCard(where.entry);
		if (!found) {
			const what = "panel" in where ? `live panel "${where.panel}"` : `card entry ${where.entry}`;
			throw new SessionError("not_found", `this session has no ${what}`);
		}
		const problem =
			cardActionProblem(found.card, name) ?? surfaceCommandProblem("card", found.owner, name, this.commandSource());
		if (problem) throw new SessionError("card_command_refused", problem);
		await this.prompt(args ? `/${name} ${args}` : `/${name}`);
	}

	private entryCard(entryId: string) {
		const entry = this.session.sessionManager.getEntry(entryId) as SessionEntry | undefined;
		return entry ? cardOfEntry(entry) : undefined;
	}

	/** The session's commands as pi resolves them, for the surfaces whose buttons are scoped to one extension. */
	private commandSource(): CommandSource {
		const runner = this.session.extensionRunner;
		const registry = this.live.pier.extensionHost.registry;
		return {
			chamberCommands: CHAMBER_COMMAND_NAMES,
			command: (invocation) => {
				const found = runner.getCommand(invocation);
				return found ? { name: found.name, sourcePath: found.sourceInfo.path } : undefined;
			},
			protocolOwner: (command) => registry.commands.get(command)?.instance.id,
		};
	}

	/** `@` completion: the project's files matching `query` (pi-tui's fuzzy filter). */
	files(query: string): string[] {
		return findProjectFiles(this.session.sessionManager.getCwd(), query);
	}

	tree(): TreeNodeView[] {
		return treeOf(this.session.sessionManager);
	}

	image(entryId: string, n: number): UserImage {
		return userImage(this.session.sessionManager, entryId, n);
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
		surfacesFromBranch(this.live.ui, this.session.sessionManager);
		this.live.publish("session.branch", { leafId: this.session.sessionManager.getLeafId() });
		if (result.editorText !== undefined) this.live.ui.replaceEditorText(result.editorText);
		this.live.publishUsage();
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
		const result = await this.runtime.fork(entryId);
		if (result.cancelled) throw new SessionError("cancelled", "an extension cancelled the fork");
		if (result.selectedText) this.live.ui.replaceEditorText(result.selectedText);
		return { id: this.live.id };
	}

	/** pi's HTML export of the session, as a string (written to a private temporary directory, then removed). */
	async exportHtml(): Promise<{ name: string; html: string }> {
		const dir = mkdtempSync(join(tmpdir(), "pier-export-"));
		try {
			const name = `pi-session-${this.live.id}.html`;
			const path = await this.session.exportToHtml(join(dir, name));
			return { name, html: readFileSync(path, "utf8") };
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	}

	/** Every model this session can switch to (what `setModel` finds): its registry, extension providers included. */
	availableModels() {
		return this.session.modelRuntime.getAvailableSnapshot();
	}

	/** Re-reads models.json and the credentials for `providers` into this session's registry (no network). */
	async refreshModels(providers: string[]): Promise<void> {
		await this.session.modelRuntime.refresh({ providers, allowNetwork: false });
	}

	async setModel(ref: string): Promise<void> {
		const slash = ref.indexOf("/");
		const model = slash > 0 ? this.session.modelRuntime.getModel(ref.slice(0, slash), ref.slice(slash + 1)) : undefined;
		if (!model) throw new SessionError("bad_request", `unknown model "${ref}"`);
		await this.session.setModel(model);
		this.live.publishModel();
	}

	setThinkingLevel(level: string): void {
		const levels = this.session.getAvailableThinkingLevels();
		if (!levels.includes(level as ThinkingLevel)) {
			throw new SessionError("bad_request", `thinking level must be one of ${levels.join(", ")}`);
		}
		this.session.setThinkingLevel(level as ThinkingLevel);
		this.live.publishModel();
	}

	rename(name: string): SessionSummary {
		this.session.setSessionName(name);
		return this.live.summary();
	}
}

function checkCommandName(name: string): void {
	if (!COMMAND_NAME.test(name))
		throw new SessionError("bad_command", `"${name}" is not a command name ([A-Za-z0-9][A-Za-z0-9:_-]{0,127})`);
}

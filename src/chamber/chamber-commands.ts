/**
 * The chamber's own slash commands: pi's terminal built-ins that make sense in a browser, the list a session
 * offers (these first, then its extensions' commands, prompt templates and skills), and what each one does.
 */
import type { AgentSession, AgentSessionRuntime } from "@earendil-works/pi-coding-agent";
import type { PiExtensionMetrics } from "./pi-metrics.js";
import { SessionError } from "./session-error.js";
import type { CommandView, SessionSummary } from "./wire.js";

/** The chamber's own slash commands (pi's terminal built-ins that make sense in a browser). */
export const CHAMBER_COMMANDS = {
	new: "Start a fresh session in this project (this one stays in the list)",
	compact: "Summarize the conversation so far to free context (optional: instructions)",
	reload: "Reload extensions, skills, prompts and themes (protocol extensions restart as a new generation)",
	name: "Rename this session",
	model: "Switch model: /model provider/id",
	thinking: "Set the thinking level: /thinking off|minimal|low|medium|high|xhigh",
	tree: "Navigate the session tree: jump to any earlier entry (optionally summarizing the branch you leave)",
	fork: "Start a new session from an earlier user message (its history up to there)",
	resume: "Open another session of this project",
	export: "Download this session as HTML (pi's export)",
	copy: "Copy the last answer to the clipboard",
	session: "Show session info: file, id, messages, tokens and cost",
	hotkeys: "Show the keyboard shortcuts",
} as const;
export type ChamberCommand = keyof typeof CHAMBER_COMMANDS;
/** Chamber commands that are the page's to show (a picker, the clipboard, a download); the API has routes. */
const PAGE_COMMANDS: Partial<Record<ChamberCommand, string>> = {
	resume: "the page opens its session picker (GET /api/pi/sessions lists them)",
	export: "GET /api/pi/sessions/:id/export downloads it",
	copy: "the page copies the last answer",
	session: "GET /api/pi/sessions/:id shows it",
	hotkeys: "the page lists them",
};

export const CHAMBER_COMMAND_NAMES: ReadonlySet<string> = new Set(Object.keys(CHAMBER_COMMANDS));

export const isChamberCommand = (name: string): name is ChamberCommand => CHAMBER_COMMAND_NAMES.has(name);

/** What a chamber command acts on: the live session's operations it shares with the API routes. */
export interface ChamberCommandTarget {
	readonly session: AgentSession;
	readonly runtime: AgentSessionRuntime;
	readonly piMetrics: PiExtensionMetrics;
	/** Runs in the background; a failure becomes an error row. */
	run(work: Promise<void>, what: string): void;
	rename(name: string): SessionSummary;
	setModel(ref: string): Promise<void>;
	setThinkingLevel(level: string): void;
	navigate(entryId: string): Promise<void>;
	fork(entryId: string): Promise<{ id: string }>;
}

export function sessionCommands(session: AgentSession): CommandView[] {
	const own = Object.entries(CHAMBER_COMMANDS).map(([name, description]) => ({
		name,
		description,
		source: "chamber",
	}));
	const taken = new Set(Object.keys(CHAMBER_COMMANDS));
	const fromExtensions = session.extensionRunner.getRegisteredCommands().filter((c) => !taken.has(c.invocationName));
	// What pi's RPC get_commands adds: prompt templates and skills, which session.prompt expands.
	const described = (name: string, description: string | undefined, source: string) => ({
		name,
		...(description ? { description } : {}),
		source,
	});
	return [
		...own,
		...fromExtensions.map((c) => described(c.invocationName, c.description, "extension")),
		...session.promptTemplates.map((t) => described(t.name, t.description, "prompt")),
		...session.resourceLoader.getSkills().skills.map((s) => described(`skill:${s.name}`, s.description, "skill")),
	];
}

export async function runChamberCommand(live: ChamberCommandTarget, name: ChamberCommand, args: string): Promise<void> {
	const needs = (what: string) => {
		if (!args) throw new SessionError("bad_request", `/${name} needs ${what}`);
	};
	switch (name) {
		case "new":
			if (live.session.isStreaming) throw new SessionError("busy", "wait for the agent before starting anew");
			live.run(
				live.runtime.newSession().then(() => undefined),
				"/new",
			);
			return;
		case "compact":
			if (live.session.isStreaming) throw new SessionError("busy", "wait for the agent before compacting");
			live.run(
				live.session.compact(args || undefined).then(() => undefined),
				"/compact",
			);
			return;
		case "reload":
			if (live.session.isStreaming) throw new SessionError("busy", "wait for the agent before reloading");
			live.run(
				live.session.reload().then(() => live.piMetrics.reloaded()),
				"/reload",
			);
			return;
		case "name":
			needs("a name");
			live.rename(args);
			return;
		case "model":
			needs("a model (provider/id)");
			return live.setModel(args);
		case "thinking":
			needs(`a level (${live.session.getAvailableThinkingLevels().join(", ")})`);
			return live.setThinkingLevel(args);
		case "tree":
			needs("an entry id (GET /api/pi/sessions/:id/tree lists them)");
			return live.navigate(args);
		case "fork":
			needs("a user message's entry id");
			await live.fork(args);
			return;
		default:
			throw new SessionError("page_command", `/${name} is the page's: ${PAGE_COMMANDS[name]}`);
	}
}

/**
 * What a pier session is made from (`PierSessionOptions`) and what it is (`PierRuntime`): the shapes every mode
 * (`pier run`, the terminal, RPC, the chamber, library embedders) hands to and gets from `createPierRuntime`.
 */
import type { AgentTool, ThinkingLevel } from "@earendil-works/pi-agent-core";
import type {
	AgentSessionRuntime,
	AgentSessionRuntimeDiagnostic,
	InlineExtension,
} from "@earendil-works/pi-coding-agent";
import type { ExtensionHost, HostDiagnostic } from "../extensions/host/host.js";
import type { Timeouts } from "../extensions/host/timeouts.js";
import type { Mode } from "../extensions/protocol/frames.js";
import type { TrustDecision } from "../extensions/trust.js";
import type { McpControl } from "./mcp/control.js";

/** Which session file a pier session writes to. */
export type SessionTarget =
	| { kind: "new" }
	| { kind: "continue" }
	| { kind: "open"; file: string }
	/** pi's `--fork`: a new session in this project holding a copy of that file's history. */
	| { kind: "fork"; file: string }
	| { kind: "memory" };

export interface PierSessionOptions {
	cwd?: string;
	/** pi's agent directory; defaults to `$PI_CODING_AGENT_DIR` or `~/.pi/agent`. */
	agentDir?: string;
	/**
	 * `--model`: `provider/id` or any pattern pi's resolver takes (fuzzy, glob, `:<thinking>`). Without it pi's
	 * own choice applies, and pier/demo when nothing is configured.
	 */
	model?: string;
	/** `--provider`: where a bare `model` pattern is looked up. */
	provider?: string;
	/** `--models`: the scope of models to cycle through (pi's patterns). */
	models?: string[];
	/** `--api-key`: a key for the chosen model's provider, for this run only (never stored). */
	apiKey?: string;
	thinkingLevel?: ThinkingLevel;
	session?: SessionTarget;
	/** pi's `--session-dir`: where this project's session files live (default: pi's per-project directory). */
	sessionDir?: string;
	/** Extension files or directories, as `pi -e`. */
	extensionPaths?: string[];
	/** Skip discovered extensions (explicit `extensionPaths` and factories still load), as `pi --no-extensions`. */
	noExtensions?: boolean;
	/** In-process extensions handed over as code (pi `ExtensionFactory`, or pi's named/hidden `InlineExtension`). */
	extensionFactories?: InlineExtension[];
	/** Extra tools for the agent, active from the start. */
	tools?: AgentTool[];
	/** pi's `--tools`: the names of the only tools active (built-in, extension or custom). */
	toolNames?: string[];
	/** pi's `--no-tools` ("all") / `--no-builtin-tools` ("builtin"). */
	noTools?: "all" | "builtin";
	/** pi's `--exclude-tools`: tools never active, whatever else says so. */
	excludeTools?: string[];
	/** pi's `--no-mcp`: pi's built-in MCP extension does not load. */
	noMcp?: boolean;
	/** pi's `--name`: the session's display name, recorded in its file. */
	sessionName?: string;
	/** pi's `--session-id`: a new session gets this id; with `{kind: "new"}` an existing one of this id is opened. */
	sessionId?: string;
	/** pi's `--system-prompt` / `--append-system-prompt`: text, or a file whose text it is. */
	systemPrompt?: string;
	appendSystemPrompt?: string[];
	/** pi's `--skill`, `--prompt-template`, `--theme`: extra resource paths (resolved against `cwd`). */
	skillPaths?: string[];
	promptTemplatePaths?: string[];
	themePaths?: string[];
	/** pi's `--no-skills`, `--no-prompt-templates`, `--no-themes`, `--no-context-files`. */
	noSkills?: boolean;
	noPromptTemplates?: boolean;
	noThemes?: boolean;
	noContextFiles?: boolean;
	/** `--approve` / `--no-approve`: trust the project for this run only (nothing is stored). */
	approve?: boolean;
	/**
	 * Asked when the project needs a decision, none is stored and no trust hook decided (the terminal's
	 * question). true/false decides this run; undefined leaves it untrusted. Headless modes pass none.
	 */
	askProjectTrust?: (decision: TrustDecision) => Promise<boolean | undefined>;
	/** Values of extension-registered CLI flags (`--name value`). */
	extensionFlags?: Map<string, boolean | string>;
	/** Who holds the session file's lease, as a refused second writer is told ("serve", "run", …). */
	leaseHolder?: string;
	/** What the session shows protocol extensions: `tui`, `rpc`, `json` or `print` (no dialogs). */
	mode?: Mode;
	/** Protocol extension host settings (defaults: rpi's timeouts, 1 MiB frames, empty environment). */
	extensionHost?: {
		timeouts?: Partial<Timeouts>;
		maxFrameBytes?: number;
		environment?: Readonly<Record<string, string>>;
	};
	/** Protocol extension problems after start-up (a crash mid-session). Defaults to stderr. */
	onExtensionDiagnostic?: (diagnostic: HostDiagnostic) => void;
	/**
	 * Errors in the `mcp.json` files, each `<file>: server "<name>": …`, at each session start. Modes with a UI
	 * see pi's own notice; headless ones (`pier run`) have none, so they report these themselves.
	 */
	onMcpConfigErrors?: (errors: readonly string[]) => void;
}

export interface PierRuntime {
	runtime: AgentSessionRuntime;
	/** Everything the user should be told: extension load failures, skipped project extensions. */
	diagnostics: AgentSessionRuntimeDiagnostic[];
	/**
	 * The errors among them pi's own CLI ends on before any prompt (exit 1): pi's loader failing an
	 * extension, an unknown or valueless extension flag. A process or QuickJS extension that cannot
	 * start is not one: the run goes on without it.
	 */
	piErrors: AgentSessionRuntimeDiagnostic[];
	trust: TrustDecision;
	/** The host of protocol extensions (process, QuickJS, native) bridged into this session. */
	extensionHost: ExtensionHost;
	/** pi's MCP servers of the current session: their state, and pi's `/mcp` actions on them. */
	mcp: McpControl;
	/** Ends the session and every extension process. */
	dispose(): Promise<void>;
}

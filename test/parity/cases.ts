/**
 * One case per example extension that ships in pi 0.74.2's package (`examples/extensions/`, 72 entries):
 * the prompts that exercise it (its commands as `/name`, its tools through the model server's
 * `call <tool> <json>` lines, its flags), for print mode and for RPC mode.
 *
 * Print mode runs each case twice, `-p <prompts…>` and `--mode json <prompts…>`; RPC mode sends the same
 * prompts as `prompt` commands (plus `rpcExtra` commands), then `get_commands` and `get_state`.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PI_EXAMPLES, type World } from "./programs.js";
import type { RpcCommand } from "./rpc-driver.js";

export interface ParityCase {
	/** The entry's name in examples/extensions/ (a file or a directory). */
	example: string;
	/** What -e names, when not the entry itself (a file inside a directory entry). */
	entry?: string;
	prompts: string[];
	/** Extra options before the prompts, both modes (extension flags such as --plan). */
	args?: string[];
	/** Print mode only: message arguments before the prompts (`@file`), and text piped to stdin. */
	printArgs?: string[];
	stdin?: string;
	/** RPC commands sent after the prompts (session actions the example hooks). */
	rpcExtra?: RpcCommand[];
	setup?: (world: World) => void;
	/**
	 * stdout lines (RPC frames, JSON events) a timer produces, so their number and place depend on how fast
	 * the machine is: left out of the comparison (normalise.ts lists this).
	 */
	unordered?: RegExp;
	/** Run nothing: why (network, a TTY-only UI, a missing system tool). */
	skip?: string;
	/** What the prompts cannot reach, and why; the case still runs. */
	limits?: string;
}

const call = (tool: string, args: Record<string, unknown> = {}) => `call ${tool} ${JSON.stringify(args)}`;

function git(world: World, ...args: string[]): void {
	execFileSync("git", args, {
		cwd: world.project,
		stdio: "ignore",
		env: {
			PATH: process.env.PATH ?? "",
			HOME: world.home,
			GIT_AUTHOR_NAME: "parity",
			GIT_AUTHOR_EMAIL: "parity@example.invalid",
			GIT_COMMITTER_NAME: "parity",
			GIT_COMMITTER_EMAIL: "parity@example.invalid",
			GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z",
			GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z",
		},
	});
}

function gitRepo(world: World, dirty = false): void {
	git(world, "init", "-q", "-b", "main");
	git(world, "add", "notes.txt");
	git(world, "commit", "-q", "-m", "initial");
	if (dirty) writeFileSync(join(world.project, "notes.txt"), "changed\n");
}

export const CASES: ParityCase[] = [
	{
		example: "auto-commit-on-exit.ts",
		prompts: [call("write", { path: "new.txt", content: "made by the agent\n" })],
		setup: (w) => gitRepo(w),
	},
	{
		example: "bash-spawn-hook.ts",
		prompts: [call("bash", { command: "echo hook=$PI_SPAWN_HOOK" })],
		// The hook sources ~/.profile; without one, bash's complaint races the command's output.
		setup: (w) => writeFileSync(join(w.home, ".profile"), "# parity\n"),
	},
	{
		example: "bookmark.ts",
		prompts: ["hello", "/bookmark first", "/unbookmark"],
		rpcExtra: [{ type: "get_messages" }],
	},
	{
		example: "border-status-editor.ts",
		prompts: ["hello"],
		limits: "its editor is a TTY component; only its events run here",
	},
	{ example: "built-in-tool-renderer.ts", prompts: [call("read", { path: "notes.txt" })] },
	{
		example: "claude-rules.ts",
		prompts: ["hello"],
		setup: (w) => {
			mkdirSync(join(w.project, ".claude", "rules"), { recursive: true });
			writeFileSync(join(w.project, ".claude", "rules", "testing.md"), "# Testing\nAlways test.\n");
		},
		printArgs: ["@notes.txt"],
	},
	{ example: "commands.ts", prompts: ["/commands", "/commands extension"] },
	{ example: "confirm-destructive.ts", prompts: ["hello"], rpcExtra: [{ type: "clone" }, { type: "new_session" }] },
	{
		example: "custom-compaction.ts",
		prompts: ["hello", "again"],
		rpcExtra: [{ type: "compact" }],
		limits: "compaction only runs in RPC (print mode has no /compact)",
	},
	{ example: "custom-footer.ts", prompts: ["/footer"], limits: "the footer is a TTY component" },
	{ example: "custom-header.ts", prompts: ["/builtin-header"], limits: "the header is a TTY component" },
	{
		example: "custom-provider-anthropic",
		prompts: ["hello"],
		limits: "its provider needs api.anthropic.com (network); only its registration runs",
	},
	{
		example: "custom-provider-gitlab-duo",
		prompts: ["hello"],
		limits: "its provider needs gitlab.com (network); only its registration runs",
	},
	{
		example: "dirty-repo-guard.ts",
		prompts: ["hello"],
		rpcExtra: [{ type: "clone" }, { type: "new_session" }],
		setup: (w) => gitRepo(w, true),
	},
	{
		example: "doom-overlay",
		prompts: ["hello"],
		limits: "its command downloads doom1.wad from the network and draws a 35 fps overlay on a TTY: only loading runs",
	},
	{ example: "dynamic-resources", prompts: ["hello"] },
	{
		example: "dynamic-tools.ts",
		prompts: [
			call("echo_session", { message: "one" }),
			"/add-echo-tool echo_more",
			call("echo_more", { message: "two" }),
		],
	},
	{ example: "event-bus.ts", prompts: ["/emit parity event"] },
	{ example: "file-trigger.ts", prompts: ["hello"], limits: "watches /tmp/agent-trigger.txt, shared by the machine" },
	{
		example: "git-checkpoint.ts",
		prompts: [call("write", { path: "notes.txt", content: "rewritten\n" })],
		rpcExtra: [{ type: "get_fork_messages" }, { type: "clone" }],
		setup: (w) => gitRepo(w),
	},
	{
		example: "github-issue-autocomplete.ts",
		prompts: ["hello"],
		limits: "gh is not installed and the issues live on github.com; autocomplete is a TTY feature",
	},
	{ example: "handoff.ts", prompts: ["hello", "/handoff write the tests"] },
	{
		example: "hello.ts",
		prompts: [call("hello", { name: "Parity" })],
		rpcExtra: [{ type: "export_html", outputPath: "session.html" }],
	},
	{ example: "hidden-thinking-label.ts", prompts: ["/thinking-label Pondering"] },
	{ example: "inline-bash.ts", prompts: ["what does !{echo parity-inline} print?"] },
	{ example: "input-transform.ts", prompts: ["ping", "?quick what is pi", "plain text"] },
	// pi 1.6's examples. The input transform runs `git diff --stat` on a prompt that mentions changes.
	{
		example: "input-transform-streaming.ts",
		prompts: ["what changed?", "plain text"],
		setup: (w) => gitRepo(w, true),
	},
	{ example: "debug-provider.ts", prompts: ["hello", "/debug-provider"] },
	{ example: "entry-renderer.ts", prompts: ["/status-card", "hello"], limits: "the entry renderer draws in a TTY" },
	{
		example: "git-merge-and-resolve.ts",
		prompts: ["hello"],
		setup: (w) => gitRepo(w),
		limits: "the repository has no upstream, so there is nothing to merge",
	},
	{
		example: "gondolin",
		prompts: ["hello"],
		skip: "@earendil-works/gondolin is not installed (the example says to npm install it) and it needs QEMU",
	},
	{ example: "jev-router.ts", prompts: ["hello"], limits: "its router model needs a credentialed provider" },
	{ example: "project-trust.ts", prompts: ["hello"], limits: "a project with nothing to trust asks no question" },
	{
		example: "interactive-shell.ts",
		prompts: ["hello"],
		rpcExtra: [{ type: "bash", command: "echo from-user-bash" }],
		limits: "interactive commands need a TTY; a plain user bash runs in RPC",
	},
	{ example: "mac-system-theme.ts", prompts: ["hello"], limits: "reads macOS's appearance (not on this machine)" },
	{ example: "message-renderer.ts", prompts: ["/status", "/status error"] },
	{ example: "minimal-mode.ts", prompts: [call("read", { path: "notes.txt" })] },
	{ example: "modal-editor.ts", prompts: ["hello"], limits: "the editor is a TTY component" },
	{
		example: "model-status.ts",
		prompts: ["hello"],
		rpcExtra: [{ type: "set_model", provider: "parity", modelId: "parity-model" }, { type: "cycle_thinking_level" }],
	},
	{ example: "notify.ts", prompts: ["hello"] },
	{
		example: "overlay-qa-tests.ts",
		prompts: ["/overlay-anchors", "/overlay-stack"],
		limits: "overlays are TTY components",
	},
	{ example: "overlay-test.ts", prompts: ["/overlay-test"], limits: "overlays are TTY components" },
	{ example: "permission-gate.ts", prompts: [call("bash", { command: "rm -rf ./missing-dir" })] },
	{ example: "pirate.ts", prompts: ["/pirate", "hello"] },
	{ example: "plan-mode", prompts: ["hello", "/plan", "/todos"], args: ["--plan", "on"] },
	{
		example: "preset.ts",
		prompts: ["hello", "/preset"],
		args: ["--preset", "quick"],
		setup: (w) =>
			writeFileSync(
				join(w.agentDir, "presets.json"),
				JSON.stringify({ quick: { thinkingLevel: "low", tools: ["read"], instructions: "Be quick." } }),
			),
	},
	{ example: "prompt-customizer.ts", prompts: ["hello"], stdin: "text from a pipe\n" },
	{ example: "protected-paths.ts", prompts: [call("write", { path: ".env", content: "SECRET=1\n" })] },
	{ example: "provider-payload.ts", prompts: ["hello"] },
	{ example: "qna.ts", prompts: ["What is A? What is B?", "/qna"] },
	{
		example: "question.ts",
		prompts: [call("question", { question: "Which one?", options: [{ label: "first" }, { label: "second" }] })],
	},
	{
		example: "questionnaire.ts",
		prompts: [
			call("questionnaire", {
				questions: [{ id: "q1", label: "Pick", prompt: "Pick one", options: [{ value: "a", label: "A" }] }],
			}),
		],
	},
	{ example: "rainbow-editor.ts", prompts: ["hello"], limits: "the editor is a TTY component" },
	{ example: "reload-runtime.ts", prompts: ["/reload-runtime", call("reload_runtime")] },
	{
		example: "rpc-demo.ts",
		prompts: ["/rpc-input", "/rpc-editor", "/rpc-prefill", "hello"],
		rpcExtra: [{ type: "new_session" }],
	},
	{ example: "send-user-message.ts", prompts: ["/ask what is one", "/followup and two", "/steer three"] },
	{
		example: "session-name.ts",
		prompts: ["/session-name parity run", "hello"],
		rpcExtra: [{ type: "set_session_name", name: "renamed" }, { type: "get_session_stats" }],
	},
	{ example: "shutdown-command.ts", prompts: ["hello", call("finish_and_exit"), "/quit"] },
	{ example: "snake.ts", prompts: ["/snake"], limits: "the game is a TTY component" },
	{ example: "space-invaders.ts", prompts: ["/invaders"], limits: "the game is a TTY component" },
	{ example: "ssh.ts", prompts: ["hello"], limits: "--ssh needs a reachable ssh host; without it the tools are local" },
	{ example: "status-line.ts", prompts: ["hello"] },
	{
		example: "structured-output.ts",
		prompts: [call("structured_output", { headline: "H", summary: "S", actionItems: ["a", "b"] })],
	},
	{
		example: "subagent",
		// The directory's prompts/ make -e <dir> a package whose extension is not loaded; its README links index.ts.
		entry: "subagent/index.ts",
		prompts: [call("subagent", { agent: "helper", task: "say hello" })],
		setup: (w) => {
			mkdirSync(join(w.agentDir, "agents"));
			writeFileSync(
				join(w.agentDir, "agents", "helper.md"),
				"---\nname: helper\ndescription: answers briefly\ntools: read\n---\n\nYou help.\n",
			);
			copyFileSync(join(PI_EXAMPLES, "subagent", "agents", "scout.md"), join(w.agentDir, "agents", "scout.md"));
		},
	},
	{
		example: "summarize.ts",
		prompts: ["hello", "/summarize"],
		limits: "summarizes with openai/gpt-5.2 (network, a key)",
	},
	{ example: "system-prompt-header.ts", prompts: ["hello"] },
	{
		example: "tic-tac-toe.ts",
		prompts: ["/tic-tac-toe", call("tic_tac_toe_see_board")],
		limits: "the board is a TTY component",
	},
	{ example: "timed-confirm.ts", prompts: ["/timed", "/timed-select"] },
	{
		example: "titlebar-spinner.ts",
		prompts: ["hello"],
		unordered: /"method":"setTitle","title":"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /,
	},
	{
		example: "todo.ts",
		prompts: [call("todo", { action: "add", text: "write parity" }), call("todo", { action: "list" }), "/todos"],
		rpcExtra: [{ type: "clone" }, { type: "prompt", message: "/todos" }],
	},
	{ example: "tool-override.ts", prompts: [call("read", { path: "notes.txt" }), "/read-log"] },
	{ example: "tools.ts", prompts: ["/tools", "hello"] },
	{ example: "trigger-compact.ts", prompts: ["hello", "/trigger-compact"] },
	{ example: "truncated-tool.ts", prompts: [call("rg", { pattern: "line" })], limits: "ripgrep (rg) is not installed" },
	{ example: "widget-placement.ts", prompts: ["hello"] },
	{ example: "with-deps", prompts: [call("parse_duration", { duration: "2 days" })] },
	{ example: "working-indicator.ts", prompts: ["/working-indicator", "hello"] },
	{ example: "working-message-test.ts", prompts: ["hello"] },
];

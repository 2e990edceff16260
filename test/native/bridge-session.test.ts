/**
 * The session actions pier's protocol gained for native runtime actions (get_system_prompt, get_thinking_level,
 * get_session_branch, new_session, fork, navigate_tree, switch_session; append_entry's entry id), answered by
 * bridge/actions.ts from a real pi session: from a tool (no command context) and from a Node kit command.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { ExtensionUIContext } from "@earendil-works/pi-coding-agent";
import { createPierSession } from "../../src/index.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { scriptedPackage } from "../helpers/scripted.js";

const KIT_SESSION = join(REPO_ROOT, "test", "fixtures", "process", "kit-session");

/** The JSON the scripted tool returned, as the demo model quoted it. */
function lastToolJson(session: { messages: unknown[] }): {
	status: string;
	value?: unknown;
	error?: { message: string };
} {
	const text = (session.messages.at(-1) as { content: { text: string }[] }).content[0]!.text;
	const quoted = /says: "(.*)"\.$/s.exec(text)?.[1];
	assert.ok(quoted, text);
	return JSON.parse(quoted);
}

/** A UI whose notifications are kept; everything else does nothing. */
/** Every method of pi's UI context, as own properties: pi 1.6 copies the context it is given with a spread. */
const UI_METHODS = [
	"addAutocompleteProvider",
	"confirm",
	"custom",
	"editor",
	"getAllThemes",
	"getEditorComponent",
	"getEditorText",
	"getTheme",
	"getToolsExpanded",
	"input",
	"pasteToEditor",
	"select",
	"setEditorComponent",
	"setEditorText",
	"setFooter",
	"setHeader",
	"setHiddenThinkingLabel",
	"setStatus",
	"setTheme",
	"setTitle",
	"setToolsExpanded",
	"setWidget",
	"setWorkingIndicator",
	"setWorkingMessage",
	"setWorkingVisible",
] as const;

function notifyingUi() {
	const notes: string[] = [];
	const ui: Record<string, unknown> = Object.fromEntries(UI_METHODS.map((name) => [name, () => undefined]));
	ui.notify = (message: string) => notes.push(message);
	ui.onTerminalInput = () => () => {};
	return { ui: ui as unknown as ExtensionUIContext, notes };
}

describe("pier's added session actions in a real session", () => {
	test("from a tool: the live system prompt, thinking level, branch and entry ids; replacement is refused", async () => {
		using dir = tempDir();
		const pkg = scriptedPackage(dir.path, "actor", {
			tools: ["action"],
			capabilities: ["tools", "event_hooks", "session_actions"],
		});
		const pier = await createPierSession({
			cwd: dir.path,
			agentDir: dir.path,
			session: { kind: "memory" },
			extensionPaths: [pkg],
		});
		try {
			const act = async (action: unknown) => {
				await pier.session.prompt(`action ${JSON.stringify({ action })}`);
				return lastToolJson(pier.session);
			};
			assert.deepEqual(await act({ kind: "get_system_prompt" }), {
				status: "success",
				value: pier.session.systemPrompt,
			});
			assert.deepEqual(await act({ kind: "get_thinking_level" }), { status: "success", value: "off" });
			const appended = await act({ kind: "append_entry", customType: "plan", data: { on: true } });
			const entry = pier.session.sessionManager.getEntries().find((e) => e.type === "custom")!;
			assert.equal(appended.value, entry.id, "append_entry answers the new entry's id");
			const branch = (await act({ kind: "get_session_branch" })).value as Array<Record<string, unknown>>;
			assert.deepEqual(
				branch.filter((e) => e.type === "custom").map((e) => [e.customType, e.data]),
				[["plan", { on: true }]],
			);
			for (const action of [
				{ kind: "new_session" },
				{ kind: "fork", entryId: entry.id },
				{ kind: "navigate_tree", targetId: entry.id },
				{ kind: "switch_session", sessionPath: join(dir.path, "x.jsonl") },
			]) {
				const answer = await act(action);
				assert.equal(answer.status, "failure");
				assert.match(answer.error!.message, new RegExp(`${action.kind} is available only while a command runs`));
			}
		} finally {
			await pier.dispose();
		}
	});

	test("from a command: the kit's getSessionBranch, fetchSystemPrompt and newSession", async () => {
		using dir = tempDir();
		const { ui, notes } = notifyingUi();
		const pier = await createPierSession({
			cwd: dir.path,
			agentDir: dir.path,
			session: { kind: "memory" },
			extensionPaths: [KIT_SESSION],
			uiContext: ui,
		});
		try {
			const probe = async (method: string, ...args: unknown[]) => {
				await pier.session.prompt(`/probe ${JSON.stringify({ method, args })}`);
				for (let i = 0; i < 100 && notes.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
				return JSON.parse(notes.shift()!) as { value?: unknown; error?: string };
			};
			assert.deepEqual(await probe("fetchSystemPrompt"), { value: pier.session.systemPrompt });
			assert.deepEqual(await probe("fetchThinkingLevel"), { value: "off" });
			assert.ok(Array.isArray((await probe("getSessionBranch")).value));
			const before = pier.session.sessionManager.getSessionId();
			assert.deepEqual(await probe("newSession"), { value: { cancelled: false } });
			assert.notEqual(pier.session.sessionManager.getSessionId(), before, "a new session replaced the old one");
			const missing = await probe("navigateTree", "no-such-entry");
			assert.match(missing.error ?? "", /action_failed/);
		} finally {
			await pier.dispose();
		}
	});
});

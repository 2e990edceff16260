/**
 * Session files for the chamber's figures, written through pi's own SessionManager (so their format is pi's):
 * user/assistant turns, every third turn with a tool call and its result, and every 25th entry a
 * `pichamber.ui` panel (12 ids, so a rebuilt view has a dock). Copies of one file under new ids stand in for
 * many sessions of the same size.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";

const usage = {
	input: 1200,
	output: 300,
	cacheRead: 0,
	cacheWrite: 0,
	totalTokens: 1500,
	cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};
const prose = (n: number, i: number) =>
	`Entry ${i}: ${"lorem ipsum dolor sit amet ".repeat(Math.ceil(n / 27))}`.slice(0, n);

export function user(i: number) {
	return { role: "user" as const, content: prose(200, i), timestamp: Date.now() };
}

export function assistant(i: number, toolCallId?: string) {
	return {
		role: "assistant" as const,
		content: [
			{ type: "text" as const, text: prose(toolCallId ? 150 : 800, i) },
			...(toolCallId
				? [{ type: "toolCall" as const, id: toolCallId, name: "read", arguments: { path: `src/file-${i}.ts` } }]
				: []),
		],
		api: "openai-completions" as const,
		provider: "bench",
		model: "bench-model",
		usage,
		stopReason: toolCallId ? ("toolUse" as const) : ("stop" as const),
		timestamp: Date.now(),
	};
}

/** A session of `entries` entries in `sessionDir`. pi writes the file once an assistant message exists. */
export function writeSession(cwd: string, sessionDir: string, entries: number): { id: string; file: string } {
	const manager = SessionManager.create(cwd, sessionDir);
	let count = 0;
	let turn = 0;
	const add = (append: () => void) => {
		if (count < entries) {
			append();
			count++;
		}
	};
	while (count < entries) {
		if (count % 25 === 24) {
			const id = `panel-${Math.floor(count / 25) % 12}`;
			add(() =>
				manager.appendCustomEntry("pichamber.ui", { id, component: "markdown", props: { body: prose(300, count) } }),
			);
			continue;
		}
		add(() => manager.appendMessage(user(count)));
		if (turn++ % 3 === 2) {
			const callId = `call_${count}`;
			add(() => manager.appendMessage(assistant(count, callId)));
			add(() =>
				manager.appendMessage({
					role: "toolResult",
					toolCallId: callId,
					toolName: "read",
					content: [{ type: "text", text: prose(1500, count) }],
					isError: false,
					timestamp: Date.now(),
				}),
			);
		}
		add(() => manager.appendMessage(assistant(count)));
	}
	const file = manager.getSessionFile();
	if (!file) throw new Error("pi did not name a session file");
	return { id: manager.getSessionId(), file };
}

/**
 * `count` sessions of about `bytes` each in `sessionDir`: one written by pi, the rest copies of it under new
 * ids (pi names a file `<time>_<id>.jsonl` and reads the id from its header line). Their files.
 */
export function writeSessions(cwd: string, sessionDir: string, count: number, bytes: number): string[] {
	// ~860 bytes an entry on average with this mix.
	const template = writeSession(cwd, sessionDir, Math.max(2, Math.round(bytes / 860)));
	mkdirSync(sessionDir, { recursive: true });
	const text = readFileSync(template.file, "utf8");
	const newline = text.indexOf("\n");
	const header = JSON.parse(text.slice(0, newline)) as { id: string };
	const rest = text.slice(newline);
	const stamp = basename(template.file).slice(0, -`_${template.id}.jsonl`.length);
	const files = [template.file];
	for (let i = 1; i < count; i++) {
		const id = randomUUID();
		const file = join(dirname(template.file), `${stamp}_${id}.jsonl`);
		writeFileSync(file, `${JSON.stringify({ ...header, id })}${rest}`);
		files.push(file);
	}
	return files;
}

export const sizeOf = (files: readonly string[]) => files.reduce((sum, f) => sum + statSync(f).size, 0);

/**
 * What the composer answers itself rather than sending: the chamber's page commands (a picker, a download, the
 * clipboard; the daemon lists them with source "chamber" and refuses them as prompts), and the `@file` token.
 */
import { api } from "./api.js";
import type { HabitDialog } from "./components/HabitDialogs.js";
import type { ToastLevel } from "./components/Toasts.js";
import type { TranscriptRow } from "./types.js";

const PAGE_COMMANDS = new Set(["tree", "fork", "resume", "export", "copy", "session", "hotkeys"]);

/** The `@token` being typed at the caret, if any (an email address is not one: `@` must start a word). */
export function fileQueryAt(text: string, caret: number): { start: number; query: string } | undefined {
	const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
	return m ? { start: caret - (m[2]?.length ?? 0) - 1, query: m[2] ?? "" } : undefined;
}

interface PageContext {
	sessionId: string;
	rows: readonly TranscriptRow[];
	openDialog: (dialog: HabitDialog) => void;
	toast: (message: string, level?: ToastLevel) => void;
}

/** Runs `message` if it is a page command (true), else leaves it for the daemon (false). */
export async function runPageCommand(message: string, ctx: PageContext): Promise<boolean> {
	const m = /^\/([a-z]+)(?:\s+([\s\S]*))?$/.exec(message.trim());
	const name = m?.[1];
	const args = m?.[2]?.trim() ?? "";
	if (!name || !PAGE_COMMANDS.has(name)) return false;
	// `/tree <entryId>` and `/fork <entryId>` are the daemon's (the API's way in).
	if ((name === "fork" || name === "tree") && args) return false;
	switch (name) {
		case "tree":
		case "fork":
		case "resume":
		case "session":
		case "hotkeys":
			ctx.openDialog({ kind: name });
			break;
		case "copy": {
			const last = [...ctx.rows].reverse().find((r) => r.kind === "assistant" && r.text);
			if (last?.kind !== "assistant") throw new Error("No answer to copy yet.");
			await navigator.clipboard.writeText(last.text);
			ctx.toast("Copied the last answer.", "info");
			break;
		}
		case "export": {
			const { name: file, blob } = await api.exportHtml(ctx.sessionId);
			const url = URL.createObjectURL(blob);
			const a = document.createElement("a");
			a.href = url;
			a.download = file;
			a.click();
			setTimeout(() => URL.revokeObjectURL(url), 10_000);
			break;
		}
	}
	return true;
}

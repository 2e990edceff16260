/**
 * `pier sessions`: pi's session files, newest first, with their times in the local time zone (as the person
 * reading them lives) and the archived ones of `pier serve`'s default state directory marked
 * (`<agentDir>/pier-chamber/archived.json`). `--json` keeps pi's fields and ISO times, plus `archived: true`.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { agentDir, sessionDirFor } from "../agent/paths.js";
import type { CliArgs } from "./args.js";

/** The ids `pier serve` archived (an unreadable file archives nothing: the list stays as pi sees it). */
function archivedIds(): Set<string> {
	const stateDir = join(agentDir(), "pier-chamber");
	try {
		const ids = JSON.parse(readFileSync(join(stateDir, "archived.json"), "utf8")) as unknown;
		return new Set(Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : []);
	} catch {
		return new Set();
	}
}

/** `2026-12-03 20:14` in the local time zone. */
export function localTime(date: Date): string {
	const two = (n: number) => String(n).padStart(2, "0");
	return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())} ${two(date.getHours())}:${two(date.getMinutes())}`;
}

export async function listSessions(args: CliArgs): Promise<number> {
	const sessions = args.cwd
		? await SessionManager.list(resolve(args.cwd), sessionDirFor(resolve(args.cwd), agentDir()))
		: await SessionManager.listAll();
	sessions.sort((a, b) => b.modified.getTime() - a.modified.getTime());
	const archived = archivedIds();
	if (args.json) {
		for (const s of sessions) {
			const { allMessagesText: _text, ...info } = s;
			process.stdout.write(`${JSON.stringify(archived.has(s.id) ? { ...info, archived: true } : info)}\n`);
		}
		return 0;
	}
	if (sessions.length === 0) {
		process.stdout.write(`no sessions under ${agentDir()}/sessions\n`);
		return 0;
	}
	for (const s of sessions) {
		const title = (s.name ?? s.firstMessage).replace(/\s+/g, " ").slice(0, 60);
		const mark = archived.has(s.id) ? "  [archived]" : "";
		process.stdout.write(
			`${localTime(s.modified)}  ${String(s.messageCount).padStart(4)} msgs  ${s.cwd || "?"}  ${title}${mark}\n  ${s.path}\n`,
		);
	}
	return 0;
}

/** `pier sessions`: pi's session files, newest first. */
import { resolve } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { agentDir, sessionDirFor } from "../agent/paths.js";
import type { CliArgs } from "./args.js";

export async function listSessions(args: CliArgs): Promise<number> {
	const sessions = args.cwd
		? await SessionManager.list(resolve(args.cwd), sessionDirFor(resolve(args.cwd), agentDir()))
		: await SessionManager.listAll();
	sessions.sort((a, b) => b.modified.getTime() - a.modified.getTime());
	if (args.json) {
		for (const s of sessions) {
			const { allMessagesText: _text, ...info } = s;
			process.stdout.write(`${JSON.stringify(info)}\n`);
		}
		return 0;
	}
	if (sessions.length === 0) {
		process.stdout.write(`no sessions under ${agentDir()}/sessions\n`);
		return 0;
	}
	for (const s of sessions) {
		const title = (s.name ?? s.firstMessage).replace(/\s+/g, " ").slice(0, 60);
		process.stdout.write(
			`${s.modified.toISOString()}  ${String(s.messageCount).padStart(4)} msgs  ${s.cwd || "?"}  ${title}\n  ${s.path}\n`,
		);
	}
	return 0;
}

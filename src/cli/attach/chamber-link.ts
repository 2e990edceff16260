/**
 * The other way round: `/chamber` in pier's own terminal names this session's address in a running chamber and
 * offers to move it there. The terminal holds the session's lease, so the chamber can only show it read-only while
 * the terminal runs; moving it means leaving the terminal (the lease goes with it), after which the chamber opens
 * it on its first action and `pier attach <id>` brings it back to a terminal.
 */
import { join } from "node:path";
import type { ExtensionAPI, InlineExtension } from "@earendil-works/pi-coding-agent";
import { agentDir } from "../../agent/paths.js";
import { runningDaemon } from "../../chamber/auth/pairing-inbox.js";

/** Hidden from pi's startup list, and left out when an extension of the user's registers its own `/chamber`. */
export function chamberLinkExtension(stateDir = join(agentDir(), "pier-chamber")): InlineExtension {
	return {
		name: "pier-chamber-link",
		hidden: true,
		replaceable: true,
		factory: (pi: ExtensionAPI) => {
			pi.registerCommand("chamber", {
				description: "Open this session in the chamber (pier serve): its address, and a move there",
				handler: async (_args, ctx) => {
					const daemon = runningDaemon(stateDir);
					if (!daemon?.urls[0]) {
						ctx.ui.notify(
							`No chamber runs on ${stateDir}: start one with \`pier serve\`, then /chamber again.`,
							"warning",
						);
						return;
					}
					const id = ctx.sessionManager.getSessionId();
					const link = new URL(`/?s=${encodeURIComponent(id)}`, daemon.urls[0]).href;
					const move = await ctx.ui.confirm(
						"Open this session in the chamber?",
						`${link}\nWhile this terminal has it open the chamber shows it read-only. Leave the terminal to move it there? (\`pier attach ${id}\` brings it back here.)`,
					);
					ctx.ui.notify(`In the chamber: ${link}`, "info");
					if (move) {
						process.once("exit", () => {
							process.stdout.write(`\nThis session in the chamber: ${link}\nBack to a terminal: pier attach ${id}\n`);
						});
						ctx.shutdown();
					}
				},
			});
		},
	};
}

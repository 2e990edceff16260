/**
 * The end of MCP stdio servers' process groups. pi-mcp starts each server as the leader of its own group and, on
 * close, ends stdin, then sends the group SIGTERM (and SIGKILL only while the server itself still runs). A member
 * that ignores SIGTERM (a wrapper's child, a daemonised helper) would outlive the session: after pi's close the
 * group gets a short grace to exit, then SIGKILL. Groups still running when pier exits get SIGKILL then (pi's own
 * exit hook sends only SIGTERM). A member that left the group (setsid) is out of reach, as for any process.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { McpProcessGroups } from "../pi-seams/mcp-extension.js";

/** How long a group has, after pi's SIGTERM, to exit on its own. */
const GRACE_MS = 1_000;
const POLL_MS = 50;

/** Groups of servers started and not yet seen to end. */
const running = new Set<number>();
let exitHook = false;

function groupExists(pgid: number): boolean {
	try {
		process.kill(-pgid, 0);
		return true;
	} catch {
		return false;
	}
}

function killGroup(pgid: number): void {
	try {
		process.kill(-pgid, "SIGKILL");
	} catch {
		// no member is left
	}
}

export const mcpProcessGroups: McpProcessGroups = {
	started(pgid) {
		if (!exitHook) {
			exitHook = true;
			process.once("exit", () => {
				for (const group of running) killGroup(group);
			});
		}
		running.add(pgid);
	},
	/** Waits up to the grace for the group to empty, then kills what is left of it. */
	async ended(pgid) {
		try {
			for (let waited = 0; waited < GRACE_MS && groupExists(pgid); waited += POLL_MS) await sleep(POLL_MS);
			if (groupExists(pgid)) killGroup(pgid);
		} finally {
			running.delete(pgid);
		}
	},
};

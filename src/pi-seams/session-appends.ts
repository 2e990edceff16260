/**
 * Every entry a pi session writes through the writers the chamber projects, seen as it is written. The writers are
 * public methods; pier replaces them on one session manager instance (pi's own code calls them through `this`,
 * so its writes pass too).
 */
import type { SessionManager } from "@earendil-works/pi-coding-agent";
import { Findings, loadForCheck, type Seam } from "./seam.js";

export const WATCHED_APPENDS = [
	"appendMessage",
	"appendCustomEntry",
	"appendCustomMessageEntry",
	"appendCompaction",
	"appendContextEdit",
	"appendUsage",
] as const;

export type AppendMethod = (typeof WATCHED_APPENDS)[number];

export interface AppendHooks {
	/** Before pi writes: throws to refuse the entry, or answers the arguments pi writes. */
	before(method: AppendMethod, args: unknown[]): unknown[];
	/** After pi wrote the entry `id`. */
	after(id: string): void;
}

/** pi answers an entry's id, or (appendUsage) the entry itself. */
function idOf(result: unknown): string | undefined {
	if (typeof result === "string") return result;
	const id = (result as { id?: unknown } | null | undefined)?.id;
	return typeof id === "string" ? id : undefined;
}

/** From now on each watched append of `manager` passes `hooks`. */
export function hookSessionAppends(manager: SessionManager, hooks: AppendHooks): void {
	const target = manager as unknown as Record<string, unknown>;
	for (const method of WATCHED_APPENDS) {
		const original = (manager[method] as (...args: unknown[]) => unknown).bind(manager);
		target[method] = (...args: unknown[]) => {
			const result = original(...hooks.before(method, args));
			const id = idOf(result);
			if (id !== undefined) hooks.after(id);
			return result;
		};
	}
}

const id = { name: "session-appends", file: "src/pi-seams/session-appends.ts" };

type PiIndex = typeof import("@earendil-works/pi-coding-agent");

export const seam: Seam = {
	...id,
	members: [
		"SessionManager.appendMessage, appendCustomEntry, appendCustomMessageEntry, appendCompaction, appendContextEdit " +
			"(answer the entry id), appendUsage (answers the entry): replaced on an instance",
		"SessionManager.getEntry(id)",
	],
	async check(roots) {
		const findings = new Findings(id);
		const pi = await loadForCheck<PiIndex>(findings, roots.codingAgent, "dist/index.js");
		const proto = pi?.SessionManager?.prototype;
		for (const method of WATCHED_APPENDS) findings.fn(proto, method, `SessionManager.prototype.${method}`);
		findings.fn(proto, "getEntry", "SessionManager.prototype.getEntry", 1);
		if (typeof pi?.SessionManager?.inMemory === "function") {
			// What pier relies on from each writer: the written entry's id comes back, and getEntry finds it.
			const manager = pi.SessionManager.inMemory();
			const probes: [AppendMethod, () => unknown][] = [
				["appendMessage", () => manager.appendMessage({ role: "user", content: "probe", timestamp: 0 })],
				["appendCustomEntry", () => manager.appendCustomEntry("pier.probe", {})],
				["appendUsage", () => manager.appendUsage("probe", "p", "m", emptyUsage())],
			];
			const written = new Map<AppendMethod, unknown>();
			for (const [method, write] of probes) {
				try {
					written.set(method, write());
				} catch (error) {
					findings.add(`${method} failed on an in-memory session: ${error instanceof Error ? error.message : error}`);
				}
			}
			const first = idOf(written.get("appendMessage"));
			if (first !== undefined) {
				try {
					written.set("appendContextEdit", manager.appendContextEdit(first, null));
				} catch (error) {
					findings.add(
						`appendContextEdit failed on an in-memory session: ${error instanceof Error ? error.message : error}`,
					);
				}
			}
			for (const [method, result] of written) {
				const entryId = idOf(result);
				if (entryId === undefined || !manager.getEntry(entryId))
					findings.add(`${method} no longer answers the id of an entry getEntry finds`);
			}
		}
		findings.done();
	},
};

function emptyUsage() {
	const cost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
	return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost };
}

/**
 * A session's event stream while its runtime does not run: what a page looking at a session follows. Its view
 * comes from the file (session-file.ts), and the file's directory is watched, so rows another process appends
 * (`pier run`, pi's terminal) and the lease it takes or drops reach the page as they happen. The first action
 * starts the runtime, which takes this channel over: the page's stream never drops for it.
 */
import { type FSWatcher, watch } from "node:fs";
import { basename, dirname } from "node:path";
import { leaseHolderOf } from "../agent/session-lease.js";
import { EventChannel, RUN_SEQUENCE_BASE } from "./events/channel.js";
import { viewOfFile } from "./session-file.js";
import type { SessionHolder, SessionSummary, SessionView } from "./wire.js";

/** Writes come in bursts (an answer streams into the file); one look per burst. */
const SETTLE_MS = 100;
/** A change looks at the file's latest rows only: appended rows are at its end. */
const FOLLOW_ROWS = 50;

export function holderOf(file: string): SessionHolder | undefined {
	const lease = leaseHolderOf(file);
	return lease && { holder: lease.holder, pid: lease.pid, host: lease.host, since: lease.since };
}

export class ColdStream {
	readonly channel: EventChannel;
	private watcher: FSWatcher | undefined;
	private timer: NodeJS.Timeout | undefined;
	/** Each row sent, as sent: a row is sent again only when it changed. */
	private readonly sent = new Map<string, string>();
	private summary: SessionSummary | undefined;

	constructor(
		id: string,
		readonly file: string,
		replay?: { maxEvents?: number; maxBytes?: number },
	) {
		this.channel = new EventChannel(id, replay, RUN_SEQUENCE_BASE);
	}

	/** The view a client attaching now starts from, numbered in this channel. */
	snapshot(limit: number | undefined): SessionView {
		const view = viewOfFile(this.file, limit === undefined ? {} : { limit });
		if (!view) throw new Error(`${this.file} is not a pi session file`);
		for (const row of view.rows) this.sent.set(row.id, JSON.stringify(row));
		this.summary = withHolder(view.session, this.file);
		this.follow();
		const { olderRows, ...rest } = view;
		return { ...rest, ...(olderRows > 0 ? { olderRows } : {}), session: this.summary, seq: this.channel.latest };
	}

	/** An action is starting the runtime: the page says so until the runtime's own summary arrives. */
	starting(): void {
		if (this.summary) this.channel.publish("session.info", { session: { ...this.summary, starting: true } });
	}

	/** The start failed (the file is held elsewhere, an extension failed): back to what the file says. */
	startFailed(): void {
		this.look(true);
	}

	private follow(): void {
		if (this.watcher) return;
		const names = new Set([basename(this.file), `${basename(this.file)}.lease`]);
		try {
			this.watcher = watch(dirname(this.file), (_event, name) => {
				if (name && !names.has(name.toString())) return;
				clearTimeout(this.timer);
				this.timer = setTimeout(() => this.look(false), SETTLE_MS);
			});
			this.watcher.on("error", () => this.stop());
			this.watcher.unref();
		} catch {
			// The directory went away (the session was deleted): nothing to follow.
		}
	}

	private look(always: boolean): void {
		let view: ReturnType<typeof viewOfFile>;
		try {
			view = viewOfFile(this.file, { limit: FOLLOW_ROWS });
		} catch {
			return; // moved to the trash or mid-rename: the list hears of that on its own channel
		}
		if (!view) return;
		for (const row of view.rows) {
			const text = JSON.stringify(row);
			if (this.sent.get(row.id) === text) continue;
			this.sent.set(row.id, text);
			this.channel.publish("transcript.row", { row });
		}
		const summary = withHolder(view.session, this.file);
		if (always || JSON.stringify(summary) !== JSON.stringify(this.summary)) {
			this.summary = summary;
			this.channel.publish("session.info", { session: summary });
		}
	}

	stop(): void {
		clearTimeout(this.timer);
		this.watcher?.close();
		this.watcher = undefined;
	}
}

function withHolder(session: SessionSummary, file: string): SessionSummary {
	const heldBy = holderOf(file);
	return heldBy ? { ...session, heldBy } : session;
}

/**
 * One stream of chamber events (a session's, or the daemon's own): it numbers events, encodes each once as
 * an SSE frame, retains the replay window and fans frames out to the connected clients.
 */
import { EVENTS_VERSION, type EventEnvelope, type EventName, type EventPayloads } from "../wire.js";
import { ReplayLog } from "./replay-log.js";

/** Where frames go: one connected client. `write` returning false means the client was dropped. */
export interface EventSink {
	write(frame: string): boolean;
	/** The stream is over (its session closed or moved): the client should reconnect and learn why. */
	end?(): void;
}

/**
 * This process's first sequence number: its start time in milliseconds × 1,000. Each run numbers above every
 * earlier one (as long as no run published more than 1,000 events per millisecond of its life), and stays far
 * below 2^53.
 */
export const RUN_SEQUENCE_BASE = Date.now() * 1000;

export function encodeFrame(envelope: EventEnvelope): string {
	return `id: ${envelope.seq}\nevent: ${envelope.event}\ndata: ${JSON.stringify(envelope)}\n\n`;
}

export class EventChannel {
	private seq: number;
	private readonly log: ReplayLog;
	private readonly sinks = new Set<EventSink>();

	/**
	 * `base` is where numbering starts. The daemon passes RUN_SEQUENCE_BASE so that a cursor kept across a daemon
	 * restart is always older than the new run's window and resyncs, instead of matching unrelated new events.
	 */
	constructor(
		readonly sessionId: string,
		window?: { maxEvents?: number; maxBytes?: number },
		base = 0,
	) {
		this.log = new ReplayLog(window?.maxEvents, window?.maxBytes);
		this.seq = base;
	}

	get latest(): number {
		return this.seq;
	}

	get clientCount(): number {
		return this.sinks.size;
	}

	/** What the replay window holds now (events and encoded bytes): memory that is the window's by design. */
	get retained(): { events: number; bytes: number } {
		return { events: this.log.size, bytes: this.log.retainedBytes };
	}

	publish<E extends EventName>(event: E, payload: EventPayloads[E]): EventEnvelope<E> {
		const envelope: EventEnvelope<E> = {
			version: EVENTS_VERSION,
			event,
			seq: ++this.seq,
			sessionId: this.sessionId,
			payload,
		};
		const frame = encodeFrame(envelope);
		this.log.append(envelope.seq, frame);
		for (const sink of this.sinks) if (!sink.write(frame)) this.sinks.delete(sink);
		return envelope;
	}

	/** A frame that carries the current sequence but is not retained (snapshots, heartbeats). */
	unnumbered<E extends EventName>(event: E, payload: EventPayloads[E]): string {
		return encodeFrame({ version: EVENTS_VERSION, event, seq: this.seq, sessionId: this.sessionId, payload });
	}

	/**
	 * Connects a client. With a cursor inside the window it first gets exactly the missed frames; otherwise
	 * (no cursor, or one older than the window) it gets `snapshot()` as a `session.snapshot`, when there is one.
	 */
	attach(sink: EventSink, since: number | undefined, snapshot?: () => EventPayloads["session.snapshot"]): () => void {
		const missed = since === undefined ? undefined : this.log.after(since, this.seq);
		if (missed) {
			for (const frame of missed) if (!sink.write(frame)) return () => {};
		} else if (snapshot) {
			if (!sink.write(this.unnumbered("session.snapshot", snapshot()))) return () => {};
		}
		this.sinks.add(sink);
		return () => this.sinks.delete(sink);
	}

	detachAll(): void {
		for (const sink of this.sinks) sink.end?.();
		this.sinks.clear();
	}
}

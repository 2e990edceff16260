/**
 * A session page's event stream: events applied once per animation frame, and after a gap the daemon cannot
 * replay (a resync) a fresh view of the session and a new stream from it. The handlers are read when an event
 * comes, so a page that draws again does not reopen its stream.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "./api.js";
import { frameBatch } from "./frame-batch.js";
import type { SessionAction } from "./state.js";
import { EventStream, type StreamStatus } from "./stream.js";
import type { AnyEnvelope } from "./types.js";

export interface SessionStreamHandlers {
	/** Each event as it arrives (before the frame's batch applies it). */
	onEvent?: (env: AnyEnvelope) => void;
	onStatus: (status: StreamStatus) => void;
	onUnauthorized?: () => void;
}

export function useSessionStream(
	sessionId: string,
	initialSeq: number,
	dispatch: (action: SessionAction) => void,
	handlers: SessionStreamHandlers,
	rows: number,
): void {
	const [generation, setGeneration] = useState(0);
	const since = useRef(initialSeq);
	const latest = useRef(handlers);
	latest.current = handlers;
	useEffect(() => {
		const batch = frameBatch((envs: AnyEnvelope[]) => dispatch({ type: "events", envs }));
		const stream: EventStream = new EventStream({
			sessionId,
			since: since.current,
			rows,
			onEvent: (env) => {
				batch.push(env);
				latest.current.onEvent?.(env);
			},
			onStatus: (status) => latest.current.onStatus(status),
			onUnauthorized: () => latest.current.onUnauthorized?.(),
			onResync: () => {
				stream.close();
				batch.flush();
				api
					.getSession(sessionId, rows)
					.then((fresh) => {
						since.current = fresh.seq;
						dispatch({ type: "reset", view: fresh });
					})
					.catch(() => {})
					.finally(() => setGeneration((g) => g + 1));
			},
		});
		stream.start();
		return () => {
			stream.close();
			batch.cancel();
		};
		// `generation` restarts the stream from a fresh view after a resync.
	}, [sessionId, generation, rows, dispatch]);
}

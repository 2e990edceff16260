/**
 * Ending a link ends what its holder has open: each request made with a share token waits on the link's end
 * (ShareLinks.onEnd, fired by a revocation or the link's own expiry timer, never by polling). An event stream then
 * gets a last `share.ended` event and is closed; the page's reconnect meets the link's refusal.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Context } from "hono";
import type { SharePrincipal, ShareLinks } from "./share-links.js";
import { SHARE_ENDED_EVENT, type ShareEndedPayload } from "./share-wire.js";

type NodeBindings = { incoming: IncomingMessage; outgoing: ServerResponse };

export function cutOnShareEnd(shares: ShareLinks, share: SharePrincipal, c: Context): void {
	const res = (c.env as Partial<NodeBindings> | undefined)?.outgoing;
	if (!res) return;
	const off = shares.onEnd(share.id, (reason) => {
		if (res.writableEnded || res.destroyed) return;
		// SseClient writes its headers with writeHead, which getHeader does not see: the request says what it is.
		const streaming = res.headersSent && (c.req.header("accept") ?? "").includes("text/event-stream");
		if (streaming) {
			const payload: ShareEndedPayload = { shareId: share.id, reason };
			const envelope = { version: 1, event: SHARE_ENDED_EVENT, seq: 0, sessionId: share.sessionId, payload };
			res.end(`event: ${SHARE_ENDED_EVENT}\ndata: ${JSON.stringify(envelope)}\n\n`);
		} else {
			// An answer still being worked out is not sent to a holder whose link is gone.
			res.destroy();
		}
	});
	res.once("close", off);
}

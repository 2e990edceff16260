/**
 * What the page shares with the daemon about drawings, as plain values with no imports: the width buckets (the page
 * snaps its own width with the same function, to know when a resize crosses into another bucket), the key a tool
 * call is drawn under, and the request cap. The wire shapes themselves are in ../wire.ts.
 */

/** The column counts the chamber draws at; a reported width snaps down to one of them. */
export const WIDTH_BUCKETS = [40, 60, 80, 100, 120, 160] as const;

/** The bucket for a width in columns: the widest bucket that fits, and never less than the narrowest. */
export function snapWidth(columns: number): number {
	let best: number = WIDTH_BUCKETS[0];
	for (const bucket of WIDTH_BUCKETS) if (bucket <= columns) best = bucket;
	return best;
}

/** A tool call's drawing is asked for under this prefix and its call id (rows go by their entry id). */
export const TOOL_DRAWING_PREFIX = "tool:";

export function toolDrawingKey(toolCallId: string): string {
	return `${TOOL_DRAWING_PREFIX}${toolCallId}`;
}

/** At most this many rows per request for drawings. */
export const MAX_DRAWINGS_PER_REQUEST = 50;

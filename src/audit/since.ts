/** `--since` and `?since=`: an ISO time, or a span back from now (`30m`, `1h`, `2d`, `1w`). */

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

export const SINCE_FORMS = "an ISO time (2026-12-04T18:00:00Z, 2026-12-04) or a span back from now (30m, 1h, 2d, 1w)";

/** The time meant, or a message saying what is wrong with `text` and what is accepted. */
export function parseSince(text: string, now: number = Date.now()): Date | { problem: string } {
	const span = /^(\d{1,6})([smhdw])$/.exec(text.trim());
	if (span) return new Date(now - Number(span[1]) * UNIT_MS[span[2] as keyof typeof UNIT_MS]);
	// Only ISO-shaped dates: Date.parse alone takes "1" or "June" and means something no one typed.
	if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())) {
		const time = Date.parse(text.trim());
		if (!Number.isNaN(time)) return new Date(time);
	}
	return { problem: `${JSON.stringify(text)} is not a time: want ${SINCE_FORMS}` };
}

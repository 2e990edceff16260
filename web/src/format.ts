/** Small text helpers shared by the transcript and the session list. */

const MAX_JSON_CHARS = 50_000;

/** Pretty JSON for display, never throwing and never unbounded. */
export function showJson(value: unknown): string {
	let text: string;
	try {
		text = typeof value === "string" ? value : (JSON.stringify(value, null, 2) ?? String(value));
	} catch {
		text = String(value);
	}
	return text.length > MAX_JSON_CHARS
		? `${text.slice(0, MAX_JSON_CHARS)}\n… (${text.length - MAX_JSON_CHARS} more characters)`
		: text;
}

/** One line of a tool call's arguments for its collapsed summary. */
export function argsPreview(args: unknown, max = 80): string {
	let text: string;
	if (args && typeof args === "object" && !Array.isArray(args)) {
		const values = Object.values(args as Record<string, unknown>);
		const first = values.find((v) => typeof v === "string") ?? values[0];
		text = typeof first === "string" ? first : (showJson(first ?? "") as string);
	} else {
		text = showJson(args ?? "");
	}
	text = text.replace(/\s+/g, " ").trim();
	return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function relativeTime(iso: string, now = Date.now()): string {
	const t = Date.parse(iso);
	if (!Number.isFinite(t)) return "";
	const s = Math.round((now - t) / 1000);
	if (s < 60) return "just now";
	if (s < 3600) return `${Math.floor(s / 60)} min ago`;
	if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
	if (s < 7 * 86_400) return `${Math.floor(s / 86_400)} d ago`;
	return new Date(t).toLocaleDateString();
}

export function basename(path: string): string {
	const parts = path.split(/[\\/]/).filter(Boolean);
	return parts[parts.length - 1] ?? path;
}

/** pi's footer's token counts: 999, 1.2k, 35k, 1.5M. */
export function formatTokens(count: number): string {
	if (count < 1000) return count.toString();
	if (count < 10_000) return `${(count / 1000).toFixed(1)}k`;
	if (count < 1_000_000) return `${Math.round(count / 1000)}k`;
	if (count < 10_000_000) return `${(count / 1_000_000).toFixed(1)}M`;
	return `${Math.round(count / 1_000_000)}M`;
}

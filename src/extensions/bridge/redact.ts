/**
 * Secret-looking text in what an extension hands the user (a provider's stream error, a rendered row) becomes
 * `[REDACTED]`. rpi's pattern set (`crates/pi-coding/src/redact.rs`), so an rpi extension's text reads the same
 * in pier. Best effort: it catches credentials an extension echoes by accident, not a hostile one's encodings.
 */
const MARKER = "[REDACTED]";

/**
 * Applied in order: the PEM block first so its body goes whole; whole-match shapes before the ones that keep
 * the name (`api_key=[REDACTED]`), so a marker is never matched again.
 */
const PATTERNS: readonly (readonly [RegExp, string])[] = [
	[/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----/g, MARKER],
	[/\bsk-[A-Za-z0-9_-]{16,}/g, MARKER],
	[/\bgh[pousr]_[A-Za-z0-9]{20,}/g, MARKER],
	[/\bgithub_pat_[A-Za-z0-9_]{20,}/g, MARKER],
	[/\bAKIA[0-9A-Z]{16}/g, MARKER],
	[/Authorization:\s*Bearer\s+[A-Za-z0-9_.-]+/g, MARKER],
	[/\bbearer\s+[A-Za-z0-9._~+/=-]{16,}/gi, MARKER],
	[/(token|access_token)=[A-Za-z0-9_.-]+/gi, MARKER],
	[/\b(AWS_(?:ACCESS_KEY_ID|SECRET_ACCESS_KEY|SESSION_TOKEN))\s*[:=]\s*(?:"[^"]*"|'[^']*'|\S+)/gi, `$1=${MARKER}`],
	[/(api[_-]?key|token|secret|password|authorization)\s*[:=]\s*(?:bearer\s+)?\S+/gi, `$1=${MARKER}`],
	[/bearer\s+[a-z0-9._-]+/gi, `Bearer ${MARKER}`],
	[/\b(?:sk|pk|rk|ghp|gho|ghu|ghs|ghr|xox[baprs])[-_][A-Za-z0-9_-]{8,}\b/gi, MARKER],
];

export function redactSecrets(text: string): string {
	let out = text;
	for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
	return out;
}

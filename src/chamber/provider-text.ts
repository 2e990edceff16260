/**
 * What the providers page may write into pi's files beyond the schema's shape: text that survives the trip to
 * disk and into an HTTP request unchanged. A lone surrogate (`"\ud800"` in JSON) is silently replaced on the way
 * to UTF-8, and so are bytes that were not UTF-8 (they arrive as U+FFFD): the key saved would not be the key
 * typed. A control character in a key or URL ends up in a request header or line.
 */

// C0, DEL and C1 controls; U+FFFD is what a body's invalid UTF-8 bytes decoded to.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\ufffd]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `value` cannot be stored, or undefined. */
export function textProblem(value: string): string | undefined {
	if (LONE_SURROGATE.test(value)) return "is not valid Unicode (it holds a lone surrogate)";
	const bad = UNSAFE.exec(value)?.[0];
	if (bad === "\ufffd") return "holds U+FFFD, which is what bytes that were not UTF-8 decode to";
	if (bad !== undefined)
		return `holds a control character (U+${bad.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")})`;
	return undefined;
}

/** Why `value` is not a provider's base URL (one http(s) URL, no spaces or controls), or undefined. */
export function baseUrlProblem(value: string): string | undefined {
	const text = textProblem(value);
	if (text) return text;
	if (/\s/.test(value)) return "holds whitespace";
	try {
		const url = new URL(value);
		if (url.protocol !== "http:" && url.protocol !== "https:") return "is not an http(s) URL";
	} catch {
		return "is not a URL";
	}
	return undefined;
}

/** The first field of a provider body that cannot be stored, as `field: why`, or undefined. */
export function providerBodyProblem(body: {
	baseUrl?: string;
	apiKey?: string;
	models?: ReadonlyArray<{ id: string; name?: string }>;
}): string | undefined {
	const problems: Array<[string, string | undefined]> = [
		["baseUrl", body.baseUrl === undefined ? undefined : baseUrlProblem(body.baseUrl)],
		["apiKey", body.apiKey === undefined ? undefined : textProblem(body.apiKey)],
		...(body.models ?? []).flatMap(
			(model, i): Array<[string, string | undefined]> => [
				[`models/${i}/id`, textProblem(model.id)],
				[`models/${i}/name`, model.name === undefined ? undefined : textProblem(model.name)],
			],
		),
	];
	const found = problems.find(([, why]) => why !== undefined);
	return found ? `${found[0]}: ${found[1]}` : undefined;
}

/**
 * An MCP App's content security policy: what its resource declares (`_meta.ui.csp`), intersected with what pier's
 * app frame allows. pier's app-frame policy (APP_FRAME_CSP in server.ts, sent as a header with the frame's shell
 * and still in force after the shell becomes the app's document) allows inline scripts and styles and `data:`
 * images, and nothing from the network: no connect, script, style, image, font or media origin, no nested frame,
 * no `<base>`, no form target. A declared domain is kept only where pier allows that origin for that use, so a
 * declaration can narrow the policy and never widen it; today every declared domain is refused.
 */

/** The four lists of `McpUiResourceCsp`. */
export const CSP_FIELDS = ["connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"] as const;
export type CspField = (typeof CSP_FIELDS)[number];
export type CspDomains = Record<CspField, string[]>;

/** The origins pier's app frame allows for each use: none. */
export const PIER_FRAME_ORIGINS: Readonly<Record<CspField, readonly string[]>> = {
	connectDomains: [],
	resourceDomains: [],
	frameDomains: [],
	baseUriDomains: [],
};

/** How many domains a list may declare, and how long one may be, before the resource is refused. */
const MAX_DOMAINS = 64;
const MAX_DOMAIN_CHARS = 512;

export interface AppPolicy {
	/** The policy written into the app's document (a `<meta>`), under the frame's own header policy. */
	policy: string;
	/** The declared domains pier allows (what `hostCapabilities.sandbox.csp` reports to the app). */
	granted: CspDomains;
	/** The declared domains pier refused, to show the user. */
	refused: CspDomains;
}

function empty(): CspDomains {
	return { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };
}

/**
 * The declared `_meta.ui.csp`, read strictly: an object of string lists, or nothing. A malformed declaration is an
 * error naming the field, not something to guess at.
 */
export function declaredCsp(raw: unknown): CspDomains | { error: string } {
	const declared = empty();
	if (raw === undefined || raw === null) return declared;
	if (typeof raw !== "object" || Array.isArray(raw)) return { error: "_meta.ui.csp must be an object" };
	for (const field of CSP_FIELDS) {
		const list = (raw as Record<string, unknown>)[field];
		if (list === undefined) continue;
		if (!Array.isArray(list) || list.length > MAX_DOMAINS) {
			return { error: `_meta.ui.csp.${field} must be a list of at most ${MAX_DOMAINS} origins` };
		}
		for (const domain of list) {
			if (typeof domain !== "string" || domain.length === 0 || domain.length > MAX_DOMAIN_CHARS) {
				return { error: `_meta.ui.csp.${field} holds something that is not an origin` };
			}
			declared[field].push(domain);
		}
	}
	return declared;
}

/** A source expression with nothing in it that could end the directive or the policy. */
function safeSource(domain: string): boolean {
	return /^[A-Za-z0-9*.:/_-]+$/.test(domain);
}

/** The app's policy: the declared domains that pier also allows, in a policy no looser than pier's own. */
export function appPolicy(declared: CspDomains): AppPolicy {
	const granted = empty();
	const refused = empty();
	for (const field of CSP_FIELDS) {
		for (const domain of declared[field]) {
			const allowed = PIER_FRAME_ORIGINS[field].includes(domain) && safeSource(domain);
			(allowed ? granted : refused)[field].push(domain);
		}
	}
	const list = (field: CspField, base: string) => [base, ...granted[field]].filter(Boolean).join(" ") || "'none'";
	const resource = (base: string) => list("resourceDomains", base);
	const policy = [
		"default-src 'none'",
		`script-src ${resource("'unsafe-inline'")}`,
		`style-src ${resource("'unsafe-inline'")}`,
		`img-src ${resource("data:")}`,
		`font-src ${resource("")}`,
		`media-src ${resource("")}`,
		`connect-src ${list("connectDomains", "")}`,
		`frame-src ${list("frameDomains", "")}`,
		`base-uri ${list("baseUriDomains", "")}`,
		"object-src 'none'",
		"form-action 'none'",
	].join("; ");
	return { policy, granted, refused };
}

/**
 * An MCP App's HTML as the app frame's shell writes it: the app's own document with pier's policy for it
 * (csp.ts) as the first thing in its head, and no referrer. The frame's header policy stays in force under it,
 * so this one can only narrow what the app may do.
 */

/** A policy is made of source expressions csp.ts vetted; a quote here would end the attribute. */
function attribute(value: string): string {
	return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

export function appDocument(html: string, policy: string): string {
	const head = `<meta http-equiv="Content-Security-Policy" content="${attribute(policy)}"><meta name="referrer" content="no-referrer">`;
	// After the doctype (standards mode stays), before anything of the app's: a `<meta>` outside `<head>` is
	// moved into the implied head by the parser, and a policy applies from where it is parsed on.
	const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
	const rest = doctype ? html.slice(doctype[0].length) : html;
	return `<!doctype html>${head}${rest}`;
}

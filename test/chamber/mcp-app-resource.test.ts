/**
 * An MCP App's resource as the daemon checks it before the page sees it (src/chamber/mcp-apps/): the type, the
 * size cap, the URI, a strictly read `_meta.ui`, and a policy that a declaration can only narrow.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { appPolicy, declaredCsp } from "../../src/chamber/mcp-apps/csp.js";
import { appDocument } from "../../src/chamber/mcp-apps/document.js";
import { appResource, isAppMime, MAX_APP_HTML_BYTES } from "../../src/chamber/mcp-apps/resource.js";

const URI = "ui://t/app.html";
const read = (content: Record<string, unknown>) => ({
	contents: [{ uri: URI, mimeType: "text/html;profile=mcp-app", text: "<p>hi</p>", ...content }],
});

describe("MCP App resources", () => {
	test("only text/html;profile=mcp-app is an app", () => {
		assert.ok(isAppMime("text/html;profile=mcp-app"));
		assert.ok(isAppMime("Text/HTML ; profile = mcp-app"));
		for (const other of ["text/html", "text/plain;profile=mcp-app", "text/html;profile=other", undefined, 3])
			assert.equal(isAppMime(other), false, String(other));
		const refused = appResource(URI, read({ mimeType: "text/html" }));
		assert.deepEqual(refused, {
			error: `${URI} has type "text/html"; an MCP App must be text/html;profile=mcp-app`,
		});
	});

	test("the content must be for the URI asked, and under the size cap, as text or base64", () => {
		assert.match(
			(appResource(URI, { contents: [{ uri: "ui://t/other", text: "x" }] }) as { error: string }).error,
			/no content for that URI/,
		);
		const big = "x".repeat(MAX_APP_HTML_BYTES + 1);
		assert.match((appResource(URI, read({ text: big })) as { error: string }).error, /over 524288 bytes/);
		const blob = appResource(URI, read({ text: undefined, blob: Buffer.from("<b>b</b>").toString("base64") }));
		assert.equal((blob as { html: string }).html, "<b>b</b>");
		assert.match((appResource(URI, read({ text: undefined })) as { error: string }).error, /neither text nor blob/);
	});

	test("a malformed _meta.ui.csp is an error naming the field", () => {
		const bad = appResource(URI, read({ _meta: { ui: { csp: { connectDomains: "https://a.example" } } } }));
		assert.deepEqual(bad, { error: `${URI}: _meta.ui.csp.connectDomains must be a list of at most 64 origins` });
		assert.ok("error" in declaredCsp([]));
	});

	test("declared domains never widen pier's policy: each is refused and the policy stays closed", () => {
		const declared = declaredCsp({
			connectDomains: ["https://api.example.com", "*"],
			resourceDomains: ["https://cdn.example.com"],
			frameDomains: ["https://frames.example.com"],
			baseUriDomains: ["https://base.example.com"],
		});
		assert.ok(!("error" in declared));
		const policy = appPolicy(declared);
		assert.deepEqual(policy.granted, { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] });
		assert.deepEqual(policy.refused.connectDomains, ["https://api.example.com", "*"]);
		for (const directive of ["connect-src 'none'", "frame-src 'none'", "base-uri 'none'", "object-src 'none'"])
			assert.ok(policy.policy.includes(directive), directive);
		assert.ok(!policy.policy.includes("example.com"));
		assert.match(policy.policy, /script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:/);
	});

	test("the policy leads the app's document, after its doctype", () => {
		const doc = appDocument('<!DOCTYPE html><html><head><meta http-equiv="x"></head></html>', "default-src 'none'");
		assert.ok(
			doc.startsWith(
				`<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'none'"><meta name="referrer"`,
			),
		);
		assert.ok(doc.endsWith('<html><head><meta http-equiv="x"></head></html>'));
		assert.ok(
			appDocument("<p>x</p>", "a").includes('content="a"><meta name="referrer" content="no-referrer"><p>x</p>'),
		);
	});
});

/**
 * The accessibility pass: axe-core (from npm) run inside the page under test. It is evaluated through the
 * DevTools protocol, which the page's CSP (no inline script) does not govern; app frames are left out (their
 * content is the extension's, not the chamber's).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeFinding {
	id: string;
	impact: string;
	help: string;
	targets: string[];
}

/** The serious and critical violations on the page as it is now (an empty list passes). */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
	if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(AXE_SOURCE);
	return (await page.evaluate(`(async () => {
		const result = await window.axe.run(document, { iframes: false, resultTypes: ["violations"] });
		return result.violations
			.filter((v) => v.impact === "serious" || v.impact === "critical")
			.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
	})()`)) as AxeFinding[];
}

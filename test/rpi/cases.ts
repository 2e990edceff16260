/**
 * One rpi integration test, ported: what it loads and what it asserts. The same case runs under `npm test`
 * against pier's own equivalent programs and under `npm run rpi-fixtures` against rpi's files unchanged, so the
 * assertions exist once.
 */
import { test } from "node:test";
import { ownSource, type RpiSource } from "./source.js";

export interface CheckResult {
	label: string;
	ok: boolean;
	message?: string;
}

/** Soft assertions: every check of a case runs and is reported, so one failure does not hide the next. */
export class Checks {
	readonly results: CheckResult[] = [];

	async that(label: string, check: () => unknown): Promise<boolean> {
		try {
			await check();
			this.results.push({ label, ok: true });
			return true;
		} catch (error) {
			const message = error instanceof Error ? error.message : String(error);
			this.results.push({ label, ok: false, message: message.split("\n").slice(0, 6).join("\n") });
			return false;
		}
	}

	get failed(): CheckResult[] {
		return this.results.filter((r) => !r.ok);
	}
}

export interface RpiCase {
	/** rpi's number for the test (its order in tests/extensions.rs at 72cdc74), or the file of another rpi suite. */
	n: number | string;
	/** rpi's test function name. */
	name: string;
	/** The rpi fixture files it loads; `inline` for programs written in the rpi test itself. */
	uses: string[];
	/** Where pier decided differently (REFERENCES.md) and the case asserts pier's documented behaviour instead. */
	decision?: string;
	run(source: RpiSource, checks: Checks): Promise<void>;
}

export const caseTitle = (c: RpiCase) => `${typeof c.n === "number" ? `#${c.n}` : c.n} ${c.name}`;

/** Runs a case; a throw outside any check counts as one failed check. */
export async function runCase(c: RpiCase, source: RpiSource): Promise<Checks> {
	const checks = new Checks();
	try {
		await c.run(source, checks);
	} catch (error) {
		checks.results.push({ label: "setup", ok: false, message: error instanceof Error ? error.message : String(error) });
	}
	return checks;
}

/** Registers each case as a node:test test over pier's own equivalent programs. */
export function portCases(cases: readonly RpiCase[]): void {
	for (const c of cases) {
		test(caseTitle(c) + (c.decision ? ` (pier: ${c.decision})` : ""), async () => {
			const checks = await runCase(c, ownSource());
			const failed = checks.failed;
			if (failed.length > 0) {
				throw new Error(
					`${failed.length} of ${checks.results.length} checks failed:\n` +
						failed.map((f) => `- ${f.label}: ${f.message}`).join("\n"),
				);
			}
		});
	}
}

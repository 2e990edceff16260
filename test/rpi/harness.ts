/**
 * `npm run rpi-fixtures -- <rpi checkout or bare mirror>`: runs rpi's own QuickJS fixtures, its shipped example
 * and the extension programs its tests/extensions.rs writes inline, unchanged, in pier's QuickJS runtime, holding
 * each to what rpi's tests assert (the cases of test/rpi/cases-*.ts), and prints a pass/fail table. Not part of
 * `npm test`: rpi's files are not in this repository.
 */
import { ACTION_CASES } from "./cases-actions.js";
import { EVENT_CASES } from "./cases-events.js";
import { OVERLAY_CASES } from "./cases-overlays.js";
import { PROVIDER_STREAM_CASES } from "./cases-provider-streams.js";
import { PROVIDER_CASES } from "./cases-providers.js";
import { REGISTRATION_CASES } from "./cases-registration.js";
import { UI_CASES } from "./cases-ui.js";
import { caseTitle, type RpiCase, runCase } from "./cases.js";
import { rpiFixtureNames, rpiSource } from "./source.js";

const CASES: RpiCase[] = [
	...REGISTRATION_CASES,
	...ACTION_CASES,
	...EVENT_CASES,
	...UI_CASES,
	...PROVIDER_CASES,
	...PROVIDER_STREAM_CASES,
	...OVERLAY_CASES,
].filter((c) => c.uses.length > 0);

function table(rows: string[][]): string {
	const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
	const line = (r: string[]) => `| ${r.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`;
	return [line(rows[0]!), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
}

async function main(path: string | undefined): Promise<number> {
	if (!path) {
		console.error("usage: npm run rpi-fixtures -- <path to an rpi checkout or a bare git mirror of rpi>");
		return 2;
	}
	const source = rpiSource(path);
	const rows = [["rpi test", "programs", "checks", "result"]];
	const failures: string[] = [];
	const byFixture = new Map<string, { pass: number; fail: number }>();
	let passed = 0;
	let total = 0;
	for (const c of CASES) {
		const checks = await runCase(c, source);
		const ok = checks.results.filter((r) => r.ok).length;
		passed += ok;
		total += checks.results.length;
		const fine = checks.failed.length === 0;
		rows.push([caseTitle(c), c.uses.join(", "), `${ok}/${checks.results.length}`, fine ? "pass" : "FAIL"]);
		for (const f of checks.failed)
			failures.push(`${caseTitle(c)} — ${f.label}:\n    ${f.message?.replace(/\n/g, "\n    ")}`);
		for (const name of c.uses) {
			const tally = byFixture.get(name) ?? { pass: 0, fail: 0 };
			if (fine) tally.pass++;
			else tally.fail++;
			byFixture.set(name, tally);
		}
	}
	console.log(`rpi fixtures under pier's QuickJS runtime — programs from ${source.label}\n`);
	console.log(table(rows));
	console.log(`\n${passed} of ${total} checks pass.\n`);
	const fixtureRows = [["fixture", "rpi tests passing"]];
	for (const name of rpiFixtureNames(path)) {
		const tally = byFixture.get(name);
		fixtureRows.push([name, tally ? `${tally.pass}/${tally.pass + tally.fail}` : "no check"]);
	}
	const inline = byFixture.get("inline");
	if (inline)
		fixtureRows.push(["(inline programs of tests/extensions.rs)", `${inline.pass}/${inline.pass + inline.fail}`]);
	console.log(table(fixtureRows));
	if (failures.length > 0) console.log(`\nFailing checks:\n\n${failures.join("\n")}`);
	return failures.length > 0 ? 1 : 0;
}

main(process.argv[2]).then(
	(code) => process.exit(code),
	(error: unknown) => {
		console.error(error instanceof Error ? error.message : error);
		process.exit(2);
	},
);

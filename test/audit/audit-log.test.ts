import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync, appendFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { AUDIT_KEEP, AUDIT_ROTATE_BYTES, readAudit, recordAudit } from "../../src/audit/audit-log.js";

const fresh = () => join(mkdtempSync(join(tmpdir(), "pier-audit-")), "pier-audit.jsonl");

describe("audit trail", () => {
	test("decisions are appended in order, one JSON line each, and read back with filters", () => {
		const file = fresh();
		recordAudit({ kind: "permission", decision: "deny", subject: "rm -rf x", session: "s1", rule: "bash(rm *)" }, file);
		recordAudit({ kind: "package.install", decision: "installed", subject: "npm:pi-foo" }, file);
		recordAudit(
			{ kind: "permission", decision: "allow", subject: "ls", session: "s2", time: "2020-01-01T00:00:00.000Z" },
			file,
		);
		const lines = readFileSync(file, "utf8")
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l));
		assert.deepEqual(
			lines.map((l) => l.subject),
			["rm -rf x", "npm:pi-foo", "ls"],
		);
		assert.equal(readAudit({ session: "s1" }, file).length, 1);
		assert.deepEqual(
			readAudit({ since: new Date("2021-01-01") }, file).map((e) => e.subject),
			["rm -rf x", "npm:pi-foo"],
		);
		assert.deepEqual(
			readAudit({ kind: "package.install" }, file).map((e) => e.subject),
			["npm:pi-foo"],
		);
	});

	test("a torn line is skipped and the rest stays readable", () => {
		const file = fresh();
		recordAudit({ kind: "trust", decision: "trusted", subject: "/p" }, file);
		appendFileSync(file, '{"time":"2026-');
		appendFileSync(file, "\n");
		recordAudit({ kind: "trust", decision: "refused", subject: "/q" }, file);
		assert.deepEqual(
			readAudit({}, file).map((e) => e.subject),
			["/p", "/q"],
		);
	});

	test("just past the size bound the file rotates, older files shift, and reading spans them oldest first", () => {
		const file = fresh();
		const big = "x".repeat(AUDIT_ROTATE_BYTES - 120);
		writeFileSync(
			file,
			`${JSON.stringify({ time: "2026-01-01T00:00:00.000Z", kind: "trust", decision: "a", subject: big })}\n`,
		);
		recordAudit({ kind: "trust", decision: "b", subject: "second" }, file);
		assert.equal(readFileSync(`${file}.1`, "utf8").includes(big), true);
		assert.deepEqual(
			readAudit({}, file).map((e) => e.decision),
			["a", "b"],
		);
		for (let n = 0; n <= AUDIT_KEEP + 1; n++) {
			appendFileSync(
				file,
				`${JSON.stringify({ time: new Date().toISOString(), kind: "trust", decision: `f${n}`, subject: big })}\n`,
			);
			recordAudit({ kind: "trust", decision: `r${n}`, subject: "r" }, file);
		}
		const kept = readAudit({}, file).map((e) => e.decision);
		// The oldest files went; what is left is in order and ends with the newest decision.
		assert.equal(kept.includes("a"), false);
		assert.equal(kept.at(-1), `r${AUDIT_KEEP + 1}`);
		const rs = kept.filter((d) => d.startsWith("r")).map((d) => Number(d.slice(1)));
		assert.deepEqual(
			rs,
			rs.map((_, i) => (rs[0] ?? 0) + i),
		);
		assert.ok(rs.length < AUDIT_KEEP + 2, "rotated files beyond the bound are gone");
	});
});

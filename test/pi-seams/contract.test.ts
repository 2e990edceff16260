/**
 * The pi seams contract: every member of pi that pier relies on (src/pi-seams/) exists in the installed pi and
 * still has the shape pier uses. A failure names the seam and the file to change.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { installedPiRoots } from "../../src/pi-seams/seam.js";
import { seamFiles, seamOf } from "./all-seams.js";

const ARCHITECTURE = fileURLToPath(new URL("../../../docs/architecture.md", import.meta.url));

const files = seamFiles();

test("src/pi-seams has seams, each with its own name", async () => {
	assert.ok(files.length >= 10, `found ${files.join(", ")}`);
	const names = await Promise.all(files.map(async (file) => (await seamOf(file)).name));
	assert.equal(new Set(names).size, names.length, `seam names: ${names.join(", ")}`);
});

for (const file of files) {
	test(`${file} holds on the installed pi`, async () => {
		const seam = await seamOf(file);
		assert.ok(seam.members.length > 0, `${file} lists the pi members it relies on`);
		await seam.check(installedPiRoots());
	});
}

test("docs/architecture.md's pi seams table has a row for every seam", async () => {
	const doc = readFileSync(ARCHITECTURE, "utf8");
	const section = doc.slice(doc.indexOf("## pi seams"));
	assert.ok(doc.includes("## pi seams"), 'docs/architecture.md has a section "pi seams"');
	const end = section.indexOf("\n## ", 1);
	const table = end === -1 ? section : section.slice(0, end);
	for (const file of files) {
		const seam = await seamOf(file);
		assert.ok(table.includes(`\`${file.replace(/^src\/pi-seams\//, "")}\``), `the table names ${file}`);
		assert.ok(table.includes(seam.name), `the table names the seam ${seam.name}`);
	}
});

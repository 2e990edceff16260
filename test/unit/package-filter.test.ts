/** The one package filter matcher: pi's semantics, extended to extension names and manifest ids. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type FilterCandidate, filterOf, isSelected } from "../../src/extensions/packages/filter.js";

const root = "/pkg";
const manifest = (dir: string, id: string): FilterCandidate => ({
	rel: `extensions/${dir}`,
	absolute: `${root}/extensions/${dir}`,
	basename: dir,
	names: [dir, id],
});
const ts = (file: string): FilterCandidate => ({
	rel: `extensions/${file}`,
	absolute: `${root}/extensions/${file}`,
	basename: file,
	names: [file.replace(/\.ts$/, "")],
});

const weather = manifest("weather-dir", "pi-weather");
const legacy = manifest("node-legacy", "node-legacy");
const nodeNew = manifest("node-new", "node-new");
const alpha = ts("alpha.ts");
const pick = (patterns: string[] | undefined) =>
	[weather, legacy, nodeNew, alpha].filter((c) => isSelected(c, patterns)).map((c) => c.basename);

describe("package filters", () => {
	test("omitted selects everything, [] nothing", () => {
		assert.deepEqual(pick(undefined), ["weather-dir", "node-legacy", "node-new", "alpha.ts"]);
		assert.deepEqual(pick([]), []);
	});
	test("by manifest id, directory name, TS name, rel path and glob", () => {
		assert.deepEqual(pick(["pi-weather"]), ["weather-dir"]);
		assert.deepEqual(pick(["node-new"]), ["node-new"]);
		assert.deepEqual(pick(["alpha"]), ["alpha.ts"]);
		assert.deepEqual(pick(["extensions/alpha.ts"]), ["alpha.ts"]);
		assert.deepEqual(pick(["node-*"]), ["node-legacy", "node-new"]);
		assert.deepEqual(pick(["extensions/**"]), ["weather-dir", "node-legacy", "node-new", "alpha.ts"]);
	});
	test("! excludes, + adds back an exact path or name, - removes even what + added", () => {
		assert.deepEqual(pick(["!node-legacy"]), ["weather-dir", "node-new", "alpha.ts"]);
		assert.deepEqual(pick(["node-*", "!node-*", "+node-legacy"]), ["node-legacy"]);
		assert.deepEqual(pick(["!**", "+extensions/alpha.ts"]), ["alpha.ts"]);
		assert.deepEqual(pick(["+pi-weather", "-pi-weather"]), ["node-legacy", "node-new", "alpha.ts"]);
		// + and - are exact: a glob after them matches nothing.
		assert.deepEqual(pick(["!**", "+node-*"]), []);
	});
	test("a malformed filter names its field", () => {
		assert.throws(
			() => filterOf({ source: "x", extensions: "pi-weather" }, "extensions"),
			/"extensions" must be an array/,
		);
		assert.equal(filterOf("x", "extensions"), undefined);
	});
});

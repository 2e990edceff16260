/**
 * One package holding a TypeScript, a process and QuickJS extensions, with a filter selecting some by name,
 * some by id, some by glob and one excluded with `!`; each kind runs in its own runtime (never a manifest
 * directory in pi's loader), and `pier list --json` says which are enabled and which filtered.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
	activeTools,
	type Files,
	makeRepo,
	processExtension,
	quickjsExtension,
	sandbox,
	tsExtension,
	writeSettings,
} from "./helpers.js";

/** A QuickJS manifest whose `index.js` would also be a pi extension leaving `marker` if pi's loader ran it. */
function doubleFaced(dir: string, marker: string): Files {
	return {
		[`extensions/${dir}/pi-extension.json`]: JSON.stringify({
			schemaVersion: 1,
			id: dir,
			runtime: "quickjs",
			entry: "index.js",
			capabilities: ["tools"],
		}),
		[`extensions/${dir}/index.js`]: `export default function (pi) {
	if (typeof process !== "undefined") import("node:fs").then((fs) => fs.writeFileSync(${JSON.stringify(marker)}, "node"));
	pi.registerTool({ name: "omega", label: "o", description: "o", parameters: { type: "object" },
		execute: async () => ({ content: [{ type: "text", text: "process is " + typeof process }] }) });
}
`,
	};
}

describe("a package with an extension of each kind, filtered", () => {
	test("name, id, glob and ! select exactly the filtered set, each in its own runtime", async () => {
		using box = sandbox();
		const marker = join(box.root, "NODE-MARKER");
		const repo = makeRepo(box, "kinds");
		repo.commit(
			{
				...tsExtension("alpha", "alpha_ts", "alpha from ts"),
				...tsExtension("zeta", "zeta_ts", "zeta from ts"),
				...quickjsExtension("beta-dir", "beta-qjs", "beta_qjs", "beta from quickjs"),
				...processExtension("gamma", "gamma-proc", "gamma_proc", "gamma from a process"),
				...quickjsExtension("delta-a", "delta-a", "delta_a", "delta a"),
				...quickjsExtension("delta-b", "delta-b", "delta_b", "delta b"),
				...quickjsExtension(".hidden", "hidden", "hidden_tool", "hidden"),
				...quickjsExtension("node_modules/dep", "dep", "dep_tool", "dep"),
				// A symlinked directory could point anywhere on the machine: skipped, as rpi does.
				...quickjsExtension("../outside/linked", "linked", "linked_tool", "linked"),
				"outside/linked/index.js": doubleFaced("x", marker)["extensions/x/index.js"]!,
				"extensions/link": { symlink: "../outside/linked" },
				...doubleFaced("omega", marker),
			},
			"v1",
		);
		const filter = ["alpha", "beta-qjs", "gamma", "delta-*", "!delta-b", "omega", "link", "linked"];
		writeSettings(box.agent, { packages: [{ source: `${repo.url}@v1`, extensions: filter }] });

		const run = await activeTools(box);
		assert.equal(run.code, 0, run.stderr);
		for (const tool of ["alpha_ts", "beta_qjs", "gamma_proc", "delta_a", "omega"])
			assert.ok(run.tools.includes(tool), `${tool} missing from ${run.tools}\n${run.stderr}`);
		for (const tool of ["zeta_ts", "delta_b", "hidden_tool", "dep_tool", "linked_tool"])
			assert.ok(!run.tools.includes(tool), `${tool} should not load`);

		const proc = await box.pier(["run", "gamma_proc {}"]);
		assert.match(proc.stdout, /gamma from a process pkg=git:file\/.*\/kinds/, proc.stderr);
		const qjs = await box.pier(["run", "omega {}"]);
		assert.match(qjs.stdout, /process is undefined/);
		assert.equal(existsSync(marker), false, "pi's loader ran a manifest directory's index.js in Node");

		const listed = await box.pier(["list", "--json"]);
		assert.equal(listed.code, 0, listed.stderr);
		const model = JSON.parse(listed.stdout) as {
			extensions: Array<{ id: string; kind: string; state: string; origin: string; package?: { pinned?: string } }>;
		};
		const states = Object.fromEntries(model.extensions.map((e) => [e.id, `${e.kind}:${e.state}`]));
		assert.deepEqual(states, {
			alpha: "typescript:enabled",
			zeta: "typescript:filtered",
			"beta-qjs": "quickjs:enabled",
			"gamma-proc": "process:enabled",
			"delta-a": "quickjs:enabled",
			"delta-b": "quickjs:filtered",
			omega: "quickjs:enabled",
		});
		assert.ok(model.extensions.every((e) => e.origin === "package" && e.package?.pinned === "v1"));
	});

	test("pi's own package.json#pi extensions list keeps working next to manifest directories", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "pi-style");
		repo.commit(
			{
				"package.json": JSON.stringify({ name: "pi-style", pi: { extensions: ["./src/main.ts"] } }),
				"src/main.ts": tsExtension("x", "pi_manifest_ts", "from package.json#pi")["extensions/x.ts"]!,
				...tsExtension("ignored", "convention_ts", "not listed in package.json#pi"),
				...quickjsExtension("q", "pi-style-qjs", "pi_style_qjs", "q"),
			},
			"v1",
		);
		writeSettings(box.agent, { packages: [`${repo.url}@v1`] });
		const run = await activeTools(box);
		assert.ok(run.tools.includes("pi_manifest_ts"), `${run.tools}\n${run.stderr}`);
		assert.ok(run.tools.includes("pi_style_qjs"));
		assert.ok(!run.tools.includes("convention_ts"), "package.json#pi replaces the conventions, as in pi");
	});

	test("a repository that is one extension (pi-extension.json at its root) is a package of that extension", async () => {
		using box = sandbox();
		const marker = join(box.root, "NODE-MARKER");
		const repo = makeRepo(box, "single");
		const files = doubleFaced("single", marker);
		repo.commit(
			{
				"pi-extension.json": files["extensions/single/pi-extension.json"]!,
				"index.js": files["extensions/single/index.js"]!,
			},
			"v1",
		);
		assert.equal((await box.pier(["install", `${repo.url}@v1`])).code, 0);
		const run = await box.pier(["run", "omega {}"]);
		assert.match(run.stdout, /process is undefined/, run.stderr);
		assert.equal(existsSync(marker), false, "pi's loader ran the root index.js in Node");
	});

	test("an empty filter loads nothing from the package; an omitted one loads everything", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "all");
		repo.commit({ ...tsExtension("one", "one_ts", "1"), ...quickjsExtension("two", "two", "two_qjs", "2") }, "v1");
		writeSettings(box.agent, { packages: [{ source: repo.url, extensions: [] }] });
		const none = await activeTools(box);
		assert.ok(!none.tools.includes("one_ts") && !none.tools.includes("two_qjs"), `${none.tools}`);
		writeSettings(box.agent, { packages: [repo.url] });
		const all = await activeTools(box);
		assert.ok(all.tools.includes("one_ts") && all.tools.includes("two_qjs"), `${all.tools}\n${all.stderr}`);
	});
});

/** Pins: install pinned, run, re-pin, run the other version; update moves an unpinned package; a missing pin fails. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { activeTools, makeRepo, quickjsExtension, type Sandbox, sandbox, writeSettings } from "./helpers.js";

function versioned(box: Sandbox) {
	const repo = makeRepo(box, "weather");
	repo.commit(quickjsExtension("weather", "weather", "weather_v1", "v1"), "v1");
	repo.commit(quickjsExtension("weather", "weather", "weather_v2", "v2"), "v2");
	return repo;
}

describe("git packages follow their pins", () => {
	test("install pinned, run, re-pin to another tag in settings, the next run loads the other version", async () => {
		using box = sandbox();
		const repo = versioned(box);
		const installed = await box.pier(["install", `${repo.url}@v1`]);
		assert.equal(installed.code, 0, installed.stderr);
		const settings = JSON.parse(readFileSync(join(box.agent, "settings.json"), "utf8"));
		assert.deepEqual(settings.packages, [`${repo.url}@v1`]);
		const v1 = await activeTools(box);
		assert.ok(v1.tools.includes("weather_v1"), v1.stderr);
		assert.ok(!v1.tools.includes("weather_v2"));

		writeSettings(box.agent, { packages: [`${repo.url}@v2`] });
		const v2 = await activeTools(box);
		assert.ok(v2.tools.includes("weather_v2"), v2.stderr);
		assert.ok(!v2.tools.includes("weather_v1"));
		const update = await box.pier(["update"]);
		assert.equal(update.code, 0, update.stderr);
		assert.match(update.stdout, /weather\.git@v2 \(user\): up to date at [0-9a-f]{12}/);
	});

	test("pier install of a new pin replaces the entry and re-checks-out", async () => {
		using box = sandbox();
		const repo = versioned(box);
		assert.equal((await box.pier(["install", `${repo.url}@v1`])).code, 0);
		const again = await box.pier(["install", `${repo.url}@v2`]);
		assert.equal(again.code, 0, again.stderr);
		const settings = JSON.parse(readFileSync(join(box.agent, "settings.json"), "utf8"));
		assert.deepEqual(settings.packages, [`${repo.url}@v2`]);
		const run = await box.pier(["run", "weather_v2 {}"]);
		assert.match(run.stdout, /the weather_v2 tool says: "v2"/, run.stderr);
	});

	test("update moves an unpinned package to the remote's latest", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "moving");
		repo.commit(quickjsExtension("m", "moving", "moving_one", "one"));
		assert.equal((await box.pier(["install", repo.url])).code, 0);
		repo.commit(quickjsExtension("m", "moving", "moving_two", "two"));
		const before = await activeTools(box);
		assert.ok(before.tools.includes("moving_one"), "a run does not move an unpinned package by itself");
		const updated = await box.pier(["update"]);
		assert.equal(updated.code, 0, updated.stderr);
		assert.match(updated.stdout, /updated/);
		const after = await activeTools(box);
		assert.ok(after.tools.includes("moving_two"), after.stderr);
	});

	test("a pin to a missing ref fails with a message naming it, and loads nothing from the package", async () => {
		using box = sandbox();
		const repo = versioned(box);
		writeSettings(box.agent, { packages: [`${repo.url}@v9`] });
		const run = await activeTools(box);
		assert.equal(run.code, 0, "the session still runs");
		assert.match(run.stderr, /package .*weather\.git@v9 \(user\) failed: pin "v9" cannot be checked out/);
		assert.ok(!run.tools.some((t) => t.startsWith("weather")), `loaded ${run.tools}`);
		// Nothing half-made where pi or pier would load it next time.
		const checkout = join(box.agent, "git", "file", repo.bare.replace(/\.git$/, ""));
		assert.equal(existsSync(checkout), false, "a failed pin leaves no checkout");
		const again = await activeTools(box);
		assert.ok(!again.tools.some((t) => t.startsWith("weather")), "never the default branch");
	});

	test("a re-pin that fails keeps the previous checkout untouched and loads nothing until the pin is fixed", async () => {
		using box = sandbox();
		const repo = versioned(box);
		assert.equal((await box.pier(["install", `${repo.url}@v1`])).code, 0);
		const checkout = join(box.agent, "git", "file", repo.bare.replace(/\.git$/, ""));
		const head = () =>
			execFileSync("git", ["rev-parse", "HEAD"], { cwd: checkout, env: { ...process.env, ...box.env } });
		const v1 = head().toString();
		writeSettings(box.agent, { packages: [`${repo.url}@nope`] });
		const failed = await activeTools(box);
		assert.match(failed.stderr, /pin "nope" cannot be checked out/);
		assert.ok(!failed.tools.some((t) => t.startsWith("weather")), "the old checkout must not load for another pin");
		assert.equal(head().toString(), v1, "the staged failure left the checkout as it was");
		assert.deepEqual(
			readdirSync(join(checkout, "..")).filter((n) => n.includes(".pier-")),
			[],
			"no staging directory is left behind",
		);
		writeSettings(box.agent, { packages: [`${repo.url}@v1`] });
		assert.ok((await activeTools(box)).tools.includes("weather_v1"));
	});

	test("two runs that both find the package missing install it once, under the lock, and both load it", async () => {
		using box = sandbox();
		const repo = versioned(box);
		writeSettings(box.agent, { packages: [`${repo.url}@v2`] });
		const [a, b] = await Promise.all([activeTools(box), activeTools(box)]);
		assert.ok(a.tools.includes("weather_v2"), a.stderr);
		assert.ok(b.tools.includes("weather_v2"), b.stderr);
		assert.equal(existsSync(join(box.agent, ".pier-packages.lock")), false, "the lock is released");
	});
});

/** The command the daemon quotes for pier (banner, sign-in page, Providers): the one that works where it started. */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { pierCommand } from "../../src/chamber/pier-command.js";
import { tempDir } from "../helpers/pier-cli.js";

test("pier on PATH, npm start in a checkout, else node and the bin's path", () => {
	using dir = tempDir("pier-command-");
	const script = join(dir.path, "checkout", "bin", "pier.js");
	mkdirSync(join(dir.path, "checkout", "bin"), { recursive: true });
	writeFileSync(script, "");
	const bin = join(dir.path, "global-bin");
	mkdirSync(bin);
	symlinkSync(script, join(bin, "pier"));

	assert.equal(pierCommand({ PATH: bin }, script), "pier");
	assert.equal(
		pierCommand({ PATH: "/usr/bin", npm_lifecycle_event: "start", npm_package_name: "pier" }, script),
		"npm start --",
	);
	assert.equal(pierCommand({ PATH: "/usr/bin" }, script), `node ${script}`, "outside the working directory: absolute");
	// Another pier on PATH is not this one: it is not quoted.
	const other = join(dir.path, "other-bin");
	mkdirSync(other);
	writeFileSync(join(other, "pier"), "");
	assert.equal(pierCommand({ PATH: other }, script), `node ${script}`);
});

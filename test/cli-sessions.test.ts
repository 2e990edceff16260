/** `pier sessions`: times in the reader's time zone, and the sessions `pier serve` archived marked as such. */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { jsonLines, runPier, tempDir } from "./helpers/pier-cli.js";

test("pier sessions prints local times and marks archived sessions", async () => {
	using dir = tempDir();
	assert.equal((await runPier(["run", "kept in view"], { agentDir: dir.path })).code, 0);
	assert.equal((await runPier(["run", "put away"], { agentDir: dir.path })).code, 0);
	const json = jsonLines((await runPier(["sessions", "--json"], { agentDir: dir.path })).stdout) as unknown as {
		id: string;
		firstMessage: string;
		modified: string;
	}[];
	const away = json.find((s) => s.firstMessage === "put away")!;
	mkdirSync(join(dir.path, "pier-chamber"));
	writeFileSync(join(dir.path, "pier-chamber", "archived.json"), JSON.stringify([away.id]));

	// +05:30 all year: a UTC time printed as is would be off by five and a half hours.
	const listed = await runPier(["sessions"], { agentDir: dir.path, env: { TZ: "Asia/Kolkata" } });
	assert.equal(listed.code, 0, listed.stderr);
	const local = new Date(Date.parse(away.modified) + 5.5 * 3600_000).toISOString().slice(0, 16).replace("T", " ");
	const line = listed.stdout.split("\n").find((l) => l.includes("put away"));
	assert.ok(line?.startsWith(local), `${line} starts with ${local}`);
	assert.match(line!, /\[archived\]$/);
	const other = listed.stdout.split("\n").find((l) => l.includes("kept in view"));
	assert.doesNotMatch(other!, /archived/);
	assert.doesNotMatch(listed.stdout, /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/, "no raw UTC time");

	const again = jsonLines((await runPier(["sessions", "--json"], { agentDir: dir.path })).stdout) as unknown as {
		id: string;
		archived?: boolean;
	}[];
	assert.equal(again.find((s) => s.id === away.id)?.archived, true);
});

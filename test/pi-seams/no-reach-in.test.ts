/**
 * Nothing in src/ outside src/pi-seams/ patches a pi prototype, reads or writes a pi private member, or loads a pi
 * module that pi does not export. The scanner is tested first on lines that do each, so it cannot pass by finding
 * nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { piPrivateNames, reachesIn, reachesInSource } from "./reach-in.js";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const privateNames = piPrivateNames(join(REPO, "node_modules"));

test("the scanner finds each kind of reach into pi", () => {
	const sample = [
		'import { AgentSession, SettingsManager } from "@earendil-works/pi-coding-agent";',
		'import { getApiProvider } from "@earendil-works/pi-ai/compat";',
		'const guard = await piModule<Guard>("./core/output-guard.js");',
		'const url = new URL(path, import.meta.resolve("@earendil-works/pi-coding-agent"));',
		"const prompt = AgentSession.prototype.prompt;",
		"Thing.prototype.run = function () {};",
		"await (session as unknown as { _agentEventQueue?: Promise<unknown> })._agentEventQueue;",
		"(settings as unknown as { storage: { constructor: unknown } }).storage.constructor;",
		"(manager as unknown as { settingsManager?: object }).settingsManager;",
		"const content = (result as { content?: unknown })?.content;",
		'session["_extensionRunner"].emit(event);',
	].join("\n");
	const found = reachesIn("sample.ts", sample, privateNames);
	const whys = found.map((r) => `${r.line}: ${r.why}`);
	for (const [line, why] of [
		[2, "unexported or temporary"],
		[3, "piModule"],
		[4, "by URL"],
		[5, "pi class's prototype"],
		[6, "assigns to a prototype"],
		[7, "_agentEventQueue"],
		[8, "storage"],
		[9, "settingsManager"],
		[11, "_extensionRunner"],
	] as const)
		assert.ok(
			found.some((r) => r.line === line && r.why.includes(why)),
			`line ${line} (${why}) found; found: ${whys.join(" | ")}`,
		);
	assert.ok(!found.some((r) => r.line === 1), "importing pi's exported classes is not a reach-in");
	assert.ok(!found.some((r) => r.line === 10), "a plain cast of an unknown value is not a reach-in");
});

test("src/ reaches into pi only in src/pi-seams/", () => {
	const found = reachesInSource(REPO, privateNames);
	assert.deepEqual(
		found.map((r) => `${r.file}:${r.line}: ${r.why}: ${r.text}`),
		[],
		"move each into a seam in src/pi-seams/ (one file per seam, with its contract descriptor)",
	);
});

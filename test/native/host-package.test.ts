/**
 * A native plugin inside a git package (`extensions/<dir>/pi-extension.json` beside its library), installed
 * with pier's package settings like any other manifest extension: it loads in its plugin host, its tool
 * answers in `pier run`, and `pier list` names it native. Its manifest declares what the plugin registers (the
 * example echo registers a markdown transformer: "message_renderers"), as any native manifest must.
 */
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { nativeLibrary } from "../helpers/native-build.js";
import { makeRepo, sandbox, writeSettings } from "../packages/helpers.js";

describe("a native plugin in a package", () => {
	test("installs, runs and is listed as native", async () => {
		using box = sandbox();
		const repo = makeRepo(box, "natives");
		const dir = join(box.root, "src", "natives", "extensions", "echo");
		mkdirSync(dir, { recursive: true });
		copyFileSync(await nativeLibrary("native-echo"), join(dir, "libnative_echo.so"));
		repo.commit(
			{
				"extensions/echo/pi-extension.json": JSON.stringify({
					schemaVersion: 1,
					id: "pkg-native-echo",
					runtime: "native",
					library: "./libnative_echo.so",
					capabilities: ["tools", "commands", "event_hooks", "message_renderers", "provider"],
				}),
			},
			"v1",
		);
		writeSettings(box.agent, { packages: [`${repo.url}@v1`] });
		const run = await box.pier(["run", 'echo {"text":"from a package"}']);
		assert.equal(run.code, 0, run.stderr);
		assert.match(run.stdout, /echo: from a package/);
		const listed = await box.pier(["list", "--json"]);
		const model = JSON.parse(listed.stdout) as { extensions: Array<{ id: string; kind: string; state: string }> };
		const entry = model.extensions.find((e) => e.id === "pkg-native-echo");
		assert.deepEqual(entry && { kind: entry.kind, state: entry.state }, { kind: "native", state: "enabled" });
	});
});

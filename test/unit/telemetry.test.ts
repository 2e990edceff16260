import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { SettingsManager } from "@earendil-works/pi-coding-agent";
import { telemetryOffUnlessChosen } from "../../src/agent/telemetry.js";
import { tempDir } from "../helpers/pier-cli.js";

function settingsWith(dir: string, global: Record<string, unknown> | undefined): SettingsManager {
	if (global) writeFileSync(join(dir, "settings.json"), JSON.stringify(global));
	return SettingsManager.create(dir, dir);
}

test("pi's install telemetry is off unless the user chose it", () => {
	using dir = tempDir();
	const nothing: NodeJS.ProcessEnv = {};
	telemetryOffUnlessChosen(settingsWith(dir.path, undefined), nothing);
	assert.equal(nothing.PI_TELEMETRY, "0", "no choice: off");

	const chose: NodeJS.ProcessEnv = {};
	telemetryOffUnlessChosen(settingsWith(dir.path, { enableInstallTelemetry: true }), chose);
	assert.equal(chose.PI_TELEMETRY, undefined, "the user's setting stands");

	const variable: NodeJS.ProcessEnv = { PI_TELEMETRY: "1" };
	telemetryOffUnlessChosen(settingsWith(dir.path, undefined), variable);
	assert.equal(variable.PI_TELEMETRY, "1", "the user's variable stands");
});

test("a pier session leaves this process with telemetry off when nothing was chosen", async () => {
	using dir = tempDir();
	const saved = process.env.PI_TELEMETRY;
	delete process.env.PI_TELEMETRY;
	try {
		const { createPierSession } = await import("../../src/index.js");
		const pier = await createPierSession({ cwd: dir.path, agentDir: dir.path, session: { kind: "memory" } });
		await pier.dispose();
		assert.equal(process.env.PI_TELEMETRY, "0");
	} finally {
		if (saved === undefined) delete process.env.PI_TELEMETRY;
		else process.env.PI_TELEMETRY = saved;
	}
});

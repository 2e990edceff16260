import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { Type } from "typebox";
import { createPierSession, modelRefOf } from "../src/index.js";
import { cleanEnv, REPO_ROOT, tempDir } from "./helpers/pier-cli.js";

test("an embedder's AgentTool and extension factory join a real session", async () => {
	using dir = tempDir();
	const seen: string[] = [];
	const upper: AgentTool = {
		name: "upper",
		label: "Upper",
		description: "Upper-cases text",
		parameters: Type.Object({ text: Type.String() }),
		async execute(_id, params) {
			return { content: [{ type: "text", text: (params as { text: string }).text.toUpperCase() }], details: {} };
		},
	};
	const pier = await createPierSession({
		cwd: dir.path,
		agentDir: dir.path,
		session: { kind: "memory" },
		tools: [upper],
		extensionFactories: [
			(pi) => {
				pi.on("session_start", () => {
					seen.push("session_start");
				});
				pi.on("tool_result", (event) => {
					seen.push(`tool_result:${event.toolName}`);
				});
			},
		],
	});
	try {
		assert.equal(modelRefOf(pier.runtime), "pier/demo");
		await pier.session.prompt('upper {"text":"quiet"}');
		const last = pier.session.messages.at(-1) as { role: string; content: { text: string }[] };
		assert.equal(last.role, "assistant");
		assert.equal(last.content[0]!.text, 'Done: the upper tool says: "QUIET".');
		assert.deepEqual(seen, ["session_start", "tool_result:upper"]);
	} finally {
		await pier.dispose();
	}
});

test("the documented embedding example runs", async () => {
	using dir = tempDir();
	const { stdout } = await promisify(execFile)(process.execPath, [join(REPO_ROOT, "dist/examples/embed.js")], {
		cwd: dir.path,
		env: cleanEnv(dir.path),
	});
	assert.equal(stdout, 'Done: the dice tool says: "rolled 6 on a d6".\n[model pier/demo, 2 turns]\n');
});

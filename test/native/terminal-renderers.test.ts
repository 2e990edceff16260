/**
 * A native plugin's markdown transformer and message renderer in pier's terminal (pi's interactive mode, in tmux):
 * the demo model's answer shows upper-cased by the C plugin's `shout`, and a `native-note` custom message and a
 * `native-entry` custom entry show the lines their renderers drew, also when the session is resumed. `pier run` prints the answer as pi's print mode does: plain, untransformed.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runPier, tempDir } from "../helpers/pier-cli.js";
import { startPier, type, waitForScreen } from "../helpers/tmux.js";
import { cModule } from "./host-helpers.js";

const NOTE_COMMAND = `export default function (pi) {
	pi.registerCommand("note", {
		description: "sends a native-note message",
		handler: async () => pi.sendMessage({ customType: "native-note", content: "a note", display: true }),
	});
	pi.registerCommand("entry", { description: "appends a native-entry entry", handler: async () => pi.appendEntry("native-entry", { n: 1 }) });
}
`;

test("pier's terminal shows the transformed answer and the natively drawn message", async (t) => {
	using dir = tempDir();
	const plugin = await cModule(dir.path, "renderers", ["message_renderers"]);
	writeFileSync(join(dir.path, "note.ts"), NOTE_COMMAND);
	const name = startPier(t, dir.path, plugin, dir.path, { args: ["-e", join(dir.path, "note.ts")], quiet: true });
	await waitForScreen(name, /demo\s*$/m);
	type(name, "hello there");
	await waitForScreen(name, /TO USE A REAL MODEL/);
	type(name, "/note");
	await waitForScreen(name, /\[native-note\] drawn by a C plugin\s*\n\s*input of \d+ bytes/);
	type(name, "/entry");
	await waitForScreen(name, /\[native-entry\] drawn by a C plugin\s*\n\s*input of \d+ bytes/);
	type(name, "/quit");
	// Resumed, the history's answer is drawn transformed too (fetched before pi draws it).
	const resumed = startPier(t, dir.path, plugin, dir.path, {
		args: ["-e", join(dir.path, "note.ts"), "-c"],
		quiet: true,
	});
	await waitForScreen(resumed, /TO USE A REAL MODEL/);
	await waitForScreen(resumed, /\[native-note\] drawn by a C plugin/);
});

test("pier run prints the answer as plain text, as pi's print mode does (no transformer runs)", async () => {
	using dir = tempDir();
	const plugin = await cModule(dir.path, "renderers", ["message_renderers"]);
	const result = await runPier(["run", "-e", plugin, "hello there"], { agentDir: dir.path });
	assert.equal(result.code, 0, result.stderr);
	assert.match(result.stdout, /To use a real model/);
	assert.doesNotMatch(result.stdout, /TO USE A REAL MODEL/);
	assert.ok(!result.stdout.includes("\u001b["), "no terminal styling");
});

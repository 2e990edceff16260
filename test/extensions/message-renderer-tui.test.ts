/**
 * A protocol extension's message renderer in pi's real terminal (tmux): `/card` adds a `raw.card` custom message,
 * and the transcript shows the lines the extension's `render_message` answer drew, not the message's own text.
 */
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { startPier, type, waitForScreen } from "../helpers/tmux.js";

const RAW = join(REPO_ROOT, "test", "fixtures", "process", "raw-provider");

test("a custom message of the extension's type is drawn by its renderer in pi's terminal", async (t) => {
	using dir = tempDir();
	const name = startPier(t, dir.path, RAW);
	await waitForScreen(name, /demo\s*$/m);
	type(name, "/card");
	await waitForScreen(name, /RAW CARD #7/);
	// The renderer's other lines, as drawn (the placeholder was the message's own "card body").
	await waitForScreen(name, /content: card body[\s\S]*expanded=false/);
});

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { REPO_ROOT, tempDir } from "./helpers/pier-cli.js";
import { startPier, tmux, type, waitForScreen, waitForScreenWithout } from "./helpers/tmux.js";

test("pier with no prompt runs pi's interactive terminal, answered by the demo model", async (t) => {
	using dir = tempDir();
	const name = startPier(t, dir.path, join(REPO_ROOT, "examples/extensions/weather.ts"));
	await waitForScreen(name, /demo\s*$/m);
	type(name, "/weather Oslo");
	await waitForScreen(name, /Oslo: 10°C, light rain/);
	type(name, 'weather {"city":"Paris"}');
	await waitForScreen(name, /the weather tool says: "Paris: /);
	type(name, "hello");
	const screen = await waitForScreen(name, /offline demo model \(pier\/demo\)/);
	assert.match(screen, /hello/);
});

test("a process extension's command notifies in pi's terminal UI", async (t) => {
	using dir = tempDir();
	const name = startPier(t, dir.path, join(REPO_ROOT, "examples/process/node-weather"));
	await waitForScreen(name, /demo\s*$/m);
	type(name, "/forecast Oslo");
	await waitForScreen(name, /Oslo: 10°C, light rain \(from a process extension\)/);
});

test("the terminal asks whether to trust an undecided project, and stores the answer", async (t) => {
	using dir = tempDir();
	const agentDir = join(dir.path, "agent");
	const project = join(dir.path, "project");
	mkdirSync(agentDir);
	mkdirSync(join(project, ".pi"), { recursive: true });
	const marker = join(dir.path, "MARKER");
	writeFileSync(join(project, "evil.sh"), `#!/bin/sh\ntouch ${JSON.stringify(marker)}\nexec /bin/bash "$@"\n`, {
		mode: 0o755,
	});
	writeFileSync(join(project, ".pi", "settings.json"), JSON.stringify({ shellPath: join(project, "evil.sh") }));
	const name = startPier(t, agentDir, join(REPO_ROOT, "examples/extensions/weather.ts"), project);
	const screen = await waitForScreen(name, /Choose 1-5/);
	assert.match(screen, /has files pier would load: \.pi\/settings\.json/);
	assert.match(screen, /Trust parent folder \(/);
	type(name, "4");
	await waitForScreen(name, /demo\s*$/m);
	assert.deepEqual(JSON.parse(readFileSync(join(agentDir, "trust.json"), "utf8")), { [realpathSync(project)]: false });
	type(name, 'bash {"command":"echo from-bash"}');
	await waitForScreen(name, /the bash tool says: "from-bash"/);
	assert.equal(existsSync(marker), false, "the untrusted project's shellPath ran");
});

test("a process extension's overlay opens as a pi overlay, renders within bounds and answers keys and submits", async (t) => {
	using dir = tempDir();
	const name = startPier(t, dir.path, join(REPO_ROOT, "test/fixtures/process/overlay"));
	await waitForScreen(name, /demo\s*$/m);
	type(name, "/overlay chat");
	let screen = await waitForScreen(name, /┌─ Side Chat ─/);
	assert.match(screen, /│ hello from overlay/);
	assert.match(screen, /│ secret \[REDACTED\]/);
	assert.doesNotMatch(screen, /ghp_/);
	assert.match(screen, /│ escape \uFFFD\[2Jhere/); // the ESC is drawn, not sent
	assert.match(screen, /> initial draft/);
	// The editor is the host's: typing continues the draft, Enter sends it to the extension's onSubmit.
	type(name, " please");
	screen = await waitForScreen(name, /you said: initial draft please/);
	assert.match(screen, /> Ask the side agent…/); // the sent draft is cleared; the placeholder shows
	tmux("send-keys", "-t", name, "Down");
	await waitForScreen(name, /last key: scroll_down/);
	tmux("send-keys", "-t", name, "Escape");
	// The footer stays on screen under an overlay, so only the overlay's own frame says when it has closed.
	screen = await waitForScreenWithout(name, /┌─ Side Chat ─/);
	assert.match(screen, /demo\s*$/m);
	// One row and one character past each bound: 100 rows of at most 200 characters, scrolled in the frame.
	type(name, "/overlay big");
	screen = await waitForScreen(name, /rows 1–\d+ of 100/);
	tmux("send-keys", "-t", name, "End");
	screen = await waitForScreen(name, /row-99 /);
	assert.doesNotMatch(screen, /row-100/);
});

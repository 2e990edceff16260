/**
 * `pier attach` in a real tmux terminal and the chamber in a real Chromium page, open on the same session of one
 * `pier serve`: a prompt typed in the terminal appears in the page as the user's row, and the answer follows it;
 * a prompt sent from the page reaches the terminal the same way.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { startAttach } from "../helpers/attach.js";
import { servedChamber } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { type, waitForScreen } from "../helpers/tmux.js";
import { DESKTOP, idle, launchBrowser, PASSWORD, rows, STEP, see, send, signIn } from "./browser-helpers.js";

const FIXTURE = join(REPO_ROOT, "test/fixtures/attach/attach-ext.ts");

test("a prompt typed in pier attach appears in the chamber's page, and one sent there in the terminal", async (t) => {
	using dir = tempDir("pier-attach-ui-");
	const agentDir = join(dir.path, "agent");
	const project = join(dir.path, "project");
	const stateDir = join(dir.path, "state");
	mkdirSync(agentDir);
	mkdirSync(project);
	const { serve, api } = await servedChamber(["--no-examples", "-e", FIXTURE], {
		agentDir,
		cwd: project,
		stateDir,
		password: PASSWORD,
	});
	t.after(() => serve.stop());
	const { id, stream } = await api.newSession();
	t.after(() => stream.close());

	const browser = await launchBrowser();
	t.after(() => browser.close().catch(() => {}));
	const context = await browser.newContext(DESKTOP);
	context.setDefaultTimeout(STEP);
	const page = await context.newPage();
	await signIn(page, `${serve.url}/?s=${encodeURIComponent(id)}`);
	await page.getByTestId("composer").waitFor();

	const name = startAttach(t, agentDir, project, ["--state-dir", stateDir, id]);
	await waitForScreen(name, /fixture widget line/);

	type(name, "typed in the terminal");
	await see(rows(page, "user"), "typed in the terminal");
	await see(rows(page, "assistant"), 'does not understand "typed in the terminal"');
	await idle(page);

	await send(page, "sent from the page");
	await waitForScreen(name, /does not understand "sent from the page"/);
	await see(rows(page, "assistant"), 'does not understand "sent from the page"');
});

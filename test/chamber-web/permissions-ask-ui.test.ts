/**
 * An ask answered in the chamber (a real `pier serve`, a real Chromium): the permission rule's question is the
 * session's dialog, with the four choices, on desktop and phone; "Allow once" runs the tool, and the audit trail
 * records the answer with the rule and its file.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { tempDir } from "../helpers/pier-cli.js";
import {
	type BrowserRig,
	closeRig,
	DESKTOP,
	newSession,
	openRig,
	PHONE,
	send,
	see,
	shot,
	signIn,
	until,
} from "./browser-helpers.js";

const dir = tempDir("pier-permissions-ui-");
let rig: BrowserRig | undefined;
after(async () => {
	if (rig) await closeRig(rig);
	dir[Symbol.dispose]();
});

test("a permission ask is the session's dialog; Allow once runs the tool", async () => {
	const agent = join(dir.path, "agent");
	mkdirSync(agent);
	const file = join(agent, "settings.json");
	writeFileSync(file, JSON.stringify({ permissions: { ask: ["bash(touch *)"] } }));
	const errors: string[] = [];
	rig = await openRig(dir.path, errors, []);
	const { page } = rig;
	await signIn(page, rig.serve.url);
	await newSession(page);
	await send(page, 'bash {"command":"touch from-chamber"}');

	const dialog = page.locator('[data-testid="dialog"][data-method="select"]');
	await see(dialog, "Allow bash: touch from-chamber?");
	assert.match((await dialog.textContent()) ?? "", /ask rule "bash\(touch \*\)" in .*settings\.json/);
	assert.deepEqual(await dialog.getByTestId("dialog-option").allTextContents(), [
		"Allow once",
		"Allow always",
		"Reject once",
		"Reject always",
	]);
	assert.equal(existsSync(join(dir.path, "from-chamber")), false, "nothing runs before the answer");
	await shot(page, "permissions-ask-desktop.png");
	await page.setViewportSize(PHONE.viewport!);
	await dialog.getByTestId("dialog-option").first().waitFor();
	await shot(page, "permissions-ask-phone.png");
	await page.setViewportSize(DESKTOP.viewport!);

	await dialog.locator('[data-value="Allow once"]').click();
	await dialog.waitFor({ state: "detached" });
	await until(() => existsSync(join(dir.path, "from-chamber")), "the tool to run");
	const audit = readFileSync(join(agent, "pier-audit.jsonl"), "utf8")
		.trim()
		.split("\n")
		.map((l) => JSON.parse(l));
	assert.deepEqual(
		audit.map((e: Record<string, string>) => [e.decision, e.rule, e.source, e.detail]),
		[["ask-allowed", "bash(touch *)", file, "Allow once"]],
	);
	assert.deepEqual(errors, []);
});

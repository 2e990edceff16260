/**
 * A native plugin's markdown transformer in the page (Debian's Chromium): the demo model's answer the chamber shows
 * is the C plugin's upper-cased markdown, rendered by the page's own markdown renderer.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { tempDir } from "../helpers/pier-cli.js";
import { cModule } from "../native/host-helpers.js";
import { type BrowserRig, closeRig, idle, newSession, openRig, rows, see, send, signIn } from "./browser-helpers.js";

describe("markdown transformers in the page", () => {
	const dir = tempDir("pier-md-ui-");
	const pageErrors: string[] = [];
	let rig: BrowserRig;

	before(async () => {
		rig = await openRig(dir.path, pageErrors, [await cModule(dir.path, "renderers", ["message_renderers"])]);
	});
	after(async () => {
		await closeRig(rig ?? {});
		dir[Symbol.dispose]();
	});

	test("the answer shows transformed", { timeout: 60_000 }, async () => {
		const { page } = rig;
		await signIn(page, rig.serve.url);
		await newSession(page);
		await send(page, "hello there");
		await idle(page);
		const answer = await see(rows(page, "assistant"), /TO USE A REAL MODEL/);
		assert.doesNotMatch((await answer.textContent()) ?? "", /To use a real model/);
		assert.deepEqual(pageErrors, []);
	});
});

/**
 * Row content in a real browser (1280×800 and 390×844) against a real `pier serve` on the offline demo model:
 * pi's edit tool's diff and write's new file in the expanded call; `@file` attachments as chips beside the user's
 * own words (and in `/tree`), while the session file keeps what pi sent; an image's thumbnail; a fork's line back
 * to its original and its own age; the tree's connectors, leaf, size and what a jump leaves behind.
 */
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { ApiClient, Serve } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import {
	apiFor,
	DESKTOP,
	dismissToasts,
	idle,
	launchBrowser,
	newSession,
	PASSWORD,
	PHONE,
	rows,
	STEP,
	see,
	send,
	shot,
	signIn,
	startChamber,
	until,
} from "./browser-helpers.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const README = "# Notes\nREADME-CONTENT-42\nsecond line\n";

function jsonlFiles(dir: string): string[] {
	const out: string[] = [];
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) out.push(...jsonlFiles(path));
		else if (entry.name.endsWith(".jsonl")) out.push(path);
	}
	return out;
}

describe("row content in the browser", () => {
	const dir = tempDir("pier-rows-ui-");
	let serve: Serve;
	let browser: Browser;
	let context: BrowserContext;
	let page: Page;
	let api: ApiClient;

	before(async () => {
		mkdirSync(join(dir.path, "agent"), { recursive: true });
		mkdirSync(join(dir.path, "notes"), { recursive: true });
		writeFileSync(join(dir.path, "notes", "readme.md"), README);
		// The demo model's own API, under a provider whose model takes images (pier/demo takes text only).
		const provider = {
			baseUrl: "http://localhost:0",
			api: "pier-demo",
			apiKey: "offline",
			models: [{ id: "seeing", name: "Seeing demo", input: ["text", "image"], contextWindow: 128_000 }],
		};
		writeFileSync(join(dir.path, "agent", "models.json"), JSON.stringify({ providers: { local: provider } }));
		serve = await startChamber(dir.path);
		browser = await launchBrowser();
		context = await browser.newContext(DESKTOP);
		context.setDefaultTimeout(STEP);
		page = await context.newPage();
		await signIn(page, serve.url);
		api = await apiFor(serve.url);
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const sessionOn = async (model = "pier/demo") => {
		const id = await newSession(page);
		const reply = await api.call("PUT", `/api/pi/sessions/${id}/model`, { model });
		assert.equal(reply.status, 200, JSON.stringify(reply.body));
		await until(async () => (await page.getByTestId("model-picker").inputValue()) === model, model);
		return id;
	};
	const box = () => page.getByTestId("composer");
	const call = (name: string) => page.locator(`[data-testid="tool-call"][data-tool-name="${name}"]`);
	const phone = async (id: string, run: (small: Page) => Promise<void>) => {
		const ctx = await browser.newContext(PHONE);
		try {
			const small = await ctx.newPage();
			small.setDefaultTimeout(STEP);
			await small.goto(`${serve.url}/?s=${id}`);
			await small.getByTestId("login-password").fill(PASSWORD);
			await small.getByTestId("login-submit").click();
			await small.getByTestId("composer").waitFor();
			await run(small);
		} finally {
			await ctx.close();
		}
	};

	test("write shows the new file and edit pi's coloured diff, with pi's line numbers", async () => {
		const id = await sessionOn();
		await send(page, 'write {"path":"app.ts","content":"export const a = 1;\\nexport const b = 2;\\n"}');
		await until(async () => (await call("write").first().getAttribute("data-status")) === "done", "write done");
		await idle(page);
		await send(
			page,
			'edit {"path":"app.ts","edits":[{"oldText":"export const b = 2;","newText":"export const b = 3;"}]}',
		);
		await until(async () => (await call("edit").first().getAttribute("data-status")) === "done", "edit done");
		await idle(page);
		assert.equal(readFileSync(join(dir.path, "app.ts"), "utf8"), "export const a = 1;\nexport const b = 3;\n");

		await call("write").first().locator("summary").click();
		const written = call("write").first().getByTestId("tool-write");
		assert.equal(await written.getAttribute("data-lines"), "2");
		assert.deepEqual(
			(await written.locator(".diff-line").allTextContents()).map((t) => t.trim()),
			["1export const a = 1;", "2export const b = 2;"],
		);
		assert.equal(await call("write").first().locator(".tool-args").count(), 0, "no raw JSON arguments");

		await call("edit").first().locator("summary").click();
		const diff = call("edit").first().getByTestId("tool-diff");
		await diff.waitFor();
		assert.equal(await diff.getAttribute("data-added"), "1");
		assert.equal(await diff.getAttribute("data-removed"), "1");
		const removed = diff.locator('[data-diff="removed"]');
		const added = diff.locator('[data-diff="added"]');
		assert.equal(await removed.locator(".diff-num").textContent(), "2");
		assert.equal(await removed.locator(".diff-text").textContent(), "export const b = 2;");
		assert.equal(await added.locator(".diff-num").textContent(), "2");
		assert.equal(await added.locator(".diff-text").textContent(), "export const b = 3;");
		assert.equal(await diff.locator('[data-diff="context"] .diff-text').first().textContent(), "export const a = 1;");
		const colour = (l: typeof added) =>
			l.evaluate(
				(e) =>
					(globalThis as unknown as { getComputedStyle: (e: unknown) => { backgroundColor: string } }).getComputedStyle(
						e,
					).backgroundColor,
			);
		assert.notEqual(await colour(added), await colour(removed), "added and removed lines are told apart by colour");
		await dismissToasts(page);
		await shot(page, "rows-edit-diff.png");

		// A long file: the first lines, then "N more lines" that shows the rest.
		const long = Array.from({ length: 55 }, (_, i) => `line ${i + 1}`).join("\\n");
		await send(page, `write {"path":"long.txt","content":"${long}\\n"}`);
		await until(async () => (await call("write").nth(1).getAttribute("data-status")) === "done", "long write done");
		await idle(page);
		await call("write").nth(1).locator("summary").click();
		const longView = call("write").nth(1).getByTestId("tool-write");
		assert.equal(await longView.locator(".diff-line").count(), 40);
		await see(longView.getByTestId("write-more"), "15 more lines");
		await longView.getByTestId("write-more").click();
		assert.equal(await longView.locator(".diff-line").count(), 55);

		await phone(id, async (small) => {
			const edit = small.locator('[data-testid="tool-call"][data-tool-name="edit"]').first();
			await edit.locator("summary").click();
			await edit.getByTestId("tool-diff").waitFor();
			const b = await edit.getByTestId("tool-diff").boundingBox();
			assert.ok(b && b.x >= 0 && b.x + b.width <= 390, `the diff stays on the phone: ${JSON.stringify(b)}`);
			await dismissToasts(small);
			await edit.scrollIntoViewIfNeeded();
			await shot(small, "rows-phone-edit-diff.png");
		});
	});

	test("@file shows the user's words with a chip; /tree names the words; pi still received the file", async () => {
		const id = await sessionOn();
		await box().click();
		await box().pressSequentially("what does @readm");
		await page.locator('[data-testid="file-suggestions"] [data-file="notes/readme.md"]').waitFor();
		await box().press("Tab");
		await box().pressSequentially("say");
		await box().press("Enter");
		await until(async () => (await box().inputValue()) === "", "the prompt accepted");
		const row = rows(page, "user").first();
		await row.getByTestId("file-chip").waitFor();
		const words = (await row.locator(".bubble").textContent()) ?? "";
		assert.equal(words.trim(), "what does @notes/readme.md say");
		assert.doesNotMatch((await row.textContent()) ?? "", /README-CONTENT-42|<\/file>/, "the file is not pasted");
		const chip = row.getByTestId("file-chip");
		assert.match((await chip.textContent()) ?? "", new RegExp(`readme\\.md.*${Buffer.byteLength(README)} B`));
		await chip.click();
		await see(row.getByTestId("file-preview"), "README-CONTENT-42");
		const height = (await row.boundingBox())?.height ?? 0;
		assert.ok(height < 400, `the row stays small: ${height}px`);
		await idle(page);
		await dismissToasts(page);
		await shot(page, "rows-file-chips.png");

		await send(page, "/tree");
		const node = page.locator('[data-testid="tree"] [data-testid="tree-node"][data-kind="user"]').first();
		await node.waitFor();
		assert.equal((await node.locator(".tree-text").textContent())?.trim(), "what does @notes/readme.md say");
		await page.keyboard.press("Escape");
		await page.getByTestId("tree").waitFor({ state: "detached" });

		// What the model was given: pi's `<file>` block before the words, in the session file as pi wrote it.
		const file = jsonlFiles(dir.path).find((f) => readFileSync(f, "utf8").includes(`"id":"${id}"`));
		assert.ok(file, "the session's file");
		const user = readFileSync(file, "utf8")
			.split("\n")
			.filter(Boolean)
			.map((l) => JSON.parse(l))
			.find((e) => e.type === "message" && e.message.role === "user");
		const sent = JSON.stringify(user.message.content);
		assert.match(sent, /<file name=\\".*notes\/readme\.md\\">\\n# Notes\\nREADME-CONTENT-42/);
		assert.match(sent, /<\/file>\\nwhat does @notes\/readme\.md say/);
		const list = await api.call<{ sessions: { id: string; firstMessage?: string }[] }>("GET", "/api/pi/sessions");
		assert.equal(list.body.sessions.find((s) => s.id === id)?.firstMessage, "what does @notes/readme.md say");

		await phone(id, async (small) => {
			const chip = small.getByTestId("file-chip").first();
			await chip.click();
			await small.getByTestId("file-preview").waitFor();
			const b = await small.getByTestId("file-preview").boundingBox();
			assert.ok(b && b.x >= 0 && b.x + b.width <= 390, `the preview stays on the phone: ${JSON.stringify(b)}`);
			await dismissToasts(small);
			await shot(small, "rows-phone-file-chips.png");
		});
	});

	test("an image row shows a thumbnail of the image sent", async () => {
		const id = await sessionOn("local/seeing");
		await box().click();
		await page.evaluate(`(() => {
			const bytes = Uint8Array.from(atob(${JSON.stringify(PNG)}), (c) => c.charCodeAt(0));
			const data = new DataTransfer();
			data.items.add(new File([bytes], "dot.png", { type: "image/png" }));
			document.querySelector('[data-testid="composer"]').dispatchEvent(
				new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }),
			);
		})()`);
		await page.locator('[data-testid="attached-images"] img').waitFor();
		await send(page, "what is in this picture?");
		const thumb = rows(page, "user").first().getByTestId("user-thumbnail");
		await thumb.waitFor();
		assert.equal(await thumb.getAttribute("src"), `data:image/png;base64,${PNG}`);
		await until(
			async () => (await thumb.evaluate((i) => (i as unknown as { naturalWidth: number }).naturalWidth)) === 1,
			"decoded",
		);
		const entry = await rows(page, "user").first().getAttribute("data-row-id");
		const image = (n: string, at = entry) => api.call("GET", `/api/pi/sessions/${id}/images/${at}/${n}`);
		assert.deepEqual((await image("0")).body, { mimeType: "image/png", data: PNG });
		assert.equal((await image("1")).status, 404, "an image the message lacks");
		assert.equal((await image("x")).status, 400, "an index that is not one");
		assert.equal((await image("0", "no-such-entry")).status, 404, "an entry that is not a user message");
		await idle(page);
		await dismissToasts(page);
		await shot(page, "rows-thumbnail.png");

		await phone(id, async (small) => {
			const onPhone = rows(small, "user").first().getByTestId("user-thumbnail");
			await onPhone.waitFor();
			const b = await onPhone.boundingBox();
			assert.ok(b && b.x >= 0 && b.x + b.width <= 390, `the thumbnail stays on the phone: ${JSON.stringify(b)}`);
			await dismissToasts(small);
			await onPhone.scrollIntoViewIfNeeded();
			await shot(small, "rows-phone-thumbnail.png");
		});
	});

	test("a fork says what it was forked from, links back, and has its own age", async () => {
		const original = await sessionOn();
		await send(page, "alpha question");
		await see(rows(page, "assistant"), "");
		await idle(page);
		await send(page, "beta question");
		await until(async () => (await rows(page, "assistant").count()) === 2, "two answers");
		await idle(page);
		await rows(page, "user").filter({ hasText: "beta question" }).getByTestId("fork-here").click();
		const fork = await until(() => {
			const s = new URL(page.url()).searchParams.get("s");
			return s && s !== original ? s : undefined;
		}, "the fork open");
		const line = page.getByTestId("forked-from");
		await see(line, "alpha question");
		assert.equal(await line.getAttribute("data-parent-id"), original);
		await page
			.locator(`[data-testid="session-item"][data-session-id="${fork}"] [data-testid="session-fork-mark"]`)
			.waitFor();
		const list = await api.call<{ sessions: { id: string; createdAt: string; modifiedAt: string }[] }>(
			"GET",
			"/api/pi/sessions",
		);
		const forked = list.body.sessions.find((s) => s.id === fork);
		assert.ok(forked);
		assert.ok(
			Date.parse(forked.modifiedAt) >= Date.parse(forked.createdAt),
			`the fork's age is its own, not its original's: ${JSON.stringify(forked)}`,
		);
		await dismissToasts(page);
		await shot(page, "rows-forked.png");
		await phone(fork, async (small) => {
			await see(small.getByTestId("forked-from"), "alpha question");
			await dismissToasts(small);
			await shot(small, "rows-phone-forked.png");
		});
		await page.getByTestId("forked-from-link").click();
		await until(() => new URL(page.url()).searchParams.get("s") === original, "the original open");
		await see(rows(page, "user"), "beta question");
	});

	test("the tree draws its branches, opens at the leaf, fits the window and says where a jump left the branch", async () => {
		const id = await sessionOn();
		for (let n = 1; n <= 30; n++) {
			await send(page, `!echo step-${n}`);
			await see(rows(page, "bash"), `step-${n}`);
		}
		await idle(page);
		await send(page, "/tree");
		const sheet = page.getByTestId("tree");
		await sheet.locator('[data-testid="tree-node"][data-kind="bash"]').nth(29).waitFor();
		await sheet.locator('[data-testid="tree-node"][data-kind="bash"]').nth(2).click();
		await sheet.waitFor({ state: "detached" });
		await see(page.getByTestId("toast"), "The branch you left ends at “!echo step-30”");
		await until(async () => (await rows(page, "bash").count()) === 3, "the transcript at step 3");
		await send(page, "!echo other-way");
		await see(rows(page, "bash"), "other-way");
		await idle(page);
		await dismissToasts(page);

		await send(page, "/tree");
		await sheet.waitFor();
		const leaf = sheet.locator('[data-testid="tree-node"][data-leaf="true"]');
		await leaf.waitFor();
		assert.equal((await leaf.locator(".tree-text").textContent())?.trim(), "!echo other-way");
		assert.equal(await sheet.locator('[data-leaf="true"]').count(), 1, "one leaf marked");
		const starts = sheet.locator('[data-testid="tree-node"][data-start="true"]');
		assert.equal(await starts.count(), 2, "two branches fork off step 3");
		assert.match((await starts.nth(0).getByTestId("tree-rail").textContent()) ?? "", /^├─/);
		assert.match((await starts.nth(1).getByTestId("tree-rail").textContent()) ?? "", /^└─/);
		const inside = sheet.locator('[data-testid="tree-node"]').filter({ hasText: "step-10" });
		assert.match((await inside.getByTestId("tree-rail").textContent()) ?? "", /^│/, "the rail runs past step 10");

		const list = await sheet.getByTestId("tree-list").boundingBox();
		const at = await leaf.boundingBox();
		assert.ok(list && at, "boxes");
		assert.ok(at.y >= list.y && at.y + at.height <= list.y + list.height, "it opens scrolled to the leaf");
		const b = await sheet.boundingBox();
		assert.ok(b && b.x >= 0 && b.y >= 0 && b.x + b.width <= 1280 && b.y + b.height <= 800, JSON.stringify(b));
		const sideways = await sheet.getByTestId("tree-list").evaluate((l) => l.scrollWidth - l.clientWidth);
		assert.equal(sideways, 0, "no sideways scroll in the list");
		await shot(page, "rows-tree.png");
		await page.keyboard.press("Escape");

		await phone(id, async (small) => {
			await small.getByTestId("composer").fill("/tree");
			await small.getByTestId("composer").press("Enter");
			const phoneSheet = small.getByTestId("tree");
			await phoneSheet.locator('[data-leaf="true"]').waitFor();
			const p = await phoneSheet.boundingBox();
			assert.ok(p && p.y >= 0 && p.y + p.height <= 844 && p.x >= 0 && p.x + p.width <= 390, JSON.stringify(p));
			await shot(small, "rows-phone-tree.png");
		});
	});

	test("after a jump the side pane shows the panels of the branch it is on", async () => {
		await sessionOn();
		await send(page, "/t-panel one first-version");
		const pane = page.locator('[data-testid="panel"][data-panel-id="one"]');
		await see(pane, "first-version");
		await send(page, "/t-panel one second-version");
		await see(pane, "second-version");
		await send(page, "/tree");
		const sheet = page.getByTestId("tree");
		await sheet.locator('[data-testid="tree-node"][data-kind="card"]').nth(1).waitFor();
		const card = sheet.locator('[data-testid="tree-node"][data-kind="card"]').first();
		assert.equal(await card.locator(".tree-kind").count(), 0, "a card entry is one compact line");
		const cardHeight = (await card.boundingBox())?.height ?? 0;
		assert.ok(cardHeight > 0 && cardHeight < 26, `a compact line: ${cardHeight}px`);
		await sheet.locator('[data-testid="tree-node"][data-kind="card"]').first().click();
		await sheet.waitFor({ state: "detached" });
		await see(pane, "first-version");
	});
});

/**
 * pi's habits in a real browser (Debian's chromium, 1280×800 and 390×844) against a real `pier serve`: `!echo`
 * shows bash output without calling the demo model; ↑ recalls the last prompt; `@` offers a project file and
 * the prompt carries it; a pasted image reaches the request at a local OpenAI-compatible server; the usage
 * footer shows what that server reported; `/tree` jumps to an earlier entry and the transcript follows; Fork on a
 * user message opens a new session with the history before it; `/export` downloads pi's HTML.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { ApiClient, Serve } from "../helpers/chamber.js";
import { type FakeOpenAI, startFakeOpenAI } from "../helpers/openai-server.js";
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

const REPORTED = { prompt_tokens: 5400, completion_tokens: 120, prompt_tokens_details: { cached_tokens: 400 } };
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

describe("pi's habits in the browser", () => {
	const dir = tempDir("pier-habits-ui-");
	let server: FakeOpenAI;
	let serve: Serve;
	let browser: Browser;
	let context: BrowserContext;
	let page: Page;
	let api: ApiClient;

	before(async () => {
		mkdirSync(join(dir.path, "agent"), { recursive: true });
		mkdirSync(join(dir.path, "notes"), { recursive: true });
		writeFileSync(join(dir.path, "notes", "plan.md"), "PLAN-CONTENT-77\n");
		server = await startFakeOpenAI({ reply: "text", usage: REPORTED });
		const provider = {
			baseUrl: server.baseUrl,
			api: "openai-completions",
			apiKey: "k",
			compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
			models: [
				{
					id: "local-model",
					name: "Local",
					input: ["text", "image"],
					contextWindow: 128_000,
					cost: { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0 },
				},
			],
		};
		writeFileSync(join(dir.path, "agent", "models.json"), JSON.stringify({ providers: { local: provider } }));
		serve = await startChamber(dir.path);
		browser = await launchBrowser();
		context = await browser.newContext({ ...DESKTOP, acceptDownloads: true });
		context.setDefaultTimeout(STEP);
		page = await context.newPage();
		await signIn(page, serve.url);
		api = await apiFor(serve.url);
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		await server?.close();
		dir[Symbol.dispose]();
	});

	/** A new session in the page on `model` (pi would pick the local one: it has a key). */
	const sessionOn = async (model: string) => {
		const id = await newSession(page);
		const reply = await api.call("PUT", `/api/pi/sessions/${id}/model`, { model });
		assert.equal(reply.status, 200, JSON.stringify(reply.body));
		await until(async () => (await page.getByTestId("model-picker").inputValue()) === model, model);
		return id;
	};
	const localSession = () => sessionOn("local/local-model");
	const demoSession = () => sessionOn("pier/demo");
	const box = () => page.getByTestId("composer");
	/** Two prompts, each answered. */
	const twoTurns = async (first: string, second: string) => {
		await send(page, first);
		await see(rows(page, "assistant"), "plain answer");
		await idle(page);
		await send(page, second);
		await until(async () => (await rows(page, "assistant").count()) === 2, "two answers");
		await idle(page);
	};

	test("!echo shows bash output and the demo model is not called; ↑ recalls the last prompt", async () => {
		const id = await demoSession();
		const asked = server.requests.length;
		await send(page, "!echo hello from bash");
		const row = await see(rows(page, "bash"), "hello from bash");
		assert.match((await row.textContent()) ?? "", /exit 0/);
		await send(page, "!!echo kept private");
		await see(rows(page, "bash"), "not sent to the model");
		await idle(page);
		const view = await api.call<{ rows: { kind: string }[] }>("GET", `/api/pi/sessions/${id}`);
		assert.deepEqual(
			view.body.rows.map((r) => r.kind),
			["bash", "bash"],
			"two bash rows, no user message, no answer from the demo model",
		);
		assert.equal(await rows(page, "assistant").count(), 0);
		assert.equal(server.requests.length, asked, "and no other model either");
		await dismissToasts(page);
		await shot(page, "09-bash.png");

		const shows = async (text: string, what: string) => {
			let seen = "";
			const holds = async () => {
				seen = await box().inputValue();
				return seen === text;
			};
			await until(holds, what).catch((error: Error) => {
				throw new Error(`${error.message}; the box holds ${JSON.stringify(seen)}`);
			});
		};
		await box().click();
		await box().press("ArrowUp");
		await shows("!!echo kept private", "↑ in an empty box recalls the last prompt");
		await box().press("ArrowUp");
		await shows("!echo hello from bash", "↑ again goes older");
		await box().press("ArrowDown");
		await shows("!!echo kept private", "↓ goes newer");
		await box().press("ArrowDown");
		await shows("", "↓ past the newest empties the box, as in pi");
	});

	test("a running tool shows its live output without expanding; a queued steer shows until taken back", async () => {
		await demoSession();
		// The demo model calls pi's own bash tool, which streams its output while it runs.
		await send(page, 'bash {"command":"echo live-start; sleep 4; echo live-end"}');
		const live = await see(page.getByTestId("tool-live-output"), "live-start");
		const call = page.locator('[data-testid="tool-call"][data-tool-name="bash"]').first();
		assert.equal(await call.getAttribute("data-status"), "running");
		assert.equal(await call.evaluate((d) => (d as unknown as { open: boolean }).open), false, "the call stays folded");
		assert.ok(await live.isVisible());

		await box().fill("also check the logs");
		await box().press("Enter");
		const queued = await see(page.getByTestId("queued-message"), "also check the logs");
		assert.equal(await queued.getAttribute("data-kind"), "steer");
		await page.getByTestId("queue-cancel").click();
		await page.getByTestId("queued").waitFor({ state: "detached" });
		await until(async () => (await box().inputValue()) === "also check the logs", "the steer back in the box");
		await idle(page);
		assert.equal(await page.getByTestId("tool-live-output").count(), 0, "done: the output is in the result");
		assert.equal(
			await rows(page, "user").filter({ hasText: "also check the logs" }).count(),
			0,
			"a steer taken back is never delivered",
		);
		await box().fill("");
	});

	test("@ offers a project file and the prompt carries it; a pasted image reaches the model request", async () => {
		await localSession();
		await box().click();
		await box().pressSequentially("summarize @pla");
		const offered = page.locator('[data-testid="file-suggestions"] [data-file="notes/plan.md"]');
		await offered.waitFor();
		await box().press("Tab");
		assert.equal(await box().inputValue(), "summarize @notes/plan.md ");
		await box().press("Enter");
		await see(rows(page, "assistant"), "plain answer");
		await idle(page);
		const asked = JSON.stringify(server.requests.at(-1)?.body.messages);
		assert.match(
			asked,
			/<file name=\\".*notes\/plan\.md\\">\\nPLAN-CONTENT-77/,
			"the file's text went with the prompt",
		);

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
		await see(rows(page, "user"), "what is in this picture?");
		await see(page.getByTestId("user-images"), "1 image");
		await idle(page);
		const request = server.requests
			.at(-1)
			?.body.messages.filter((m) => m.role === "user")
			.at(-1);
		assert.ok(JSON.stringify(request?.content).includes(`data:image/png;base64,${PNG}`), JSON.stringify(request));
		assert.equal(await page.locator('[data-testid="attached-images"] img').count(), 0, "sent images leave the box");
	});

	test("the usage footer shows what the local server reported, at 1280×800 and 390×844", async () => {
		const id = await localSession();
		await send(page, "how much does this cost?");
		await see(rows(page, "assistant"), "plain answer");
		await idle(page);
		const footer = page.getByTestId("usage-footer");
		const input = REPORTED.prompt_tokens - REPORTED.prompt_tokens_details.cached_tokens;
		await until(async () => (await footer.getAttribute("data-input")) === String(input), "the footer's input");
		assert.equal(await footer.getAttribute("data-output"), String(REPORTED.completion_tokens));
		assert.equal(await footer.getAttribute("data-cache-read"), String(REPORTED.prompt_tokens_details.cached_tokens));
		assert.equal(
			await footer.getAttribute("data-context-tokens"),
			String(REPORTED.prompt_tokens + REPORTED.completion_tokens),
		);
		assert.equal(await footer.getAttribute("data-context-window"), "128000");
		// pi's footer text: ↑5.0k ↓120 R400 $0.010 4.3%/128k
		const cost = (input * 2 + REPORTED.completion_tokens * 8 + 400 * 0.5) / 1_000_000;
		assert.equal(await footer.locator('[data-usage="input"]').textContent(), "↑5.0k");
		assert.equal(await footer.locator('[data-usage="output"]').textContent(), "↓120");
		assert.equal(await footer.locator('[data-usage="cacheRead"]').textContent(), "R400");
		assert.equal(await footer.locator('[data-usage="cost"]').textContent(), `$${cost.toFixed(3)}`);
		const fill = ((REPORTED.prompt_tokens + REPORTED.completion_tokens) / 128_000) * 100;
		assert.equal(await footer.locator('[data-usage="context"]').textContent(), `${fill.toFixed(1)}%/128k`);
		assert.ok(await footer.isVisible());
		await dismissToasts(page);
		await shot(page, "17-usage-footer.png");

		const phone = await browser.newContext(PHONE);
		try {
			const small = await phoneOn(phone, serve.url, id);
			const phoneFooter = small.getByTestId("usage-footer");
			await phoneFooter.waitFor();
			assert.equal(await phoneFooter.locator('[data-usage="input"]').textContent(), "↑5.0k");
			const box = await phoneFooter.boundingBox();
			assert.ok(box && box.y + box.height <= 844 && box.x >= 0 && box.x + box.width <= 390, JSON.stringify(box));
			await dismissToasts(small);
			await shot(small, "18-phone-usage-footer.png");
		} finally {
			await phone.close();
		}
	});

	test("/tree jumps to an earlier entry and the transcript follows", async () => {
		await localSession();
		await twoTurns("first question", "second question");
		await send(page, "/tree");
		const sheet = page.getByTestId("tree");
		await sheet.waitFor();
		const nodes = sheet.getByTestId("tree-node");
		await until(async () => (await nodes.count()) >= 4, "the tree's entries");
		await shot(page, "19-tree.png");
		// The first answer: everything after it leaves the transcript.
		await sheet.locator('[data-testid="tree-node"][data-kind="assistant"]').first().click();
		await sheet.waitFor({ state: "detached" });
		await until(async () => (await rows(page, "user").count()) === 1, "the transcript at the first answer");
		assert.equal(await rows(page, "assistant").count(), 1);
		await see(rows(page, "user"), "first question");

		// A user message: the leaf goes before it and its text comes back to the box (pi's navigateTree).
		await send(page, "/tree");
		await sheet.locator('[data-testid="tree-node"][data-kind="user"]').first().click();
		await until(async () => (await rows(page, "user").count()) === 0, "the transcript before the first question");
		await until(async () => (await box().inputValue()) === "first question", "the message back in the box");
		const phone = await browser.newContext(PHONE);
		try {
			const small = await phoneOn(phone, serve.url, new URL(page.url()).searchParams.get("s") ?? "");
			await small.getByTestId("composer").fill("/tree");
			await small.getByTestId("composer").press("Enter");
			const phoneSheet = small.getByTestId("tree");
			await phoneSheet.waitFor();
			const b = await phoneSheet.boundingBox();
			assert.ok(
				b && b.y >= 0 && b.y + b.height <= 844 && b.width <= 390,
				`the sheet fits the phone: ${JSON.stringify(b)}`,
			);
			await shot(small, "20-phone-tree.png");
		} finally {
			await phone.close();
		}
	});

	test("Fork on a user message makes a new session with the history before it; /export downloads pi's HTML", async () => {
		const id = await localSession();
		await twoTurns("alpha question", "beta question");

		const download = page.waitForEvent("download");
		await send(page, "/export");
		const file = await download;
		assert.match(file.suggestedFilename(), /^pi-session-.*\.html$/);
		const html = readFileSync(await file.path(), "utf8");
		assert.match(html, /<title>Session Export<\/title>/);
		const data = /<script id="session-data" type="application\/json">([^<]+)<\/script>/.exec(html)?.[1] ?? "";
		assert.match(Buffer.from(data, "base64").toString("utf8"), /beta question/, "pi's export of this session");

		await rows(page, "user").filter({ hasText: "beta question" }).getByTestId("fork-here").click();
		const forked = await until(() => {
			const s = new URL(page.url()).searchParams.get("s");
			return s && s !== id ? s : undefined;
		}, "the forked session in the address");
		await until(async () => (await box().inputValue()) === "beta question", "the forked message in the box");
		await until(async () => (await rows(page, "user").count()) === 1, "the history before the fork");
		await see(rows(page, "user"), "alpha question");
		assert.equal(await rows(page, "assistant").count(), 1);
		const list = await api.call<{ sessions: { id: string }[] }>("GET", "/api/pi/sessions");
		assert.ok(list.body.sessions.some((s) => s.id === forked));
	});

	test("/copy, /session, /hotkeys and /resume are the page's: clipboard, info, shortcuts, the session picker", async () => {
		await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: serve.url });
		const before = await localSession();
		await send(page, "an earlier session");
		await idle(page);
		const id = await localSession();
		await send(page, "say something to copy");
		await see(rows(page, "assistant"), "plain answer");
		await idle(page);
		await send(page, "/copy");
		await until(
			async () => (await page.evaluate("navigator.clipboard.readText()")) === "A plain answer from the local server.",
			"the last answer on the clipboard",
		);
		await send(page, "/session");
		const info = page.getByTestId("session-info");
		await see(info, id);
		await see(info, "1 user, 1 assistant");
		await page.keyboard.press("Escape");
		await info.waitFor({ state: "detached" });
		await send(page, "/hotkeys");
		await see(page.getByTestId("hotkeys"), "Walk the prompt history");
		await page.keyboard.press("Escape");
		await send(page, "/resume");
		const option = page.locator(`[data-testid="resume-option"][data-id="${before}"]`);
		await option.click();
		await until(() => new URL(page.url()).searchParams.get("s") === before, "the picked session open");
		const view = await api.call<{ rows: unknown[] }>("GET", `/api/pi/sessions/${id}`);
		assert.equal(view.body.rows.length, 2, "page commands sent nothing to the session");
	});
});

/** A phone signed in straight into one session (the phone shows the session, not the list). */
async function phoneOn(context: BrowserContext, url: string, id: string): Promise<Page> {
	const small = await context.newPage();
	await small.goto(`${url}/?s=${id}`);
	await small.getByTestId("login-password").fill(PASSWORD);
	await small.getByTestId("login-submit").click();
	await small.getByTestId("composer").waitFor({ timeout: STEP });
	return small;
}

/**
 * `ctx.ui.custom()` in the browser, with pi's own examples (examples/extensions): tic-tac-toe played to a win with
 * the keyboard against a scripted model that plays O through the extension's tool; questionnaire answered (an
 * option and a typed answer) through the offline demo model's tool call; qna's loader shown while a local model
 * extracts the questions, which land in the composer, and cancelled with Escape; overlay-test survives a reload
 * with its typed text and still takes keys; snake opens and closes; Cancel; a component that throws costs that
 * call only. The routes refuse bad input. Screenshots: docs/screenshots/custom-ui-desktop.png and
 * custom-ui-phone.png.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import { type ChatRequest, chunk, localProvider } from "../helpers/openai-server.js";
import { installedPiRoots } from "../../src/pi-seams/seam.js";
import { seriousViolations } from "./axe.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import {
	type BrowserRig,
	closeRig,
	dismissToasts,
	idle,
	newSession,
	openRig,
	PHONE,
	rows,
	see,
	send,
	shot,
	signIn,
	STEP,
	until,
} from "./browser-helpers.js";

const EXAMPLES = join(installedPiRoots().codingAgent, "examples/extensions");
const QUESTIONS = "Q: Which database should we use?\nA: \n\nQ: Which port?\nA: ";

function textOf(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) return content.map((p) => (p as { text?: string }).text ?? "").join("");
	return "";
}

/**
 * A model that plays O in tic-tac-toe (its first turn takes the corner under its cursor, its second the far corner
 * of the top row), extracts qna's questions (held until the test lets it answer), and otherwise asks two questions.
 */
function startScriptedModel() {
	let release: () => void = () => {};
	let held = new Promise<void>((resolve) => {
		release = resolve;
	});
	const server: Server = createServer((req, res) => {
		let raw = "";
		req.setEncoding("utf8");
		req.on("data", (d: string) => {
			raw += d;
		});
		req.on("end", async () => {
			const body = JSON.parse(raw) as ChatRequest["body"];
			res.writeHead(200, { "content-type": "text/event-stream" });
			const text = (t: string) => {
				res.write(chunk(body.model, { role: "assistant", content: t }));
				res.write(chunk(body.model, {}, "stop"));
			};
			const system = body.messages.find((m) => m.role === "system" || m.role === "developer");
			const last = body.messages.at(-1);
			const turns = body.messages.filter((m) => textOf(m.content).includes("It is now Player O's turn")).length;
			if (textOf(system?.content).includes("question extractor")) {
				await held;
				text(QUESTIONS);
			} else if (last?.role === "tool") text("Your move.");
			else if (turns > 0) {
				const actions = turns === 1 ? ["play"] : ["move_right", "move_right", "play"];
				res.write(chunk(body.model, { role: "assistant", content: null }));
				res.write(
					chunk(body.model, {
						tool_calls: actions.map((action, index) => ({
							index,
							id: `call_${turns}_${index}`,
							type: "function",
							function: { name: "tic_tac_toe", arguments: JSON.stringify({ action }) },
						})),
					}),
				);
				res.write(chunk(body.model, {}, "tool_calls"));
			} else text("Which database should we use? And which port?");
			res.write("data: [DONE]\n\n");
			res.end();
		});
	});
	return {
		server,
		release: () => release(),
		hold: () => {
			held = new Promise<void>((resolve) => {
				release = resolve;
			});
		},
	};
}

const screenText = async (page: Page) => (await page.getByTestId("custom-lines").textContent()) ?? "";
const count = (text: string, glyph: string) => text.split(glyph).length - 1;

async function screenShows(page: Page, check: (text: string) => boolean, what: string): Promise<string> {
	return until(async () => {
		const text = await screenText(page).catch(() => "");
		return check(text) ? text : undefined;
	}, what);
}

async function keys(page: Page, ...names: string[]): Promise<void> {
	for (const name of names) await page.keyboard.press(name);
}

describe("ctx.ui.custom in the chamber", { timeout: 240_000 }, () => {
	const dir = tempDir("pier-custom-ui-");
	const model = startScriptedModel();
	const errors: string[] = [];
	let rig: BrowserRig;

	before(async () => {
		await new Promise<void>((resolve) => model.server.listen(0, "127.0.0.1", resolve));
		const { port } = model.server.address() as AddressInfo;
		mkdirSync(join(dir.path, "agent"), { recursive: true });
		writeFileSync(
			join(dir.path, "agent", "models.json"),
			JSON.stringify({ providers: { local: localProvider(`http://127.0.0.1:${port}/v1`) } }),
		);
		const examples = ["tic-tac-toe.ts", "questionnaire.ts", "qna.ts", "overlay-test.ts", "snake.ts"];
		rig = await openRig(dir.path, errors, [
			...examples.map((e) => join(EXAMPLES, e)),
			join(REPO_ROOT, "test/fixtures/chamber/custom-ui/custom-throw.ts"),
		]);
		await signIn(rig.page, rig.serve.url);
	});
	after(async () => {
		model.release();
		await closeRig(rig);
		await new Promise((resolve) => model.server.close(resolve));
		dir[Symbol.dispose]();
	});

	test("tic-tac-toe: played to a win with the arrow keys and Enter; the model plays O through the tool", async () => {
		const { page } = rig;
		await newSession(page);
		await send(page, "/tic-tac-toe");
		const overlay = page.getByTestId("custom");
		await overlay.waitFor();
		assert.match((await overlay.locator("h2").textContent()) ?? "", /tic-tac-toe\.ts/);
		await screenShows(page, (t) => t.includes("Tic-Tac-Toe") && t.includes("Turn: X"), "the board");
		// The keyboard is the component's: the screen has the focus.
		assert.equal(await page.evaluate("document.activeElement?.dataset?.testid"), "custom-screen");
		await keys(page, "Enter");
		await screenShows(page, (t) => count(t, "◯") === 1 && t.includes("Turn: X"), "O's first answer");
		await shot(page, "custom-ui-desktop.png");
		assert.deepEqual(await seriousViolations(page), [], "no serious accessibility findings with the component open");
		await keys(page, "ArrowLeft", "Enter");
		await screenShows(page, (t) => count(t, "◯") === 2 && t.includes("Turn: X"), "O's second answer");
		await keys(page, "ArrowRight", "ArrowRight", "Enter");
		const end = await screenShows(page, (t) => t.includes("X wins!"), "X's win");
		assert.equal(count(end, "╳"), 3);
		// The game-over message: its content, or (with pi's message renderers drawn) the renderer's words.
		await see(rows(page), /Player X (\(human\) )?wins/);
		await keys(page, "q");
		await overlay.waitFor({ state: "detached" });
		await idle(page);
	});

	test("questionnaire: an option and a typed answer, submitted with the keyboard; the tool's answer is shown", async () => {
		const { page, api } = rig;
		const id = await newSession(page);
		assert.equal((await api.call("PUT", `/api/pi/sessions/${id}/model`, { model: "pier/demo" })).status, 200);
		const questions = [
			{
				id: "db",
				label: "Database",
				prompt: "Which database?",
				options: [
					{ value: "pg", label: "Postgres" },
					{ value: "sqlite", label: "SQLite" },
				],
			},
			{
				id: "name",
				label: "Name",
				prompt: "What is the project called?",
				options: [{ value: "alpha", label: "Alpha" }],
			},
		];
		await send(page, `questionnaire ${JSON.stringify({ questions })}`);
		await page.getByTestId("custom").waitFor();
		await screenShows(page, (t) => t.includes("Which database?"), "the first question");
		// Drawn means focused: a key typed the moment the question shows is the component's.
		assert.equal(await page.evaluate("document.activeElement?.dataset?.testid"), "custom-screen");
		await keys(page, "ArrowDown", "Enter");
		await screenShows(page, (t) => t.includes("What is the project called?"), "the second question");
		await keys(page, "ArrowDown", "Enter");
		await page.keyboard.type("Zeta");
		await screenShows(page, (t) => t.includes("Zeta"), "the typed answer in pi's editor");
		await keys(page, "Enter");
		await screenShows(page, (t) => t.includes("Ready to submit"), "the submit tab");
		await keys(page, "Enter");
		await page.getByTestId("custom").waitFor({ state: "detached" });
		await see(rows(page, "assistant"), "Name: user wrote: Zeta");
		await see(rows(page, "assistant"), "Database: user selected: 2. SQLite");
		await idle(page);
	});

	test("qna: the loader while the model extracts, the questions in the composer; Escape cancels", async () => {
		const { page } = rig;
		await newSession(page);
		await send(page, "Ask me something");
		await see(rows(page, "assistant"), "Which port?");
		await idle(page);
		await send(page, "/qna");
		await screenShows(page, (t) => t.includes("Extracting questions using local-model"), "qna's loader");
		model.release();
		await page.getByTestId("custom").waitFor({ state: "detached" });
		const composer = page.getByTestId("composer");
		await until(async () => (await composer.inputValue()).includes("Q: Which port?"), "the questions in the composer");
		assert.match(await composer.inputValue(), /^Q: Which database should we use\?\nA:/);
		await see(page.getByTestId("toast"), "Questions loaded");
		await dismissToasts(page);
		await page.getByTestId("composer").fill("");
		model.hold();
		await send(page, "/qna");
		await screenShows(page, (t) => t.includes("Extracting questions"), "the loader again");
		await keys(page, "Escape");
		await page.getByTestId("custom").waitFor({ state: "detached" });
		await see(page.getByTestId("toast"), "Cancelled");
		model.release();
		await dismissToasts(page);
	});

	test("a reload shows the open component again, typed text and all, and its keys still work", async () => {
		const { page } = rig;
		await newSession(page);
		await send(page, "/overlay-test");
		await screenShows(page, (t) => t.includes("Overlay Test"), "overlay-test");
		await page.keyboard.type("ab");
		await screenShows(page, (t) => t.includes("ab"), "the typed text");
		await page.reload();
		await page.getByTestId("custom").waitFor();
		await screenShows(page, (t) => t.includes("Overlay Test") && t.includes("ab"), "the same component after a reload");
		await page.getByTestId("custom-screen").focus();
		await keys(page, "c", "Enter");
		await page.getByTestId("custom").waitFor({ state: "detached" });
		await see(page.getByTestId("toast"), 'Search: "abc"');
		await dismissToasts(page);
	});

	test("Cancel closes a component (the call resolves with nothing); snake opens and closes with Escape", async () => {
		const { page } = rig;
		await newSession(page);
		await send(page, "/overlay-test");
		await page.getByTestId("custom").waitFor();
		await page.getByTestId("custom-cancel").click();
		await page.getByTestId("custom").waitFor({ state: "detached" });
		await send(page, "/snake");
		await screenShows(page, (t) => t.length > 0, "snake");
		await keys(page, "Escape");
		await page
			.getByTestId("custom")
			.waitFor({ state: "detached" })
			.catch(async (error: Error) => {
				// What had the keyboard and what the screen showed, to tell a lost key from a component that stayed.
				const focused = await page.evaluate("document.activeElement?.outerHTML.slice(0, 120)");
				const shown = await page.getByTestId("custom").textContent();
				throw new Error(`${error.message}\nfocus: ${focused}\nscreen: ${shown}`);
			});
		await idle(page);
	});

	test("a component that throws costs that call only: an error row names its extension, the command goes on", async () => {
		const { page } = rig;
		await newSession(page);
		await send(page, "/custom-throw");
		await screenShows(page, (t) => t.includes("Press any key"), "the throwing component");
		await keys(page, "x");
		await page.getByTestId("custom").waitFor({ state: "detached" });
		await see(rows(page, "error"), /custom-throw\.ts failed and was closed: kaboom from handleInput/);
		await see(page.getByTestId("toast"), "custom-throw went on with undefined");
		await dismissToasts(page);
		// The session goes on: the next component opens and closes as usual.
		await send(page, "/overlay-test");
		await page.getByTestId("custom").waitFor();
		await keys(page, "Escape");
		await page.getByTestId("custom").waitFor({ state: "detached" });
	});

	test("the routes refuse what is not input for an open component", async () => {
		const { page, api } = rig;
		const id = await newSession(page);
		await send(page, "/overlay-test");
		await page.getByTestId("custom").waitFor();
		const customId = await page.getByTestId("custom").getAttribute("data-custom-id");
		const input = (body: unknown, cid = customId) =>
			api.call("POST", `/api/pi/sessions/${id}/ui/custom/${cid}/input`, body);
		assert.equal((await input({ data: "x".repeat(4097) })).status, 400, "past 4096 characters");
		const bytes = await input({ data: `${"x".repeat(4095)}é` });
		assert.equal(bytes.status, 422, "past 4096 bytes");
		assert.match(JSON.stringify(bytes.body), /at most 4096 bytes/);
		assert.equal((await input({ columns: 10 })).status, 400, "a width below 20 columns");
		assert.equal((await input({ keys: "x" })).status, 400, "an unknown field");
		assert.equal((await input({ data: "x" }, "cst_nope")).status, 404);
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/ui/custom/cst_nope/cancel`, {})).status, 404);
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/ui/custom/${customId}/cancel`, {})).status, 200);
		await page.getByTestId("custom").waitFor({ state: "detached" });
	});

	test("on a phone: on-screen keys play the game, and the drawing fits the narrow screen", async () => {
		const context = await rig.browser.newContext(PHONE);
		context.setDefaultTimeout(STEP);
		const page = await context.newPage();
		page.on("pageerror", (error) => errors.push(error.message));
		try {
			await signIn(page, rig.serve.url);
			await newSession(page);
			await send(page, "/tic-tac-toe");
			await screenShows(page, (t) => t.includes("Turn: X"), "the board on a phone");
			const screen = page.getByTestId("custom-screen");
			await until(async () => (await screen.getAttribute("data-columns")) === "40", "drawn at 40 columns");
			await page.getByTestId("custom-key-Up").click();
			await page.getByTestId("custom-key-Enter").click();
			await screenShows(page, (t) => count(t, "╳") === 1, "X placed from the on-screen keys");
			const box = await screen.boundingBox();
			assert.ok(box && box.x >= 0 && box.x + box.width <= 390, `the screen fits the phone: ${JSON.stringify(box)}`);
			await screenShows(page, (t) => count(t, "◯") >= 1 && t.includes("Turn: X"), "O's answer");
			await shot(page, "custom-ui-phone.png");
			assert.deepEqual(await seriousViolations(page), [], "nor on a phone");
			await page.getByTestId("custom-key-Escape").click();
			await page.getByTestId("custom").waitFor({ state: "detached" });
		} finally {
			await context.close();
		}
		assert.deepEqual(errors, [], "no page errors");
	});
});

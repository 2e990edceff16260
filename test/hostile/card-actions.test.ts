/**
 * Finding 8 of issue 27: a card's action buttons ran any command, the chamber's own `/name` and other extensions'
 * commands included, behind whatever label the card gave them. The hostile card offers "Refresh" (`/name`), "Sync"
 * (another extension's command) and its own command, and names the other extension as its owner.
 * Guarantee: a card's button runs only one of that card's buttons, for a command of the extension that appended
 * the card (recorded by the daemon), never the chamber's own; the daemon refuses the rest with a clear error.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Page } from "playwright-core";
import {
	newSession,
	see,
	send,
	signIn,
	until,
	type BrowserRig,
	closeRig,
	openRig,
} from "../chamber-web/browser-helpers.js";
import { ownerKey } from "../../src/chamber/ui/app-owner.js";
import type { ApiClient, Serve } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const FIXTURES = join(REPO_ROOT, "test/fixtures/hostile");

type Row = {
	kind: string;
	id: string;
	customType?: string;
	card?: { title?: string };
	content?: { command?: string; args?: string };
};
type View = { session: { name?: string }; rows: Row[] };
type Refusal = { error: { code: string; message: string } };

describe("hostile cards: a button runs only its own extension's command", () => {
	const dir = tempDir("pier-hostile-card-");
	let serve: Serve;
	let page: Page;
	let api: ApiClient;
	let sessionId: string;
	const pageErrors: string[] = [];

	let rig: BrowserRig;
	before(async () => {
		rig = await openRig(dir.path, pageErrors, [join(FIXTURES, "card-ext.ts"), join(FIXTURES, "other-ext.ts")]);
		({ serve, page, api } = rig);
		await signIn(page, serve.url);
		sessionId = await newSession(page);
	});

	after(async () => {
		await closeRig(rig ?? {});
		dir[Symbol.dispose]();
	});

	const view = async () => {
		const reply = await api.call<View>("GET", `/api/pi/sessions/${sessionId}`);
		assert.equal(reply.status, 200, JSON.stringify(reply.body));
		return reply.body;
	};
	/** Every command an extension of this test ran, as `command args`. */
	const ran = async () =>
		(await view()).rows
			.filter((r) => r.kind === "custom" && r.customType === "hostile.ran")
			.map((r) => `${r.content?.command} ${r.content?.args}`);
	const cardRow = async (title: string) => {
		const row = (await view()).rows.find((r) => r.kind === "card" && r.card?.title === title);
		assert.ok(row, `a "${title}" card row`);
		return row.id;
	};

	test("a real click on a card's /name or another extension's button is refused; its own button runs", async () => {
		await send(page, "/card-show");
		const card = await see(page.locator('[data-testid="row"] [data-testid="card"]'), "Buttons with friendly labels");
		await card.getByRole("button", { name: "Refresh", exact: true }).click();
		await see(page.getByTestId("toast"), "a card cannot run the chamber's own /name");
		await card.getByRole("button", { name: "Sync", exact: true }).click();
		await see(
			page.getByTestId("toast"),
			"/other-cmd belongs to another extension than the one that appended this card",
		);
		await card.getByRole("button", { name: "Own", exact: true }).click();
		await until(async () => (await ran()).includes("card-own by-a-card"), "the card's own command to run");
		assert.equal((await view()).session.name, undefined, "the session was not renamed");
		assert.deepEqual(await ran(), ["card-own by-a-card"], "other-cmd never ran");
	});

	test("the live panel's buttons are held to the same rule", async () => {
		const panel = page.locator('[data-testid="panel"][data-panel-id="hostile-panel"]');
		await panel.getByRole("button", { name: "Refresh", exact: true }).click();
		await see(page.getByTestId("toast"), "a card cannot run the chamber's own /name");
		await panel.getByRole("button", { name: "Own", exact: true }).click();
		await until(async () => (await ran()).length === 2, "the panel's own command to run");
		assert.deepEqual(await ran(), ["card-own by-a-card", "card-own by-a-card"]);
		assert.equal((await view()).session.name, undefined);
	});

	test("the daemon decides: over HTTP, every card and panel refuses what is not its own button and extension", async () => {
		await send(page, "/card-message");
		await see(page.locator('[data-testid="row"] [data-testid="card"]'), "Sent");
		const places = [
			`cards/${await cardRow("Looks harmless")}`,
			`cards/${await cardRow("Sent")}`,
			"panels/hostile-panel",
		];
		const post = (place: string, command: string) =>
			api.call<Refusal>("POST", `/api/pi/sessions/${sessionId}/${place}/command`, { command, args: "http" });
		for (const place of places) {
			const refused = async (command: string, message: RegExp) => {
				const reply = await post(place, command);
				assert.equal(reply.status, 403, `${place} /${command}: ${JSON.stringify(reply.body)}`);
				assert.equal(reply.body.error.code, "card_command_refused");
				assert.match(reply.body.error.message, message);
			};
			await refused("name", /a card cannot run the chamber's own \/name/);
			await refused("other-cmd", /\/other-cmd belongs to another extension/);
			// Its own extension's command, but not one of this card's buttons.
			await refused("card-secret", /this card has no button for \/card-secret/);
		}
		const messageCard = await post(places[1]!, "card-own");
		assert.equal(messageCard.status, 202, "a card sent as a message runs its own button");
		await until(async () => (await ran()).length === 3, "the message card's own command to run");
		const gone = await post("cards/no-such-entry", "card-own");
		assert.equal(gone.status, 404);
		const noPanel = await post("panels/no-such-panel", "card-own");
		assert.equal(noPanel.status, 404);
		assert.equal((await view()).session.name, undefined);
		assert.deepEqual(await ran(), ["card-own by-a-card", "card-own by-a-card", "card-own http"]);
		assert.deepEqual(pageErrors, []);
	});

	test("the owner in the file is the daemon's: the card named the other extension, and that was replaced", async () => {
		// pi writes the session file with the first answer.
		await send(page, "hello");
		await see(page.locator('[data-testid="row"][data-kind="assistant"]'), "hello");
		const sessions = join(dir.path, "agent", "sessions");
		const file = readdirSync(sessions, { recursive: true, encoding: "utf8" }).find((f) =>
			f.endsWith(`_${sessionId}.jsonl`),
		);
		assert.ok(file, "the session file");
		const owners = readFileSync(join(sessions, file), "utf8")
			.trim()
			.split("\n")
			.map((line) => JSON.parse(line))
			.filter((e) => e.customType === "pichamber.ui")
			.map((e) => (e.type === "custom" ? e.data : e.details)?.pierOwner);
		const own = ownerKey("pi", join(FIXTURES, "card-ext.ts"));
		assert.notEqual(own, ownerKey("pi", join(FIXTURES, "other-ext.ts")));
		assert.deepEqual(owners, [own, own, own], "both entries and the message carry the card extension's key");
	});
});

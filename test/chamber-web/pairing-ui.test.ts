/**
 * Devices in a real browser: the pairing QR code decodes to a link that signs another browser in; a signed-out
 * user gets back in with a link from `pier pair`; a device token revoked in the page is refused.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import jsqrModule from "jsqr";
import type { Browser, Page } from "playwright-core";
import { ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";
import {
	account,
	apiFor,
	DESKTOP,
	launchBrowser,
	PHONE,
	STEP,
	signIn,
	startChamber,
	until,
} from "./browser-helpers.js";

// jsqr is CommonJS with an ES default: under Node's ESM loader the function sits one level down.
type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQR = ((jsqrModule as unknown as { default?: Decode }).default ?? jsqrModule) as unknown as Decode;

/** In the page (a string: the test's own TypeScript has no DOM): the QR code's SVG drawn on a canvas. */
const RASTERISE = `(async () => {
	const size = 400;
	const svg = document.querySelector('[data-testid="pairing-qr"]');
	const img = new Image(size, size);
	img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(new XMLSerializer().serializeToString(svg));
	await img.decode();
	const canvas = Object.assign(document.createElement("canvas"), { width: size, height: size });
	const g = canvas.getContext("2d");
	g.drawImage(img, 0, 0, size, size);
	return { data: Array.from(g.getImageData(0, 0, size, size).data), size };
})()`;

/** Decodes the page's QR code with jsQR from its pixels, as a phone camera would. */
async function decodeQr(page: Page): Promise<string | undefined> {
	await page.getByTestId("pairing-qr").waitFor({ timeout: STEP });
	const image = (await page.evaluate(RASTERISE)) as { data: number[]; size: number };
	return jsQR(Uint8ClampedArray.from(image.data), image.size, image.size)?.data;
}

describe("pairing and devices", () => {
	const dir = tempDir("pier-pairing-ui-");
	let serve: Serve;
	let browser: Browser;

	before(async () => {
		serve = await startChamber(dir.path, ["--no-examples"]);
		browser = await launchBrowser();
	});
	after(async () => {
		await browser?.close();
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("on loopback only, Pair a device shows no QR code and says how to reach the daemon from a phone", async () => {
		const context = await browser.newContext(DESKTOP);
		const page = await context.newPage();
		await signIn(page, serve.url);
		await account(page, "pair-device");
		const hint = page.getByTestId("pairing-loopback");
		await hint.waitFor({ timeout: STEP });
		const text = (await hint.textContent()) ?? "";
		assert.match(text, /--host 0\.0\.0\.0 --ui-password/);
		assert.match(text, /bin\/pier\.js pair/, "the pair command as this daemon was started");
		assert.equal(await page.getByTestId("pairing-qr").count(), 0, "no QR code a phone could not open");
		// The link still signs in another browser on this machine.
		assert.match(await page.getByTestId("pairing-link").inputValue(), /^http:\/\/127\.0\.0\.1:\d+\/#pair=/);
		await context.close();
	});

	test("bound wide, the QR code holds the network address, decodes to the link, and signs a phone in", async () => {
		const wideDir = tempDir("pier-pairing-wide-");
		const wide = await startChamber(wideDir.path, ["--no-examples", "--host", "0.0.0.0"]);
		try {
			const context = await browser.newContext(DESKTOP);
			const page = await context.newPage();
			await signIn(page, wide.url.replace("0.0.0.0", "127.0.0.1"));
			await account(page, "pair-device");
			const link = await (await page.getByTestId("pairing-link").elementHandle())!.inputValue();
			assert.match(link, /#pair=/);
			assert.doesNotMatch(link, /\/\/(127\.|0\.0\.0\.0|localhost)/, "a phone's address, not this machine's");
			assert.equal(await page.getByTestId("pairing-loopback").count(), 0);
			assert.equal(await decodeQr(page), link, "the QR code holds exactly the link");
			const phone = await browser.newContext(PHONE);
			const other = await phone.newPage();
			await other.goto(link);
			await other.getByTestId("session-list").waitFor({ timeout: STEP });
			await phone.close();
			await context.close();
		} finally {
			await wide.stop();
			wideDir[Symbol.dispose]();
		}
	});

	test("a daemon without a password shows no password field on its sign-in page, and names the pair command", async () => {
		const bareDir = tempDir("pier-pairing-bare-");
		const bare = await startServe(["--no-examples", "--state-dir", join(bareDir.path, "state")], {
			agentDir: join(bareDir.path, "agent"),
			cwd: bareDir.path,
		});
		try {
			const context = await browser.newContext(PHONE);
			const page = await context.newPage();
			await page.goto(bare.url);
			const hint = page.getByTestId("login-no-password");
			await hint.waitFor({ timeout: STEP });
			assert.match((await hint.textContent()) ?? "", /node \S*bin\/pier\.js pair/);
			assert.equal(await page.getByTestId("login-password").count(), 0, "no field that cannot work");
			await context.close();
		} finally {
			await bare.stop();
			bareDir[Symbol.dispose]();
		}
	});

	test("signed out, a link from pier pair signs the browser in again", async () => {
		const context = await browser.newContext(DESKTOP);
		const page = await context.newPage();
		await signIn(page, serve.url);
		await account(page, "sign-out");
		await page.getByTestId("login-password").waitFor({ timeout: STEP });
		const paired = await runPier(["pair", "--state-dir", join(dir.path, "state")], {
			agentDir: join(dir.path, "agent"),
			cwd: dir.path,
		});
		assert.equal(paired.code, 0, paired.stderr);
		await page.goto(paired.stdout.trim().split("\n")[0]!);
		await page.getByTestId("session-list").waitFor({ timeout: STEP });
		await context.close();
	});

	test("a device token revoked in the page is refused", async () => {
		const api = await apiFor(serve.url);
		const created = await api.call<{ id: string; token: string }>("POST", "/api/auth/tokens", { name: "old phone" });
		assert.equal(created.status, 200, JSON.stringify(created.body));
		const device = new ApiClient(serve.url);
		device.bearer = created.body.token;
		assert.equal((await device.call("GET", "/api/pi/sessions")).status, 200);

		const context = await browser.newContext(DESKTOP);
		const page = await context.newPage();
		await signIn(page, serve.url);
		await account(page, "pair-device");
		const row = page.locator(`[data-testid="device"][data-device-id="${created.body.id}"]`);
		await row.waitFor({ timeout: STEP });
		assert.match((await row.textContent()) ?? "", /old phone.*created .*never used|old phone.*used/);
		await row.getByTestId("revoke-device").click();
		await row.waitFor({ state: "detached", timeout: STEP });
		await until(async () => (await device.call("GET", "/api/pi/sessions")).status === 401, "the revoked token refused");

		// Another signed-in browser is listed as one, and revoked from here like a token.
		const other = await apiFor(serve.url);
		const otherId = (await other.call<{ current: string }>("GET", "/api/auth/credentials")).body.current;
		await page.reload();
		await account(page, "pair-device");
		const browserRow = page.locator(`[data-testid="credential"][data-credential-id="${otherId}"]`);
		await browserRow.waitFor({ timeout: STEP });
		assert.match((await browserRow.textContent()) ?? "", /Browser \(password\)/);
		await browserRow.getByTestId("revoke-credential").click();
		await browserRow.waitFor({ state: "detached", timeout: STEP });
		assert.equal((await other.call("GET", "/api/pi/sessions")).status, 401, "the revoked browser is refused");
		await context.close();
	});
});

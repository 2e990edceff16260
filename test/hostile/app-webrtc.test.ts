/**
 * Finding 9: an app surface reached the network over WebRTC (STUN packets reached a loopback UDP listener); CSP's
 * connect-src does not cover ICE, and this Chromium has no `webrtc` directive. The hostile apps
 * (test/fixtures/hostile/webrtc-ext.ts) try RTCPeerConnection directly, from nested frames made every way the DOM
 * allows, and by navigating their frame to a document of their own. Guarantee: no packet reaches the listener.
 * A control page outside the sandbox, in the same browser, proves the listener would have heard it.
 */
import assert from "node:assert/strict";
import { createSocket, type Socket } from "node:dgram";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
	DESKTOP,
	launchBrowser,
	newSession,
	PASSWORD,
	STEP,
	send,
	signIn,
	until,
} from "../chamber-web/browser-helpers.js";
import { type Serve, startServe } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

/** ICE gathering against an unreachable STUN server retries for seconds; this is well past its first packets. */
const WAIT_MS = 8000;

describe("hostile app surfaces: no WebRTC, however it is asked for", () => {
	const dir = tempDir("pier-hostile-rtc-");
	let serve: Serve;
	let browser: Browser;
	let page: Page;
	let stun: Socket;
	let port: number;
	let control: Server;
	const packets: { at: number; bytes: number }[] = [];
	const pageErrors: string[] = [];

	before(async () => {
		stun = createSocket("udp4");
		stun.on("message", (message) => packets.push({ at: Date.now(), bytes: message.length }));
		await new Promise<void>((done) => stun.bind(0, "127.0.0.1", done));
		port = stun.address().port;
		control = createServer((_req, res) => {
			res.writeHead(200, { "content-type": "text/html" });
			res.end(
				`<script>var pc = new RTCPeerConnection({ iceServers: [{ urls: "stun:127.0.0.1:${port}" }] }); pc.createDataChannel("x"); pc.createOffer().then(function (o) { return pc.setLocalDescription(o); });</script>`,
			);
		});
		await new Promise<void>((done) => control.listen(0, "127.0.0.1", done));
		serve = await startServe(
			[
				"-e",
				join(REPO_ROOT, "test/fixtures/hostile/webrtc-ext.ts"),
				"--state-dir",
				join(dir.path, "state"),
				"--ui-password",
				PASSWORD,
			],
			{ agentDir: join(dir.path, "agent"), cwd: dir.path },
		);
		browser = await launchBrowser();
		const context = await browser.newContext(DESKTOP);
		context.setDefaultTimeout(STEP);
		page = await context.newPage();
		page.on("pageerror", (error) => pageErrors.push(error.message));
		await signIn(page, serve.url);
		await newSession(page);
	});

	after(async () => {
		await browser?.close().catch(() => {});
		await serve?.stop();
		stun?.close();
		control?.close();
		dir[Symbol.dispose]();
	});

	const frameLog = async (appId: string) => {
		const element = await page.locator(`[data-testid="app-frame"][data-app-id="${appId}"]`).elementHandle();
		const frame = await element?.contentFrame();
		return frame ? ((await frame.evaluate(`document.body ? document.body.innerText : ""`)) as string) : "";
	};

	test("six hostile apps, every trick: not one STUN packet in a generous wait", async () => {
		await send(page, `/rtc-mount ${port}`);
		await until(async () => (await frameLog("rtc-main")).includes("done: yes"), "the main attack to finish").catch(
			async (e) => {
				throw new Error(`${e.message}\n${await frameLog("rtc-main")}`);
			},
		);
		await page.waitForTimeout(WAIT_MS);
		assert.deepEqual(packets, [], "the STUN listener heard nothing from the app surfaces");

		// The attempts really ran, and each was stopped where the report says.
		const main = await frameLog("rtc-main");
		for (const line of [
			"direct: RTCPeerConnection is not defined",
			"webkit: webkitRTCPeerConnection is not defined",
			"from a prototype: RTCDataChannel is not defined",
			"srcdoc frame appended: an app surface may not create frames",
			"blank frame's realm: an app surface may not create frames",
			"innerHTML: an app surface may not create frames",
			"insertAdjacentHTML: an app surface may not create frames",
			"outerHTML: an app surface may not create frames",
			"declarative shadow DOM: an app surface may not create frames",
			"contextual fragment: an app surface may not create frames",
			"DOMParser and importNode: an app surface may not create frames",
			"closed shadow root: an app surface may not create frames",
			"template: an app surface may not create frames",
			"object element: an app surface may not create frames",
			"document.write: an app surface may not create frames",
			"execCommand: an app surface may not create frames",
		]) {
			assert.ok(main.includes(line), `${line}\n--- the app's log:\n${main}`);
		}
		// A worker is constructed, then refused by the CSP (blob: is no script source); workers have no WebRTC anyway.
		assert.doesNotMatch(main, /^popup: ran$/m, "no popup");
		for (const appId of ["rtc-initial", "rtc-shadow"]) {
			assert.match(await frameLog(appId), /not shown: an app surface may not contain frames/, appId);
		}
		// The navigating apps never got their document: the chamber page's frame-src refuses it (Chromium shows its
		// "content is blocked" page in the frame instead).
		for (const appId of ["rtc-nav-data", "rtc-nav-blob", "rtc-nav-meta"]) {
			const element = await page.locator(`[data-testid="app-frame"][data-app-id="${appId}"]`).elementHandle();
			const url = (await element?.contentFrame())?.url() ?? "";
			assert.doesNotMatch(url, /^(data|blob):/, `${appId} is at ${url}`);
			assert.match(await frameLog(appId), /^(navigating|This content is blocked\b.*)$/, appId);
		}
		assert.deepEqual(pageErrors, []);
	});

	test("control: the same browser outside the sandbox does reach the listener", async () => {
		const before = packets.length;
		const plain = await browser.newPage();
		try {
			await plain.goto(`http://127.0.0.1:${(control.address() as AddressInfo).port}/`);
			await until(() => packets.length > before, "a STUN packet from the control page", WAIT_MS + STEP);
		} finally {
			await plain.close();
		}
	});
});

/**
 * Web Push over HTTP: the daemon in-process with the UI test extension, devices that subscribe with keys made here
 * as a browser makes them, and a local push service (test/helpers/push-endpoint.ts) that checks each message's
 * VAPID signature and decrypts it as the browser would.
 */
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import webpush from "web-push";
import { type Notice, NoticeTracker, noticeOf as makeNotice } from "../../src/chamber/push/notice.js";
import { fetchHeaders } from "../../src/chamber/push/service.js";
import { PushStore } from "../../src/chamber/push/store.js";
import { loadVapidKeys } from "../../src/chamber/push/vapid.js";
import { type RunningChamber, startChamber } from "../../src/chamber/server.js";
import { ApiClient } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { type BrowserSubscription, PushEndpoint, type PushMessage } from "../helpers/push-endpoint.js";

const PASSWORD = "push password";
const FIXTURE = join(REPO_ROOT, "test/fixtures/chamber/ui-ext.ts");

const noticeOf = (m: PushMessage) => JSON.parse(m.text) as Notice;

describe("Web Push", () => {
	const dir = tempDir("pier-push-");
	const stateDir = join(dir.path, "state");
	let chamber: RunningChamber;
	let endpoint: PushEndpoint;
	/** The one who acts (prompts, answers): a device token with no subscription. */
	let actor: ApiClient;

	async function browser(): Promise<ApiClient> {
		const client = new ApiClient(chamber.url);
		assert.equal((await client.login(PASSWORD)).status, 200);
		return client;
	}

	async function subscribed(client: ApiClient): Promise<BrowserSubscription> {
		const subscription = endpoint.subscribe();
		const { id: _id, ...body } = subscription;
		const reply = await client.call("POST", "/api/push/subscribe", { ...body, expirationTime: null });
		assert.equal(reply.status, 201, JSON.stringify(reply.body));
		return subscription;
	}

	async function namedSession(name: string): Promise<string> {
		const created = await actor.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {});
		const id = created.body.session.id;
		assert.equal((await actor.call("PATCH", `/api/pi/sessions/${id}`, { name })).status, 200);
		return id;
	}

	/** A prompt to the demo model, answered: the run starts and finishes. */
	async function runOnce(id: string): Promise<void> {
		const stream = actor.events(`session=${id}`);
		await stream.waitFor((e) => e.event === "session.snapshot" || e.event === "session.commands", "the session");
		assert.equal((await actor.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" })).status, 202);
		await stream.waitFor((e) => e.event === "agent.end", "the run's end");
		stream.close();
	}

	before(async () => {
		process.env.PI_CODING_AGENT_DIR = join(dir.path, "agent");
		endpoint = await PushEndpoint.start();
		chamber = await startChamber({
			host: "127.0.0.1",
			port: 0,
			stateDir,
			defaultCwd: dir.path,
			password: PASSWORD,
			extensionPaths: [FIXTURE],
		});
		actor = new ApiClient(chamber.url);
		actor.bearer = chamber.auth.createDeviceToken("actor").token;
	});

	after(async () => {
		await chamber?.close();
		await endpoint?.close();
		dir[Symbol.dispose]();
	});

	test("the VAPID key pair is made once, kept 0600 in the state directory, and the same after a restart", async () => {
		const first = await actor.call<{ publicKey: string }>("GET", "/api/push/vapid-key");
		assert.equal(first.status, 200);
		assert.equal(Buffer.from(first.body.publicKey, "base64url").length, 65);
		const file = join(stateDir, "vapid.json");
		assert.equal(statSync(file).mode & 0o777, 0o600);
		const again = await actor.call<{ publicKey: string }>("GET", "/api/push/vapid-key");
		assert.equal(again.body.publicKey, first.body.publicKey);
		// What a restarted daemon reads.
		assert.equal(loadVapidKeys(file).publicKey, first.body.publicKey);
		assert.ok(!JSON.stringify(first.body).includes(JSON.parse(readFileSync(file, "utf8")).privateKey));
	});

	test("a VAPID file that is not a key pair is an error naming it, never silently replaced", () => {
		const broken = join(dir.path, "broken-vapid.json");
		writeFileSync(broken, JSON.stringify({ publicKey: "abc", privateKey: "def" }), { mode: 0o644 });
		assert.throws(() => loadVapidKeys(broken), /broken-vapid\.json: publicKey \(65 bytes\).*remove the file/);
		assert.equal(statSync(broken).mode & 0o777, 0o600, "the file is made private even so");
		assert.deepEqual(JSON.parse(readFileSync(broken, "utf8")), { publicKey: "abc", privateKey: "def" });
	});

	test("push routes need a credential, a same-origin request, and a subscription a browser could make", async () => {
		const anonymous = new ApiClient(chamber.url);
		assert.equal((await anonymous.call("GET", "/api/push/vapid-key")).status, 401);
		assert.equal((await anonymous.call("GET", "/api/push/settings")).status, 401);
		const good = endpoint.subscribe();
		const body = { endpoint: good.endpoint, keys: good.keys };
		const refused = async (changed: object, pattern: RegExp) => {
			const reply = await actor.call<{ error: { code: string; message: string } }>("POST", "/api/push/subscribe", {
				...body,
				...changed,
			});
			assert.equal(reply.status, 400, JSON.stringify(reply.body));
			assert.match(reply.body.error.message, pattern);
		};
		await refused({ endpoint: "http://push.example.com/x" }, /endpoint: must be an https: URL/);
		await refused({ endpoint: "not a url" }, /endpoint: not a URL/);
		await refused({ endpoint: `https://user:pw@push.example.com/x` }, /no user name or password/);
		await refused({ endpoint: `https://push.example.com/${"x".repeat(2048)}` }, /\/endpoint/);
		const offCurve = Buffer.alloc(65, 7);
		offCurve[0] = 4;
		await refused({ keys: { ...good.keys, p256dh: offCurve.toString("base64url") } }, /keys\.p256dh: must be/);
		await refused({ keys: { ...good.keys, auth: Buffer.alloc(17).toString("base64url") } }, /keys\.auth: must be 16/);
		await refused({ keys: { ...good.keys, extra: "x" } }, /\/keys/);

		const big = await actor.call("PUT", "/api/push/settings", {
			finished: true,
			waiting: true,
			pad: "x".repeat(17_000),
		});
		assert.equal(big.status, 413, "a body past 16 KiB");
		const crossSite = await fetch(new URL("/api/push/subscribe", chamber.url), {
			method: "POST",
			headers: {
				authorization: `Bearer ${actor.bearer}`,
				"content-type": "application/json",
				origin: "http://evil.example",
			},
			body: JSON.stringify(body),
		});
		assert.equal(crossSite.status, 403);
		const settings = await actor.call<{ subscribed: boolean }>("GET", "/api/push/settings");
		assert.equal(settings.body.subscribed, false, "nothing refused was stored");
	});

	test("a finished run reaches a device with no page open; the decrypted payload names the session", async () => {
		const phone = await browser();
		const publicKey = (await phone.call<{ publicKey: string }>("GET", "/api/push/vapid-key")).body.publicKey;
		const subscription = await subscribed(phone);
		const settings = await phone.call<{ subscribed: boolean; pushService: string }>("GET", "/api/push/settings");
		assert.deepEqual(settings.body, {
			settings: { finished: true, waiting: true },
			subscribed: true,
			pushService: endpoint.origin,
		});

		const id = await namedSession("Deploy the docs");
		await runOnce(id);
		const message = await endpoint.waitFor((m) => m.subscription === subscription.id, "the finished run");
		const notice = noticeOf(message);
		assert.equal(notice.event, "finished");
		assert.equal(notice.sessionId, id);
		assert.equal(notice.session, "Deploy the docs");
		assert.match(notice.body, /Deploy the docs: the run finished/);
		assert.equal(message.claims.aud, endpoint.origin);
		assert.equal(message.vapidKey, publicKey, "signed with the key the browser subscribed with");
		assert.equal(message.headers["content-encoding"], "aes128gcm");
		await phone.call("POST", "/api/auth/logout", {});
	});

	test("a question reaches the device with its dialog, and a confirm can be answered from it", async () => {
		const phone = await browser();
		const subscription = await subscribed(phone);
		const id = await namedSession("Ask first");
		const stream = actor.events(`session=${id}`);
		await stream.waitFor((e) => e.event === "session.snapshot" || e.event === "session.commands", "the session");
		assert.equal((await actor.call("POST", `/api/pi/sessions/${id}/command`, { command: "t-confirm" })).status, 202);
		const message = await endpoint.waitFor(
			(m) => m.subscription === subscription.id && noticeOf(m).event === "waiting",
			"the question",
		);
		const notice = noticeOf(message);
		assert.equal(notice.session, "Ask first");
		assert.equal(notice.dialog?.method, "confirm");
		assert.equal(notice.dialog?.title, "Sure?");
		// What the service worker does for the notification's "Yes": the session's own dialog route.
		const answer = await phone.call("POST", `/api/pi/sessions/${id}/dialogs/${notice.dialog?.requestId}`, {
			confirmed: true,
		});
		assert.equal(answer.status, 200);
		await stream.waitFor((e) => e.event === "extension.dialog.dismiss" && e.payload.reason === "answered", "answered");
		stream.close();
		await phone.call("POST", "/api/auth/logout", {});
	});

	test("a device with a page open, or with the event switched off, is not pushed to", async () => {
		const laptop = await browser();
		const tablet = await browser();
		const laptopSub = await subscribed(laptop);
		const tabletSub = await subscribed(tablet);
		const id = await namedSession("Quiet please");

		// The laptop's page holds the daemon stream: the page shows the notification itself.
		const page = laptop.events("");
		assert.equal(await page.ready, 200);
		await runOnce(id);
		const tabletFirst = await endpoint.waitFor((m) => m.subscription === tabletSub.id, "the tablet's first");
		page.close();

		// The tablet switches "run finished" off; the laptop, its page closed, is pushed to again.
		const off = await tablet.call("PUT", "/api/push/settings", { finished: false, waiting: true });
		assert.deepEqual((off.body as { settings: unknown }).settings, { finished: false, waiting: true });
		await runOnce(id);
		await endpoint.waitFor((m) => m.subscription === laptopSub.id, "the laptop, its page closed");
		// Sends for one event go out together: by the time a later event's message arrived, an earlier one would have.
		await runOnce(id);
		await endpoint.waitFor(
			(m) =>
				m.subscription === laptopSub.id &&
				endpoint.messages.filter((n) => n.subscription === laptopSub.id).length === 2,
			"the laptop's second",
		);
		assert.deepEqual(
			endpoint.messages.filter((m) => m.subscription === tabletSub.id),
			[tabletFirst],
			"the tablet got only the run it had not switched off",
		);
		assert.equal(
			endpoint.messages.filter((m) => m.subscription === laptopSub.id).length,
			2,
			"none while its page was open",
		);
		await laptop.call("POST", "/api/auth/logout", {});
		await tablet.call("POST", "/api/auth/logout", {});
	});

	test("signing out or revoking a device removes its subscription; a push service's 410 does too", async () => {
		const browserDevice = await browser();
		const token = new ApiClient(chamber.url);
		const minted = await actor.call<{ id: string; token: string }>("POST", "/api/auth/tokens", { name: "watch" });
		token.bearer = minted.body.token;
		const gone = await browser();
		const browserSub = await subscribed(browserDevice);
		const tokenSub = await subscribed(token);
		const goneSub = await subscribed(gone);
		const pushJson = () => readFileSync(join(stateDir, "push.json"), "utf8");
		for (const s of [browserSub, tokenSub, goneSub]) assert.ok(pushJson().includes(s.endpoint));

		await browserDevice.call("POST", "/api/auth/logout", {});
		assert.equal((await actor.call("DELETE", `/api/auth/credentials/${minted.body.id}`)).status, 200);
		endpoint.gone.add(goneSub.id);
		const id = await namedSession("After the revocation");
		await runOnce(id);
		await until(() => !pushJson().includes(goneSub.endpoint), "the gone subscription dropped");
		assert.ok(!pushJson().includes(browserSub.endpoint), "the signed-out browser's subscription is gone");
		assert.ok(!pushJson().includes(tokenSub.endpoint), "the revoked token's subscription is gone");
		assert.equal(endpoint.messages.filter((m) => m.subscription === browserSub.id).length, 0);
		assert.equal(endpoint.messages.filter((m) => m.subscription === tokenSub.id).length, 0);
		const view = await gone.call<{ subscribed: boolean }>("GET", "/api/push/settings");
		assert.equal(view.body.subscribed, false);
		assert.equal((await token.call("GET", "/api/push/settings")).status, 401);
		await gone.call("POST", "/api/auth/logout", {});
	});

	test("the local push service refuses a tampered, misaddressed or expired VAPID token (its check is real)", async () => {
		const keys = webpush.generateVAPIDKeys();
		const s = endpoint.subscribe();
		const send = async (options: { audience?: string; expiration?: number; tamper?: boolean; otherKey?: boolean }) => {
			const vapid = webpush.getVapidHeaders(
				options.audience ?? endpoint.origin,
				"mailto:test@localhost",
				keys.publicKey,
				keys.privateKey,
				"aes128gcm",
				options.expiration,
			);
			let authorization = vapid.Authorization;
			if (options.tamper) {
				// Another claim under the same signature: the contact changed.
				authorization = authorization.replace(/t=([^.]+)\.([^.]+)\./, (_all, head: string, body: string) => {
					const claims = JSON.parse(Buffer.from(body, "base64url").toString());
					claims.sub = "mailto:attacker@localhost";
					return `t=${head}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.`;
				});
			}
			if (options.otherKey)
				authorization = authorization.replace(/k=.*$/, `k=${webpush.generateVAPIDKeys().publicKey}`);
			const request = webpush.generateRequestDetails({ endpoint: s.endpoint, keys: s.keys }, "payload", {
				TTL: 60,
				contentEncoding: "aes128gcm",
				vapidDetails: { subject: "mailto:test@localhost", publicKey: keys.publicKey, privateKey: keys.privateKey },
			});
			const answer = await fetch(s.endpoint, {
				method: "POST",
				headers: { ...fetchHeaders(request.headers), Authorization: authorization },
				body: request.body,
			});
			return { status: answer.status, reason: await answer.text() };
		};
		assert.deepEqual(await send({}), { status: 201, reason: "created" }, "a good one passes");
		assert.equal(noticeText(endpoint.messages.at(-1)), "payload");
		assert.deepEqual(await send({ tamper: true }), { status: 403, reason: "JWT signature does not verify with k" });
		assert.deepEqual(await send({ otherKey: true }), { status: 403, reason: "JWT signature does not verify with k" });
		const wrongAud = await send({ audience: "http://127.0.0.1:1" });
		assert.equal(wrongAud.status, 403);
		assert.match(wrongAud.reason, /^aud http:\/\/127\.0\.0\.1:1 is not/);
		const expired = await send({ expiration: Math.floor(Date.now() / 1000) - 10 });
		assert.deepEqual(expired, { status: 403, reason: "exp is not in the future" });
	});

	test("a notice escapes control and bidi characters and cuts long names", () => {
		const notice = makeNotice(
			"waiting",
			{ id: "abc", name: `evil\u202Egnp.exe${"x".repeat(100)}` },
			{
				requestId: "r1",
				method: "confirm",
				title: "Run\nrm -rf?",
			},
		);
		assert.ok(notice.session.startsWith("evil\\u202Egnp.exe"), notice.session);
		assert.equal(notice.session.length, 60);
		assert.ok(notice.session.endsWith("…"));
		assert.equal(notice.dialog?.title, "Run\\u000Arm -rf?");
		// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
		assert.ok(!/[\u0000-\u001f\u202a-\u202e]/.test(notice.body));
		const tracker = new NoticeTracker();
		assert.deepEqual(tracker.observe({ id: "s", streaming: true }), []);
		assert.deepEqual(tracker.observe({ id: "s", streaming: true, waiting: 1 }), ["waiting"]);
		assert.deepEqual(tracker.observe({ id: "s", streaming: false, waiting: 1 }), ["finished"]);
		assert.deepEqual(tracker.observe({ id: "s", streaming: false }), []);
	});

	test("at most so many devices keep a record; one past the cap is refused, a known one may still change", () => {
		const store = new PushStore(join(dir.path, "capped-push.json"), 3);
		for (const id of ["a", "b", "c"]) {
			assert.ok(store.hasRoomFor(id));
			store.set(id, { settings: { finished: true, waiting: false } });
		}
		assert.equal(store.hasRoomFor("d"), false);
		assert.equal(store.hasRoomFor("a"), true);
		assert.deepEqual(
			store.prune((id) => id !== "b"),
			["b"],
		);
		assert.equal(store.hasRoomFor("d"), true);
	});
});

function noticeText(m: PushMessage | undefined): string | undefined {
	return m?.text;
}

async function until(check: () => boolean, what: string): Promise<void> {
	const deadline = Date.now() + 15_000;
	while (!check()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

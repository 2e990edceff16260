/**
 * A local push service standing in for a browser vendor's (FCM, Mozilla's autopush), which tests cannot reach. It
 * does what one must do with a message before a browser sees it, with node:crypto only and no push library, so it
 * checks the daemon's use of `web-push` rather than repeating it:
 *
 * - RFC 8292 VAPID: `Authorization: vapid t=<JWT>, k=<public key>`; the JWT is ES256, signed by that key, with
 *   `aud` the endpoint's origin, `exp` in the future (at most 24 h) and a `sub`. Anything else is 401/403.
 * - RFC 8291/8188: the body is aes128gcm, decrypted with the subscription's private key and auth secret, as the
 *   browser would (ECDH P-256, HKDF-SHA-256, AES-128-GCM).
 *
 * Subscriptions are made here as a browser makes them (`subscribe()`: a P-256 key pair and a 16-byte secret).
 */
import { createDecipheriv, createECDH, createPublicKey, type ECDH, hkdfSync, randomBytes, verify } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface BrowserSubscription {
	id: string;
	endpoint: string;
	keys: { p256dh: string; auth: string };
}

export interface PushMessage {
	subscription: string;
	/** The decrypted payload, as text. */
	text: string;
	claims: { aud: string; exp: number; sub: string };
	/** The VAPID public key the message was signed with (`k=`). */
	vapidKey: string;
	headers: IncomingMessage["headers"];
}

export interface Refusal {
	subscription: string;
	status: number;
	reason: string;
}

interface Held {
	ecdh: ECDH;
	auth: Buffer;
}

export class PushEndpoint {
	readonly messages: PushMessage[] = [];
	readonly refusals: Refusal[] = [];
	/** Subscriptions answered 410 Gone from now on (RFC 8030: the browser unsubscribed). */
	readonly gone = new Set<string>();
	private readonly held = new Map<string, Held>();
	private waiters: (() => void)[] = [];
	private constructor(
		private readonly server: Server,
		readonly origin: string,
	) {}

	static async start(): Promise<PushEndpoint> {
		let endpoint: PushEndpoint | undefined;
		const server = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on("data", (c: Buffer) => chunks.push(c));
			req.on("end", () => {
				const { status, reason } = endpoint!.receive(req, Buffer.concat(chunks));
				res.writeHead(status, { "content-type": "text/plain" }).end(reason);
			});
		});
		await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
		const { port } = server.address() as AddressInfo;
		endpoint = new PushEndpoint(server, `http://127.0.0.1:${port}`);
		return endpoint;
	}

	/** A new subscription, as `pushManager.subscribe` makes one. */
	subscribe(): BrowserSubscription {
		const ecdh = createECDH("prime256v1");
		ecdh.generateKeys();
		const auth = randomBytes(16);
		const id = randomBytes(8).toString("hex");
		this.held.set(id, { ecdh, auth });
		return {
			id,
			endpoint: `${this.origin}/push/${id}`,
			keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
		};
	}

	async waitFor(check: (m: PushMessage) => boolean, what: string, timeoutMs = 15_000): Promise<PushMessage> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const found = this.messages.find(check);
			if (found) return found;
			if (Date.now() > deadline) throw new Error(`no push message: ${what}; refused: ${JSON.stringify(this.refusals)}`);
			await new Promise<void>((wake) => {
				this.waiters.push(wake);
				setTimeout(wake, 200).unref();
			});
		}
	}

	close(): Promise<void> {
		return new Promise((done) => this.server.close(() => done()));
	}

	private receive(req: IncomingMessage, body: Buffer): { status: number; reason: string } {
		const id = /^\/push\/([0-9a-f]+)$/.exec(req.url ?? "")?.[1] ?? "";
		const answer = (status: number, reason: string) => {
			if (status >= 300) this.refusals.push({ subscription: id, status, reason });
			for (const wake of this.waiters.splice(0)) wake();
			return { status, reason };
		};
		const held = this.held.get(id);
		if (req.method !== "POST" || !held) return answer(404, "no such subscription");
		if (this.gone.has(id)) return answer(410, "unsubscribed");
		const vapid = checkVapid(req.headers.authorization, this.origin);
		if (typeof vapid === "string") return answer(vapid.startsWith("no ") ? 401 : 403, vapid);
		if (req.headers["content-encoding"] !== "aes128gcm") return answer(415, "Content-Encoding must be aes128gcm");
		if (!/^\d+$/.test(String(req.headers.ttl ?? ""))) return answer(400, "TTL header required");
		let text: string;
		try {
			text = decrypt(body, held).toString("utf8");
		} catch (error) {
			return answer(400, `cannot decrypt: ${(error as Error).message}`);
		}
		this.messages.push({ subscription: id, text, claims: vapid.claims, vapidKey: vapid.key, headers: req.headers });
		return answer(201, "created");
	}
}

/** The claims of a VAPID header that verifies, or why it does not. */
export function checkVapid(
	header: string | undefined,
	origin: string,
	now = Date.now(),
): { claims: PushMessage["claims"]; key: string } | string {
	const match = /^vapid t=([A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? "");
	if (!match) return "no vapid authorization";
	const [, token = "", key = ""] = match;
	const [head = "", body = "", signature = ""] = token.split(".");
	let claims: PushMessage["claims"];
	try {
		const alg = (JSON.parse(Buffer.from(head, "base64url").toString()) as { alg?: string }).alg;
		if (alg !== "ES256") return `JWT alg ${alg}, not ES256`;
		claims = JSON.parse(Buffer.from(body, "base64url").toString()) as PushMessage["claims"];
	} catch {
		return "JWT not JSON";
	}
	const point = Buffer.from(key, "base64url");
	if (point.length !== 65 || point[0] !== 4) return "k is not an uncompressed P-256 key";
	const publicKey = createPublicKey({
		format: "jwk",
		key: {
			kty: "EC",
			crv: "P-256",
			x: point.subarray(1, 33).toString("base64url"),
			y: point.subarray(33).toString("base64url"),
		},
	});
	const signed = verify(
		"sha256",
		Buffer.from(`${head}.${body}`),
		{ key: publicKey, dsaEncoding: "ieee-p1363" },
		Buffer.from(signature, "base64url"),
	);
	if (!signed) return "JWT signature does not verify with k";
	if (claims.aud !== origin) return `aud ${claims.aud} is not ${origin}`;
	const seconds = now / 1000;
	if (typeof claims.exp !== "number" || claims.exp <= seconds) return "exp is not in the future";
	if (claims.exp > seconds + 24 * 60 * 60) return "exp is more than 24 h away";
	if (typeof claims.sub !== "string" || !/^(mailto:|https:)/.test(claims.sub)) return "sub is not mailto: or https:";
	return { claims, key };
}

/** RFC 8291 on RFC 8188: one aes128gcm record, as a browser decrypts it. */
function decrypt(body: Buffer, held: Held): Buffer {
	const salt = body.subarray(0, 16);
	const recordSize = body.readUInt32BE(16);
	const idLength = body[20] ?? 0;
	const senderKey = body.subarray(21, 21 + idLength);
	const record = body.subarray(21 + idLength);
	if (idLength !== 65) throw new Error("keyid is not the sender's P-256 key");
	if (record.length > recordSize) throw new Error("more than one record");
	const shared = held.ecdh.computeSecret(senderKey);
	const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), held.ecdh.getPublicKey(), senderKey]);
	const ikm = Buffer.from(hkdfSync("sha256", shared, held.auth, keyInfo, 32));
	const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
	const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
	const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
	decipher.setAuthTag(record.subarray(record.length - 16));
	const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
	let end = padded.length - 1;
	while (end >= 0 && padded[end] === 0) end--;
	if (padded[end] !== 2) throw new Error("the last record's delimiter is not 0x02");
	return padded.subarray(0, end);
}

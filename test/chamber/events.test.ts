/** The replay window's bounds and the per-client send buffer, on real sockets where it matters. */
import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { EventChannel, type EventSink } from "../../src/chamber/events/channel.js";
import { REPLAY_MAX_BYTES, REPLAY_MAX_EVENTS, ReplayLog } from "../../src/chamber/events/replay-log.js";
import { CLIENT_BUFFER_BYTES, SseClient } from "../../src/chamber/events/sse.js";

test("the window keeps the newest 1,024 events: a cursor at its edge replays, one past it does not", () => {
	assert.equal(REPLAY_MAX_EVENTS, 1024);
	const log = new ReplayLog();
	for (let seq = 1; seq <= 1500; seq++) log.append(seq, `e${seq}`);
	assert.equal(log.size, 1024);
	const edge = log.after(1500 - 1024, 1500);
	assert.equal(edge?.length, 1024);
	assert.equal(edge?.[0], "e477");
	assert.equal(log.after(1500 - 1025, 1500), undefined);
	assert.deepEqual(log.after(1500, 1500), []);
	assert.equal(log.after(1501, 1500), undefined, "a cursor from the future resyncs");
	assert.equal(log.after(-1, 1500), undefined);
});

test("evicted events are let go: the log never holds much more than its window", () => {
	const log = new ReplayLog(100);
	let most = 0;
	for (let seq = 1; seq <= 20_000; seq++) {
		log.append(seq, `e${seq}`);
		most = Math.max(most, log.slots);
	}
	assert.equal(log.size, 100);
	assert.ok(most <= 2 * 100 + 1, `the log held ${most} slots for a window of 100`);
	assert.deepEqual(log.after(19_998, 20_000), ["e19999", "e20000"]);
	assert.equal(log.after(19_900, 20_000)?.[0], "e19901", "the window is the newest 100");
	assert.equal(log.after(19_899, 20_000), undefined);
});

test("the window keeps at most 8 MiB of encoded events", () => {
	assert.equal(REPLAY_MAX_BYTES, 8 * 1024 * 1024);
	const log = new ReplayLog();
	const MiB = "x".repeat(1024 * 1024);
	for (let seq = 1; seq <= 8; seq++) log.append(seq, MiB);
	assert.equal(log.size, 8, "exactly 8 MiB fits");
	log.append(9, "y");
	assert.equal(log.size, 8, "one byte more evicts the oldest");
	assert.equal(log.after(0, 9) === undefined, true, "event 1 is gone");
	assert.equal(log.after(1, 9)?.length, 8);
	// A single event larger than the whole window empties it: replaying across the hole would lose it.
	log.append(10, "z".repeat(REPLAY_MAX_BYTES + 1));
	assert.equal(log.size, 0);
	assert.equal(log.after(9, 10) === undefined, true);
	log.append(11, "after");
	assert.deepEqual(log.after(10, 11), ["after"]);
});

test("a channel numbers events per stream and replays in order", () => {
	const a = new EventChannel("a");
	const b = new EventChannel("b");
	a.publish("extension.status", { key: "k", text: "1" });
	a.publish("extension.status", { key: "k", text: "2" });
	b.publish("extension.status", { key: "k", text: "x" });
	assert.equal(a.latest, 2);
	assert.equal(b.latest, 1);
	const got: string[] = [];
	const sink: EventSink = { write: (frame) => got.push(frame) > 0 };
	a.attach(sink, 1);
	assert.equal(got.length, 1);
	assert.match(
		got[0]!,
		/^id: 2\nevent: extension.status\ndata: \{"version":1,"event":"extension.status","seq":2,"sessionId":"a"/,
	);
	const snapshots: string[] = [];
	a.attach({ write: (frame) => snapshots.push(frame) > 0 }, undefined, () => ({ seq: a.latest }) as never);
	assert.match(snapshots[0]!, /event: session.snapshot/);
});

test("a client that stops reading is cut off once 1 MiB waits, and the daemon's memory stays bounded", async () => {
	const channel = new EventChannel("slow");
	let client: SseClient | undefined;
	const server = createServer((_req, res) => {
		client = new SseClient(res);
		channel.attach(client, undefined);
	});
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	const { port } = server.address() as AddressInfo;
	let closed = false;
	const req = request({ host: "127.0.0.1", port, path: "/" }, (res) => {
		res.pause(); // never read
		res.on("close", () => {
			closed = true;
		});
	});
	req.on("error", () => {
		closed = true;
	});
	req.end();
	while (!client) await new Promise((r) => setTimeout(r, 10));
	const payload = "p".repeat(64 * 1024);
	let published = 0;
	// Far more than the socket buffers and the 1 MiB allowance together.
	while (channel.clientCount > 0 && published < 2000) {
		channel.publish("extension.notify", { message: payload, level: "info" });
		published++;
		if (published % 50 === 0) await new Promise((r) => setTimeout(r, 5));
	}
	assert.equal(channel.clientCount, 0, "the slow client was dropped");
	assert.ok(client.isClosed);
	assert.ok(published * payload.length > CLIENT_BUFFER_BYTES);
	for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 20));
	assert.ok(closed, "its connection was closed");
	server.close();
});

test("one frame larger than the bound (a big snapshot) may drain; frames piling up behind it may not", async () => {
	const server = createServer();
	const clients: SseClient[] = [];
	server.on("request", (_req, res) => clients.push(new SseClient(res)));
	await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
	const { port } = server.address() as AddressInfo;
	const connect = () =>
		new Promise<{ pause: () => void; resume: () => void; received: () => number; closed: () => boolean }>((done) => {
			let bytes = 0;
			let ended = false;
			const req = request({ host: "127.0.0.1", port, path: "/" }, (res) => {
				res.on("data", (chunk: Buffer) => {
					bytes += chunk.length;
				});
				res.on("close", () => {
					ended = true;
				});
				res.pause();
				done({ pause: () => res.pause(), resume: () => res.resume(), received: () => bytes, closed: () => ended });
			});
			req.on("error", () => {
				ended = true;
			});
			req.end();
		});
	try {
		const reader = await connect();
		const client = clients[0]!;
		const snapshot = `data: ${"s".repeat(3 * CLIENT_BUFFER_BYTES)}\n\n`;
		assert.ok(client.write(snapshot), "the snapshot is accepted");
		for (let i = 0; i < 5; i++) assert.ok(client.write(`data: small ${i}\n\n`), "small frames behind it too");
		reader.resume();
		for (let i = 0; i < 200 && reader.received() < snapshot.length; i++) await new Promise((r) => setTimeout(r, 10));
		assert.ok(reader.received() >= snapshot.length, "the reader got the whole snapshot");
		assert.ok(!client.isClosed);

		// A second client that never reads: two oversized frames in a row do not both get a pass.
		const stuck = await connect();
		const second = clients[1]!;
		second.write(snapshot);
		second.write(snapshot);
		let dropped = false;
		for (let i = 0; i < 50 && !dropped; i++) {
			dropped = !second.write(`data: more ${i}\n\n`);
			await new Promise((r) => setTimeout(r, 5));
		}
		assert.ok(dropped, "the stuck client was cut off");
		assert.ok(stuck.received() < 2 * snapshot.length);
	} finally {
		server.close();
		server.closeAllConnections();
	}
});

test("closing a channel ends its clients' streams, so they reconnect instead of hanging", () => {
	const channel = new EventChannel("ending");
	let ended = 0;
	channel.attach({ write: () => true, end: () => ended++ }, undefined);
	channel.attach({ write: () => true, end: () => ended++ }, undefined);
	channel.detachAll();
	assert.equal(ended, 2);
	assert.equal(channel.clientCount, 0);
});

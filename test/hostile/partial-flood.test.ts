/**
 * Finding 6 of issue 27: a QuickJS tool's `onUpdate` calls were not rate-limited: 20,000 partials of 16 KiB made
 * 331 MB of events for every reader of the session in 20 s. Against a real `pier serve`: a tool floods its
 * partials; what a chamber reader receives of them stays far below the flood, the last partial before the
 * result and the result itself arrive intact, and the daemon answers while the flood runs.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const FLOOD = join(REPO_ROOT, "test/fixtures/hostile/partial-flood");
const MiB = 1024 * 1024;
const COUNT = 5000;
const SIZE = 16 * 1024;

/** A session's event stream, read raw: the bytes of its `tool.update` events, and what the tool ended with. */
function toolEvents(url: URL, headers: Record<string, string>) {
	const seen = { updateBytes: 0, updates: 0, lastUpdate: "", end: undefined as string | undefined, agentEnd: false };
	let buffer = "";
	let wake: () => void = () => {};
	const req = request(url, { headers: { accept: "text/event-stream", ...headers } }, (res) => {
		res.setEncoding("utf8");
		res.on("data", (chunk: string) => {
			buffer += chunk;
			for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
				const block = buffer.slice(0, end);
				buffer = buffer.slice(end + 2);
				const data = block
					.split("\n")
					.filter((l) => l.startsWith("data: "))
					.map((l) => l.slice(6))
					.join("\n");
				if (!data) continue;
				const event = JSON.parse(data) as { event: string; payload: { text?: string } };
				if (event.event === "tool.update") {
					seen.updateBytes += Buffer.byteLength(block) + 2;
					seen.updates++;
					seen.lastUpdate = event.payload.text ?? "";
				} else if (event.event === "tool.end") seen.end = event.payload.text;
				else if (event.event === "agent.end") seen.agentEnd = true;
			}
			wake();
		});
	});
	req.on("error", () => {});
	req.end();
	const agentEnd = () =>
		new Promise<void>((resolve) => {
			wake = () => {
				if (seen.agentEnd) resolve();
			};
			wake();
		});
	return { seen, agentEnd, close: () => req.destroy() };
}

let serve: Serve;
let api: ApiClient;
const dir = tempDir("pier-partial-flood-");

before(async () => {
	serve = await startServe(["-e", FLOOD, "--state-dir", join(dir.path, "state"), "--ui-password", "pw"], {
		agentDir: join(dir.path, "agent"),
		cwd: dir.path,
	});
	api = new ApiClient(serve.url);
	assert.equal((await api.login("pw")).status, 200);
});
after(async () => {
	await serve?.stop();
	dir[Symbol.dispose]();
});

test("a tool flooding onUpdate reaches a reader coalesced; its last partial and result arrive intact", async (t) => {
	const { id, stream } = await api.newSession();
	const reader = toolEvents(new URL(`/api/pi/events?session=${id}`, serve.url), api.headers());
	const done = reader.agentEnd();
	const prompt = `partial_flood ${JSON.stringify({ count: COUNT, size: SIZE })}`;
	assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: prompt })).status, 202);
	await stream.waitFor((e) => e.event === "tool.start", "the tool's start", 60_000);
	// The daemon answers while the flood runs.
	assert.equal((await api.call("GET", "/api/pi/sessions")).status, 200);
	await done;
	reader.close();
	stream.close();
	const { seen } = reader;
	t.diagnostic(`${seen.updates} tool.update events, ${(seen.updateBytes / MiB).toFixed(2)} MiB of ${COUNT} × ${SIZE}`);

	// The flood is COUNT × SIZE = 80 MiB of partials; a reader gets a few a second of them.
	assert.ok(seen.updateBytes < 8 * MiB, `a reader received ${(seen.updateBytes / MiB).toFixed(2)} MiB of tool.update`);
	assert.ok(seen.updates < COUNT / 10, `${seen.updates} tool.update events`);
	assert.ok(seen.lastUpdate.startsWith(`partial ${COUNT} `), "the last partial before the result is shown");
	assert.equal(seen.end, `done ${COUNT} ${"r".repeat(SIZE)} end`, "the result arrives intact");
	assert.equal((await api.call("GET", `/api/pi/sessions/${id}`)).status, 200);
});

/**
 * rpi's provider form and a message renderer in the chamber, from a process extension written directly in JSONL
 * (test/fixtures/process/raw-provider): a prompt answered by the extension's streamed turn, with a tool call the
 * session really runs before the second turn; a custom message of the extension's type drawn by its renderer in
 * the transcript, live and in the session's view.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const RAW = join(REPO_ROOT, "test", "fixtures", "process", "raw-provider");

type Row = {
	kind: string;
	id: string;
	text?: string;
	toolCalls?: { name: string; args: unknown }[];
	rendered?: string;
};

const dir = tempDir("pier-provider-stream-chamber-");
let serve: Serve;
let api: ApiClient;

before(async () => {
	serve = await startServe(["-e", RAW, "--state-dir", join(dir.path, "state"), "--ui-password", "pw"], {
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

test("a chamber prompt streams the extension's turn, runs its tool call and finishes the second turn", async () => {
	const { id, stream } = await api.newSession();
	assert.equal((await api.call("PUT", `/api/pi/sessions/${id}/model`, { model: "raw-llm/default" })).status, 200);
	assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "tool" })).status, 202);
	const row = (e: { event: string; payload: Record<string, unknown> }) => e.payload.row as Row;
	const first = await stream.waitFor(
		(e) => e.event === "transcript.row" && row(e).kind === "assistant" && row(e).text === "calling shout",
		"the first assistant row",
	);
	assert.deepEqual(row(first).toolCalls, [{ id: "call-1", name: "shout", args: { text: "hello tool" } }]);
	const result = await stream.waitFor(
		(e) => e.event === "transcript.row" && row(e).kind === "tool_result",
		"the tool's result row",
	);
	assert.equal(row(result).text, "HELLO TOOL");
	await stream.waitFor(
		(e) => e.event === "transcript.row" && row(e).kind === "assistant" && row(e).text === "the tool said: HELLO TOOL",
		"the second assistant row",
	);
	stream.close();
});

test("a custom message of the extension's type shows what its renderer drew, live and in the view", async () => {
	const { id, stream } = await api.newSession();
	assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "/card" })).status, 202);
	const expected = "RAW CARD #7\ncontent: card body\nexpanded=false";
	const drawn = await stream.waitFor(
		(e) => e.event === "transcript.row" && (e.payload.row as Row).rendered !== undefined,
		"the rendered custom row",
	);
	const live = drawn.payload.row as Row & { customType: string };
	assert.equal(live.kind, "custom");
	assert.equal(live.customType, "raw.card");
	assert.equal(live.rendered, expected);
	const view = await api.call<{ rows: (Row & { customType?: string })[] }>("GET", `/api/pi/sessions/${id}`);
	const kept = view.body.rows.find((r) => r.id === live.id);
	assert.equal(kept?.rendered, expected, "a client loading the transcript later sees it drawn too");
	stream.close();
});

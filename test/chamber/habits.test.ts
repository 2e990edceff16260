/**
 * pi's habits through the chamber's API, against a real `pier serve` and a local OpenAI-compatible server that
 * reports usage: `!cmd`/`!!cmd` (the user_bash hook fires, the model is not called, `!!` stays out of its
 * context), `@file` attachments (inside the project only), images, usage per turn, prompt templates and skills
 * in the commands, /tree, /fork and /export.
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type ApiClient, type EventReader, type Serve, servedChamber } from "../helpers/chamber.js";
import { type FakeOpenAI, localProvider, startFakeOpenAI } from "../helpers/openai-server.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

type Row = { kind: string; id: string; text?: string; command?: string; output?: string; exitCode?: number };
type Row2 = Row & { excludeFromContext?: boolean; customType?: string; content?: Record<string, unknown> };
type View = {
	rows: Row2[];
	usage: Record<string, number | null>;
	commands: { name: string; source: string }[];
	ui: { editorText?: string };
	queue: { steering: string[]; followUp: string[] };
};

/** What the local server reports for every answer, and the prices the model is given (dollars per million). */
const REPORTED = { prompt_tokens: 1200, completion_tokens: 34, prompt_tokens_details: { cached_tokens: 200 } };
const PRICES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

describe("pi's habits in the chamber API", () => {
	const dir = tempDir("pier-habits-");
	const agentDir = join(dir.path, "agent");
	const project = join(dir.path, "project");
	let server: FakeOpenAI;
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		mkdirSync(join(agentDir, "prompts"), { recursive: true });
		mkdirSync(join(agentDir, "skills", "tidy-up"), { recursive: true });
		writeFileSync(join(agentDir, "prompts", "greet.md"), "---\ndescription: Say hello to $1\n---\nSay hello to $1.\n");
		writeFileSync(
			join(agentDir, "skills", "tidy-up", "SKILL.md"),
			"---\nname: tidy-up\ndescription: Tidies the working tree\n---\nTidy up.\n",
		);
		mkdirSync(join(project, "notes"), { recursive: true });
		writeFileSync(join(project, "notes", "plan.md"), "PLAN-CONTENT-42\n");
		writeFileSync(join(dir.path, "secret.txt"), "OUTSIDE-THE-PROJECT\n");
		symlinkSync(join(dir.path, "secret.txt"), join(project, "escape.txt"));
		// A prompt saying "slowly" streams for a second and a half: long enough to queue messages behind it.
		server = await startFakeOpenAI({
			reply: "text",
			usage: REPORTED,
			delayMs: (body) => (JSON.stringify(body.messages.at(-1)?.content ?? "").includes("slowly") ? 1500 : 0),
		});
		writeFileSync(
			join(agentDir, "models.json"),
			JSON.stringify({ providers: { local: localProvider(server.baseUrl, { cost: PRICES }) } }),
		);
		const extension = join(REPO_ROOT, "test/fixtures/chamber/bash-hook-ext.ts");
		({ serve, api } = await servedChamber(["--no-examples", "-e", extension, "--model", "local/local-model"], {
			agentDir,
			cwd: project,
			stateDir: join(dir.path, "state"),
		}));
	});
	after(async () => {
		await serve?.stop();
		await server?.close();
		dir[Symbol.dispose]();
	});

	const view = async (id: string) => {
		const reply = await api.call<View>("GET", `/api/pi/sessions/${id}`);
		assert.equal(reply.status, 200, JSON.stringify(reply.body));
		return reply.body;
	};
	const prompt = (id: string, body: Record<string, unknown>) =>
		api.call<{ error?: { code: string; message: string } }>("POST", `/api/pi/sessions/${id}/prompt`, body);
	const answered = async (stream: EventReader, after = 0) =>
		stream.waitFor((e) => e.event === "agent.end" && e.seq > after, "the answer");
	const rowOf = (stream: EventReader, match: (r: Row2) => boolean, what: string) =>
		stream.waitFor((e) => e.event === "transcript.row" && match(e.payload.row as Row2), what);

	test("!cmd runs bash through the user_bash hook without calling the model; !!cmd stays out of its context", async () => {
		const { id, stream } = await api.newSession();
		const before = server.requests.length;
		assert.equal((await prompt(id, { text: "!echo hi from bash" })).status, 202);
		const row = (await rowOf(stream, (r) => r.kind === "bash", "the bash row")).payload.row as Row2;
		assert.equal(row.command, "echo hi from bash");
		assert.equal(row.output, "hi from bash\n");
		assert.equal(row.exitCode, 0);
		assert.equal(row.excludeFromContext, false);
		assert.ok(stream.events.some((e) => e.event === "bash.start" && e.payload.command === "echo hi from bash"));
		assert.ok(stream.events.some((e) => e.event === "bash.end" && e.payload.exitCode === 0));

		assert.equal((await prompt(id, { text: "!!echo private-output" })).status, 202);
		await rowOf(stream, (r) => r.kind === "bash" && r.excludeFromContext === true, "the !! row");
		assert.equal((await prompt(id, { text: "!hooked" })).status, 202);
		const hooked = (await rowOf(stream, (r) => r.kind === "bash" && r.command === "hooked", "the hook's row")).payload
			.row as Row2;
		assert.equal(hooked.output, "answered by the hook\n", "the hook's full result is what is recorded");
		assert.equal(server.requests.length, before, "no bash run called the model");

		const hooks = (await view(id)).rows.filter((r) => r.customType === "t.user_bash").map((r) => r.content);
		assert.deepEqual(hooks, [
			{ command: "echo hi from bash", excludeFromContext: false },
			{ command: "echo private-output", excludeFromContext: true },
			{ command: "hooked", excludeFromContext: false },
		]);

		assert.equal((await prompt(id, { text: "what did bash say?" })).status, 202);
		await answered(stream);
		const sent = JSON.stringify(server.requests.at(-1)?.body.messages);
		assert.match(sent, /hi from bash/, "! output is in the model's context");
		assert.doesNotMatch(sent, /private-output/, "!! output is not");
		assert.equal((await prompt(id, { text: "!" })).status, 202, "a bare ! is an ordinary prompt");
		stream.close();
	});

	test("usage after a turn is what the server reported, priced as the model says; the context fill too", async () => {
		const { id, stream } = await api.newSession();
		const fresh = await view(id);
		assert.deepEqual(
			{ ...fresh.usage },
			{ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, contextTokens: 0, contextWindow: 200_000 },
		);
		assert.equal((await prompt(id, { text: "hello" })).status, 202);
		const end = await answered(stream);
		const input = REPORTED.prompt_tokens - REPORTED.prompt_tokens_details.cached_tokens;
		const expected = {
			input,
			output: REPORTED.completion_tokens,
			cacheRead: REPORTED.prompt_tokens_details.cached_tokens,
			cacheWrite: 0,
			contextTokens: REPORTED.prompt_tokens + REPORTED.completion_tokens,
			contextWindow: 200_000,
		};
		const cost =
			(input * PRICES.input + REPORTED.completion_tokens * PRICES.output + 200 * PRICES.cacheRead) / 1_000_000;
		const event = stream.events.filter((e) => e.event === "session.usage" && e.seq < end.seq).at(-1);
		assert.ok(event, `a session.usage event before agent.end: ${stream.names()}`);
		const { cost: eventCost, ...eventRest } = event.payload as Record<string, number>;
		assert.deepEqual(eventRest, expected);
		assert.ok(Math.abs(Number(eventCost) - cost) < 1e-12, `cost ${eventCost} vs ${cost}`);
		const { cost: viewCost, ...viewRest } = (await view(id)).usage;
		assert.deepEqual(viewRest, expected);
		assert.ok(Math.abs(Number(viewCost) - cost) < 1e-12);

		// A second turn adds up, as pi's footer does.
		assert.equal((await prompt(id, { text: "again" })).status, 202);
		await answered(stream, end.seq);
		const twice = (await view(id)).usage;
		assert.equal(twice.input, input * 2);
		assert.equal(twice.output, REPORTED.completion_tokens * 2);
		stream.close();
	});

	test("@file attaches a project file as pi's @file arguments do; outside the project is refused", async () => {
		const { id, stream } = await api.newSession();
		const files = await api.call<{ files: string[] }>("GET", `/api/pi/sessions/${id}/files?q=plan`);
		assert.equal(files.status, 200);
		assert.equal(files.body.files[0], "notes/plan.md");
		assert.equal((await prompt(id, { text: "summarize @notes/plan.md", files: ["notes/plan.md"] })).status, 202);
		await answered(stream);
		const user = server.requests
			.at(-1)
			?.body.messages.filter((m) => m.role === "user")
			.at(-1);
		const content = JSON.stringify(user?.content);
		assert.match(
			content,
			/<file name=\\".*notes\/plan\.md\\">\\nPLAN-CONTENT-42\\n\\n<\/file>\\nsummarize @notes\/plan\.md/,
		);

		for (const bad of ["../secret.txt", "escape.txt", join(dir.path, "secret.txt")]) {
			const refused = await prompt(id, { text: "read it", files: [bad] });
			assert.equal(refused.status, 403, `${bad}: ${JSON.stringify(refused.body)}`);
			assert.match(refused.body.error!.message, /outside the project/);
		}
		const missing = await prompt(id, { text: "read it", files: ["nope.md"] });
		assert.equal(missing.status, 422);
		assert.match(missing.body.error!.message, /@nope\.md: no such file/);
		assert.ok(!JSON.stringify(server.requests).includes("OUTSIDE-THE-PROJECT"));
		stream.close();
	});

	test("an image reaches the model request as image content; a bad one is refused naming the field", async () => {
		const { id, stream } = await api.newSession();
		const image = { type: "image", data: PNG, mimeType: "image/png" };
		assert.equal((await prompt(id, { text: "what is this?", images: [image] })).status, 202);
		await answered(stream);
		const user = server.requests
			.at(-1)
			?.body.messages.filter((m) => m.role === "user")
			.at(-1);
		assert.ok(JSON.stringify(user?.content).includes(`data:image/png;base64,${PNG}`), JSON.stringify(user?.content));
		assert.equal((await view(id)).rows.find((r) => r.kind === "user")?.text, "what is this?");
		const bad = await prompt(id, { text: "x", images: [{ ...image, mimeType: "image/svg+xml" }] });
		assert.equal(bad.status, 400);
		assert.match(bad.body.error!.message, /\/images\/0\/mimeType/);
		stream.close();
	});

	test("commands carry the chamber's own (source chamber), prompt templates and skills", async () => {
		const { id, stream } = await api.newSession();
		const { commands } = await view(id);
		const source = (name: string) => commands.find((c) => c.name === name)?.source;
		for (const name of ["new", "compact", "reload", "name", "model", "thinking"]) assert.equal(source(name), "chamber");
		for (const name of ["tree", "fork", "resume", "export", "copy", "session", "hotkeys"])
			assert.equal(source(name), "chamber", name);
		assert.equal(source("greet"), "prompt");
		assert.equal(source("skill:tidy-up"), "skill");
		const page = await prompt(id, { text: "/copy" });
		assert.equal(page.status, 422);
		assert.match(page.body.error!.message, /\/copy is the page's/);
		stream.close();
	});

	test("queued steer and follow-up messages are in the view and the stream until taken back", async () => {
		const { id, stream } = await api.newSession();
		assert.equal((await prompt(id, { text: "answer slowly" })).status, 202);
		await stream.waitFor((e) => e.event === "message.delta", "the answer streaming");
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/steer`, { text: "focus on tests" })).status, 202);
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/follow-up`, { text: "then docs" })).status, 202);
		await stream.waitFor(
			(e) =>
				e.event === "session.queue" &&
				JSON.stringify(e.payload) === JSON.stringify({ steering: ["focus on tests"], followUp: ["then docs"] }),
			"both queued",
		);
		assert.deepEqual((await view(id)).queue, { steering: ["focus on tests"], followUp: ["then docs"] });
		const taken = await api.call("DELETE", `/api/pi/sessions/${id}/queue`);
		assert.equal(taken.status, 200);
		assert.deepEqual(taken.body, { steering: ["focus on tests"], followUp: ["then docs"] });
		assert.deepEqual((await view(id)).queue, { steering: [], followUp: [] });
		await answered(stream);
		const asked = JSON.stringify(server.requests.map((r) => r.body.messages));
		assert.doesNotMatch(asked, /focus on tests|then docs/, "taken back: never delivered");
		stream.close();
	});

	test("/tree moves the leaf with pi's navigateTree; /fork makes a session with the history before a message; /export is pi's HTML", async () => {
		const { id, stream } = await api.newSession();
		assert.equal((await prompt(id, { text: "first question" })).status, 202);
		const one = await answered(stream);
		assert.equal((await prompt(id, { text: "second question" })).status, 202);
		await answered(stream, one.seq);
		const rows = (await view(id)).rows;
		const [firstUser, secondUser] = rows.filter((r) => r.kind === "user");
		const firstAnswer = rows.find((r) => r.kind === "assistant");
		assert.ok(firstUser && secondUser && firstAnswer);

		const tree = await api.call<{ nodes: { id: string; kind: string; active: boolean; text: string }[] }>(
			"GET",
			`/api/pi/sessions/${id}/tree`,
		);
		assert.equal(tree.body.nodes[0]?.kind, "system", "pi's system message first, as pi's selector lists it");
		assert.deepEqual(
			tree.body.nodes.filter((n) => n.kind === "user").map((n) => [n.text, n.active]),
			[
				["first question", true],
				["second question", true],
			],
		);

		const html = await fetch(new URL(`/api/pi/sessions/${id}/export`, serve.url), { headers: api.headers() });
		assert.equal(html.status, 200);
		assert.match(html.headers.get("content-type") ?? "", /^text\/html/);
		assert.match(html.headers.get("content-disposition") ?? "", /^attachment; filename="pi-session-.*\.html"$/);
		const page = await html.text();
		assert.match(page, /<title>Session Export<\/title>/);
		const data = /<script id="session-data" type="application\/json">([^<]+)<\/script>/.exec(page)?.[1];
		assert.ok(data, "pi's session data block");
		assert.match(Buffer.from(data, "base64").toString("utf8"), /second question/);

		const moved = await api.call("POST", `/api/pi/sessions/${id}/tree`, { entryId: firstAnswer.id });
		assert.equal(moved.status, 200, JSON.stringify(moved.body));
		await stream.waitFor((e) => e.event === "session.branch", "session.branch");
		assert.deepEqual(
			(await view(id)).rows.filter((r) => r.kind === "user" || r.kind === "assistant").map((r) => r.id),
			[firstUser.id, firstAnswer.id],
			"the transcript follows the leaf",
		);
		const unknown = await api.call("POST", `/api/pi/sessions/${id}/tree`, { entryId: "nope" });
		assert.equal(unknown.status, 404);

		// Back to the second answer's branch, then fork before the second question.
		const last = rows.at(-1)!;
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/tree`, { entryId: last.id })).status, 200);
		const notUser = await api.call("POST", `/api/pi/sessions/${id}/fork`, { entryId: firstAnswer.id });
		assert.equal(notUser.status, 422);
		const forked = await api.call<{ id: string }>("POST", `/api/pi/sessions/${id}/fork`, { entryId: secondUser.id });
		assert.equal(forked.status, 201, JSON.stringify(forked.body));
		assert.notEqual(forked.body.id, id);
		await stream.waitFor((e) => e.event === "session.replaced" && e.payload.id === forked.body.id, "session.replaced");
		const fork = await view(forked.body.id);
		assert.deepEqual(
			fork.rows.filter((r) => r.kind === "user" || r.kind === "assistant").map((r) => r.text),
			["first question", firstAnswer.text],
		);
		assert.equal(fork.ui.editorText, "second question", "the message forked from goes back to the composer");
		stream.close();
	});
});

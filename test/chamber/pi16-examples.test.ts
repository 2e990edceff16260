/**
 * pi 1.6's in-process examples that use 1.x APIs run in the chamber: each loads in a real `pier serve` session
 * with no extension error, and each does there what it does in pi. `registerEntryRenderer` examples append their
 * entries (the chamber shows them as data until the issue "Extension UI in the browser" draws them);
 * `provider_stream_event` reaches debug-provider; `agent_settled` lets reload-runtime's tool end the run and reload; `ctx.ui.setTitle` and an `agent_settled` terminal notification cost nothing; `setEditorComponent` costs a notice that the chamber has no custom editor.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type ApiClient, type Envelope, type Serve, servedChamber } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const PI_EXAMPLES = join(REPO_ROOT, "node_modules", "@earendil-works", "pi-coding-agent", "examples", "extensions");
/** Every example of pi 1.6 that calls an API pi 0.74.2 did not have (subagent runs in the parity suite). */
const ONE_X = [
	"border-status-editor.ts",
	"debug-provider.ts",
	"entry-renderer.ts",
	"git-checkpoint.ts",
	"notify.ts",
	"project-trust.ts",
	"reload-runtime.ts",
	"titlebar-spinner.ts",
];

type Row = { kind: string; id: string; customType?: string; content?: unknown; text?: string; message?: string };

describe("pi 1.6's 1.x examples in the chamber", () => {
	const dir = tempDir("pier-pi16-examples-");
	const project = join(dir.path, "project");
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		mkdirSync(project, { recursive: true });
		({ serve, api } = await servedChamber(["--no-examples", ...ONE_X.flatMap((e) => ["-e", join(PI_EXAMPLES, e)])], {
			agentDir: join(dir.path, "agent"),
			cwd: project,
			stateDir: join(dir.path, "state"),
		}));
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const rows = async (id: string) => (await api.call<{ rows: Row[] }>("GET", `/api/pi/sessions/${id}`)).body.rows;
	const errorsIn = (events: Envelope[]) =>
		events.filter((e) => e.event === "extension.error").map((e) => JSON.stringify(e.payload));

	test("each loads with no error and the session answers", async () => {
		const { id, stream } = await api.newSession();
		const listed = await api.call<{ extensions: { name: string; kind: string; metrics: { lastError?: unknown } }[] }>(
			"GET",
			`/api/pi/extensions?session=${id}`,
		);
		for (const example of ONE_X) {
			const found = listed.body.extensions.find((e) => e.name === example.replace(/\.ts$/, ""));
			assert.ok(found, `${example} is listed: ${listed.body.extensions.map((e) => e.name).join(", ")}`);
			assert.equal(found.kind, "typescript");
		}
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" })).status, 202);
		await stream.waitFor((e) => e.event === "agent.end", "the answer");
		assert.deepEqual(errorsIn(stream.events), []);
		assert.ok((await rows(id)).some((r) => r.kind === "assistant"));
		stream.close();
	});

	test("entry-renderer's /status-card appends its entry to the transcript", async () => {
		const { id, stream } = await api.newSession();
		const sent = await api.call("POST", `/api/pi/sessions/${id}/command`, {
			command: "status-card",
			args: "all green",
		});
		assert.equal(sent.status, 202);
		const row = await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as Row).customType === "status-card",
			"the status-card row",
		);
		assert.match(JSON.stringify((row.payload.row as Row).content), /all green/);
		assert.deepEqual(errorsIn(stream.events), []);
		stream.close();
	});

	test("debug-provider captures the turn's provider stream events into its entry", async () => {
		const { id, stream } = await api.newSession();
		assert.equal(
			(await api.call("POST", `/api/pi/sessions/${id}/command`, { command: "debug-provider", args: "on" })).status,
			202,
		);
		await stream.waitFor(
			(e) => e.event === "extension.notify" && /capture enabled/.test(String(e.payload.message)),
			"the capture's notice",
		);
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" })).status, 202);
		const row = await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as Row).customType === "debug-provider-events",
			"the captured events",
		);
		assert.match(JSON.stringify((row.payload.row as Row).content), /"provider":"pier"/);
		assert.deepEqual(errorsIn(stream.events), []);
		stream.close();
	});

	test("reload-runtime's tool ends the run; after its agent_settled reload the session still answers", async () => {
		const { id, stream } = await api.newSession();
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "reload_runtime {}" })).status, 202);
		const result = await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as Row).kind === "tool_result",
			"the tool's result",
		);
		assert.match(JSON.stringify(result.payload.row), /Reload requested/);
		const ended = await stream.waitFor((e) => e.event === "agent.end", "the run's end");
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello" })).status, 202);
		await stream.waitFor((e) => e.event === "agent.end" && e.seq > ended.seq, "an answer after the reload");
		assert.deepEqual(errorsIn(stream.events), []);
		stream.close();
	});
});

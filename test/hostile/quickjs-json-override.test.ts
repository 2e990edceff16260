/**
 * Finding 4: a QuickJS guest that replaces JSON.stringify sends a frame that is not JSON (or JSON that is not
 * an object). It used to throw, uncaught, on the daemon's event loop: `pier serve` exited with every session.
 * Now it is that extension's protocol violation: it crashes with a message naming it, the rest goes on.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { ExtensionError } from "../../src/extensions/host/errors.js";
import { loadManifest } from "../../src/extensions/manifest.js";
import { quickjsSpec } from "../../src/extensions/runtimes/quickjs/launcher.js";
import { ApiClient, type EventReader, type Serve, startServe } from "../helpers/chamber.js";
import { escapes, nested, quickjsPackage } from "../helpers/hostile.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";

/** `/override <text>` answers with a response frame whose whole text is `<text>`; `/ok` appends an entry. */
const SOURCE = `
export default function (pi) {
	pi.registerCommand("override", {
		handler: async (args) => {
			const text = args === "(empty)" ? "" : args;
			JSON.stringify = () => text;
		},
	});
	pi.registerCommand("ok", { handler: async (args) => { await pi.appendEntry("h.ok", { args }); } });
	pi.registerTool({
		name: "override_tool", label: "o", description: "o", parameters: { type: "object" },
		execute: async (_id, params) => { JSON.stringify = () => params.text; return { content: [] }; },
	});
}
`;

const HELLO = join(REPO_ROOT, "examples", "quickjs", "hello");
const textOf = (value: unknown) => (value as { content: { text: string }[] }).content[0]!.text;

describe("finding 4: a QuickJS guest that replaces JSON.stringify", () => {
	const dir = tempDir("pier-hostile-json-");
	const extension = quickjsPackage(dir.path, "qjs-hostile", SOURCE, ["commands", "tools", "session_actions"]);
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		serve = await startServe(["-e", extension, "--state-dir", join(dir.path, "state"), "--ui-password", "hunter2"], {
			agentDir: join(dir.path, "agent"),
			cwd: dir.path,
		});
		api = new ApiClient(serve.url);
		assert.equal((await api.login("hunter2")).status, 200);
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	const newSession = () => api.newSession();

	const command = async (id: string, name: string, args: string) => {
		const reply = await api.call("POST", `/api/pi/sessions/${id}/command`, { command: name, args });
		assert.equal(reply.status, 202, JSON.stringify(reply.body));
	};

	test("pier serve keeps running: the extension crashes with its name, other sessions work", async () => {
		const a = await newSession();
		const b = await newSession();
		const attacks: [EventReader, string, string, RegExp][] = [
			[a.stream, a.id, "not json", /frame is not valid JSON/],
			[b.stream, b.id, "null", /frame must be a JSON object, got null/],
		];
		for (const [stream, id, text, reason] of attacks) {
			await command(id, "override", text);
			const error = await stream.waitFor(
				(e) => e.event === "extension.error" && /qjs-hostile crashed/.test(String(e.payload.message)),
				`the crash of qjs-hostile after ${JSON.stringify(text)}`,
			);
			assert.match(String(error.payload.message), /extension qjs-hostile crashed: protocol violation: /);
			assert.match(String(error.payload.message), reason);
		}

		assert.equal(serve.process.exitCode, null, `pier serve exited:\n${serve.output()}`);
		const listed = await api.call<{ sessions: { id: string }[] }>("GET", "/api/pi/sessions");
		assert.equal(listed.status, 200);
		for (const id of [a.id, b.id]) {
			assert.ok(listed.body.sessions.some((s) => s.id === id));
			assert.equal((await api.call("GET", `/api/pi/sessions/${id}`)).status, 200);
		}

		// A session opened afterwards has its own, healthy instance of the same extension.
		const c = await newSession();
		await command(c.id, "ok", "after the attack");
		const row = await c.stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { customType?: string }).customType === "h.ok",
			"the entry of a healthy instance",
		);
		assert.deepEqual((row.payload.row as { content: unknown }).content, { args: "after the attack" });
		// The crashed sessions still take prompts (the demo model answers).
		assert.equal((await api.call("POST", `/api/pi/sessions/${a.id}/prompt`, { text: "still here?" })).status, 202);
		await a.stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as { kind: string }).kind === "assistant",
			"an answer in the attacked session",
		);
		for (const s of [a, b, c]) s.stream.close();
	});

	test("host level: every non-frame kind is a protocol violation naming the extension; neighbours go on", async () => {
		using escaped = escapes();
		const kinds: [string, RegExp][] = [
			["not json", /frame is not valid JSON/],
			["", /frame is not valid JSON/],
			["null", /frame must be a JSON object, got null/],
			["42", /frame must be a JSON object, got a number/],
			['"a string"', /frame must be a JSON object, got a string/],
			["[1,2]", /frame must be a JSON object, got an array/],
			["true", /frame must be a JSON object, got a boolean/],
			['{"type":"response"', /frame is not valid JSON/],
			['{"type":"nonsense"}', /unknown extension frame type "nonsense"/],
			[`{"type":"update","id":"x","value":${nested(200)}}`, /frame has JSON nesting deeper than 128 levels/],
		];
		for (const [text, reason] of kinds) {
			const { host } = testHost();
			const spec = (path: string) =>
				quickjsSpec(loadManifest(path), { cwd: path, projectTrusted: true, deadlineMs: 5_000 });
			const report = await host.load([spec(extension), spec(HELLO)]);
			assert.deepEqual(report.failures, []);
			await assert.rejects(
				host.invokeTool("override_tool", "c", { text }),
				(e: unknown) =>
					e instanceof ExtensionError &&
					/^extension qjs-hostile crashed: protocol violation: /.test(e.message) &&
					reason.test(e.message),
				`the kind ${JSON.stringify(text)}`,
			);
			assert.equal(host.registry.tools.get("override_tool")!.instance.phase, "crashed");
			assert.equal(textOf(await host.invokeTool("shout", "c", { text: "alive" })), "ALIVE!");
			await host.shutdown("test end");
		}
		assert.deepEqual(escaped.list, []);
	});
});

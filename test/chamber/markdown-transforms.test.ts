/**
 * Markdown transformers in the chamber, over a real `pier serve`: a native plugin's transformer (C, rpi's
 * `register_markdown_transformer`) and an in-process pi extension's (`registerMarkdownTransformer`) change the text
 * the session's transcript shows; a failing native transformer and a throwing in-process one leave the text as it
 * was, each reported once with its extension's name. The native plugin's message and entry renderers draw its custom
 * message and entry (GET …/drawings).
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";
import { cModule } from "../native/host-helpers.js";

/** Marks user text and assistant text; sends a `native-note` custom message on /note. */
const TS_TRANSFORM = `export default function (pi) {
	pi.registerMarkdownTransformer((markdown, context) => context.messageType === "user" ? "» " + markdown : markdown + " [ts-transformed]", {
		messageTypes: ["user", "assistant"],
	});
	pi.registerCommand("note", {
		description: "sends a native-note message",
		handler: async () => pi.sendMessage({ customType: "native-note", content: "a note", display: true }),
	});
	pi.registerCommand("entry", { description: "appends a native-entry entry", handler: async () => pi.appendEntry("native-entry", { n: 1 }) });
}
`;

const TS_THROWS = `export default function (pi) {
	pi.registerMarkdownTransformer(() => { throw new Error("ts-throws broke on purpose"); });
}
`;

type Row = { kind: string; id: string; text?: string; drawn?: true; customType?: string };
type Drawing = { lines?: { text: string }[][]; error?: string; pending?: true };

describe("markdown transformers and native renderers in the chamber", () => {
	const dir = tempDir("pier-md-");
	const agentDir = join(dir.path, "agent");
	let serve: Serve;
	let api: ApiClient;

	before(async () => {
		const shout = await cModule(dir.path, "renderers", ["message_renderers"]);
		const broken = await cModule(dir.path, "renderers_fail", ["message_renderers"]);
		writeFileSync(join(dir.path, "ts-transform.ts"), TS_TRANSFORM);
		writeFileSync(join(dir.path, "ts-throws.ts"), TS_THROWS);
		const args = ["--no-examples", "-e", shout, "-e", broken, "-e", join(dir.path, "ts-transform.ts")];
		({ serve, api } = await servedChamber([...args, "-e", join(dir.path, "ts-throws.ts")], {
			agentDir,
			cwd: dir.path,
			stateDir: join(dir.path, "state"),
		}));
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("the answer and the prompt are transformed, failures are named once, the native note is drawn", async () => {
		const { id, stream } = await api.newSession();
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "hello there" })).status, 202);
		const rowOf = (e: { payload: Record<string, unknown> }) => e.payload.row as Row;
		const first = rowOf(
			await stream.waitFor((e) => e.event === "transcript.row" && rowOf(e).kind === "assistant", "the answer"),
		);
		const raw = first.text ?? "";
		assert.match(raw, /[a-z]/, "the demo's answer has lower-case letters to shout");
		const transformed = rowOf(
			await stream.waitFor(
				(e) => e.event === "transcript.row" && rowOf(e).id === first.id && rowOf(e).text !== raw,
				"the transformed answer",
			),
		);
		// The native transformer upper-cases, the in-process one appends its mark: in load order, either way round.
		assert.match(transformed.text!, /\[ts-transformed\]$|\[TS-TRANSFORMED\]$/i);
		assert.equal(transformed.text!.replace(/ \[ts-transformed\]$/i, ""), raw.toUpperCase());

		const user = await stream.waitFor(
			(e) => e.event === "transcript.row" && rowOf(e).kind === "user" && rowOf(e).text === "» hello there",
			"the transformed prompt",
		);
		assert.ok(user);

		const errors = () =>
			stream.events.filter((e) => e.event === "extension.error").map((e) => String(e.payload.message));
		await stream.waitFor(() => errors().some((m) => /c-renderers-fail/.test(m)), "the native failure");
		await stream.waitFor(() => errors().some((m) => /ts-throws/.test(m)), "the in-process failure");
		assert.match(
			errors().find((m) => /c-renderers-fail/.test(m))!,
			/markdown transformer of extension c-renderers-fail failed: .*code 1/,
		);
		assert.match(
			errors().find((m) => /ts-throws/.test(m))!,
			/ts-throws broke on purpose; its text is shown untransformed/,
		);

		// A second answer: the same failures are not told again.
		const told = errors().length;
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "again" })).status, 202);
		await stream.waitFor(
			(e) => e.event === "transcript.row" && rowOf(e).kind === "user" && rowOf(e).text === "» again",
			"the second prompt",
		);
		const second = rowOf(
			await stream.waitFor(
				(e) => e.event === "transcript.row" && rowOf(e).kind === "assistant" && rowOf(e).id !== first.id,
				"the second answer",
			),
		);
		await stream.waitFor(
			(e) =>
				e.event === "transcript.row" && rowOf(e).id === second.id && /\[ts-transformed\]$/i.test(rowOf(e).text ?? ""),
			"the second answer transformed",
		);
		assert.equal(errors().length, told);

		// The session's view keeps the transformed texts.
		const view = await api.call<{ rows: Row[] }>("GET", `/api/pi/sessions/${id}`);
		assert.equal(view.status, 200);
		assert.equal(view.body.rows.find((r) => r.id === first.id)?.text, transformed.text);
		assert.ok(view.body.rows.some((r) => r.kind === "user" && r.text === "» hello there"));

		// The native renderers draw their rows: marked drawn, pending until the plugin answers, then pi's component.
		const drawnText = async (rowId: string) => {
			const ask = () =>
				api.call<{ drawings: Record<string, Drawing> }>(
					"GET",
					`/api/pi/sessions/${id}/drawings?rows=${encodeURIComponent(rowId)}&width=80&expanded=0`,
				);
			let drawing = (await ask()).body.drawings[rowId];
			if (drawing && "pending" in drawing) {
				await stream.waitFor(
					(e) => e.event === "transcript.drawn" && (e.payload.ids as string[]).includes(rowId),
					"the plugin's answer",
				);
				drawing = (await ask()).body.drawings[rowId];
			}
			assert.ok(drawing?.lines, `a drawing of ${rowId}: ${JSON.stringify(drawing)}`);
			return drawing.lines
				.map((l) =>
					l
						.map((s) => s.text)
						.join("")
						.trim(),
				)
				.filter(Boolean)
				.join("\n");
		};
		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "/note" })).status, 202);
		const note = rowOf(
			await stream.waitFor(
				(e) => e.event === "transcript.row" && rowOf(e).customType === "native-note",
				"the note's row",
			),
		);
		assert.equal(note.drawn, true, "the note is marked drawn");
		assert.match(await drawnText(note.id), /\[native-note\] drawn by a C plugin\ninput of \d+ bytes$/);

		assert.equal((await api.call("POST", `/api/pi/sessions/${id}/prompt`, { text: "/entry" })).status, 202);
		const entry = rowOf(
			await stream.waitFor(
				(e) => e.event === "transcript.row" && rowOf(e).customType === "native-entry",
				"the entry's row",
			),
		);
		assert.equal(entry.drawn, true, "the entry is marked drawn");
		assert.match(await drawnText(entry.id), /\[native-entry\] drawn by a C plugin\ninput of \d+ bytes$/);
		const later = await api.call<{ rows: Row[] }>("GET", `/api/pi/sessions/${id}`);
		assert.equal(later.body.rows.find((r) => r.id === entry.id)?.drawn, true, "the view marks it too");
		stream.close();
	});
});

/**
 * rpi's provider form and a message renderer in the chamber: a prompt answered by the extension's streamed turn,
 * with a tool call the session really runs before the second turn, from a process extension written directly in
 * JSONL (test/fixtures/process/raw-provider), one written with the Node kit and a QuickJS one; and a custom
 * message of the raw extension's type drawn by its renderer in the transcript, live and in the session's view
 * (QuickJS has no message renderers: a renderer cannot leave its sandbox).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
	chamberProviderTest,
	chamberWithProvider,
	KIT_STREAM_PROVIDER,
	QUICKJS_STREAM_PROVIDER,
	RAW_PROVIDER,
} from "../helpers/provider-stream.js";

type Row = { kind: string; id: string; drawn?: true; customType?: string };

describe("raw JSONL", () => {
	const api = chamberWithProvider(RAW_PROVIDER);
	chamberProviderTest(RAW_PROVIDER, api);

	test("a custom message of the extension's type shows what its renderer drew, live and in the view", async () => {
		const { id, stream } = await api().newSession();
		assert.equal((await api().call("POST", `/api/pi/sessions/${id}/prompt`, { text: "/card" })).status, 202);
		const expected = "RAW CARD #7\ncontent: card body\nexpanded=false";
		const marked = await stream.waitFor(
			(e) => e.event === "transcript.row" && (e.payload.row as Row).drawn === true,
			"the custom row, marked as drawn",
		);
		const live = marked.payload.row as Row;
		assert.equal(live.kind, "custom");
		assert.equal(live.customType, "raw.card");
		const view = await api().call<{ rows: Row[] }>("GET", `/api/pi/sessions/${id}`);
		assert.equal(view.body.rows.find((r) => r.id === live.id)?.drawn, true, "a client loading the view later too");
		type Lines = { lines?: { text: string }[][]; pending?: true };
		const draw = async () =>
			(
				await api().call<{ drawings: Record<string, Lines> }>(
					"GET",
					`/api/pi/sessions/${id}/drawings?rows=${live.id}&width=80`,
				)
			).body.drawings[live.id];
		// The extension answers over the wire: pending first, then the event, then its lines in pi's component.
		if ((await draw())?.pending)
			await stream.waitFor(
				(e) => e.event === "transcript.drawn" && (e.payload.ids as string[]).includes(live.id),
				"the renderer's answer",
			);
		const text = ((await draw())?.lines ?? [])
			.map((l) =>
				l
					.map((s) => s.text)
					.join("")
					.trimEnd(),
			)
			.join("\n");
		assert.equal(text.trim(), expected);
		stream.close();
	});
});

for (const fixture of [KIT_STREAM_PROVIDER, QUICKJS_STREAM_PROVIDER]) {
	describe(fixture.runtime, () => chamberProviderTest(fixture, chamberWithProvider(fixture)));
}

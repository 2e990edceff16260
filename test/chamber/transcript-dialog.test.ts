/** The `pier.dialog` entry an unanswered dialog leaves, as the transcript row clients show. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionEntry } from "@earendil-works/pi-coding-agent";
import { DIALOG_ENTRY, rowOf } from "../../src/chamber/transcript.js";

const entry = (data: unknown): SessionEntry =>
	({
		type: "custom",
		id: "e1",
		parentId: null,
		timestamp: "2026-01-01T00:00:00.000Z",
		customType: DIALOG_ENTRY,
		data,
	}) as SessionEntry;

test("a pier.dialog entry is a dialog row with its method, title and reason", () => {
	assert.deepEqual(rowOf(entry({ method: "form", title: "Spawn", reason: "timeout" })), {
		kind: "dialog",
		id: "e1",
		method: "form",
		title: "Spawn",
		reason: "timeout",
		timestamp: Date.parse("2026-01-01T00:00:00.000Z"),
	});
});

test("a title one past 256 characters is cut to 256 (the card title limit)", () => {
	const row = rowOf(entry({ method: "confirm", title: "t".repeat(257), reason: "cancelled" }));
	assert.equal(row?.kind, "dialog");
	assert.equal(row?.kind === "dialog" ? row.title.length : 0, 256);
});

test("an entry that is not one the chamber writes (unknown method or reason) stays a plain custom row", () => {
	for (const data of [
		{ method: "custom", title: "x", reason: "timeout" },
		{ method: "confirm", reason: "answered" },
		null,
	]) {
		const row = rowOf(entry(data));
		assert.equal(row?.kind, "custom", JSON.stringify(data));
	}
});

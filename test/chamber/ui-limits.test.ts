/** A chamber session's UI bounds, straight on SessionUi: what is refused, with which message, and what stays. */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type DialogEnd, SessionUi } from "../../src/chamber/ui/session-ui.js";
import { SESSION_UI_LIMITS, UiLimitError } from "../../src/chamber/ui/ui-limits.js";

function session() {
	const events: string[] = [];
	const ui = new SessionUi((event) => {
		events.push(event);
	});
	return { ui, ctx: ui.context(), events };
}

describe("SessionUi limits", () => {
	test("the 51st status and widget key is refused by name; updates and a cleared key are not", () => {
		const { ui, ctx, events } = session();
		for (let i = 0; i < SESSION_UI_LIMITS.statusKeys; i++) ctx.setStatus(`s${i}`, "x");
		for (let i = 0; i < SESSION_UI_LIMITS.widgetKeys; i++) ctx.setWidget(`w${i}`, ["x"]);
		const published = events.length;
		assert.throws(
			() => ctx.setStatus("s-extra", "x"),
			(e: Error) =>
				e instanceof UiLimitError &&
				e.message ===
					'ctx.ui.setStatus("s-extra") refused: this session already holds 50 status keys (the limit per session); clear one first with setStatus(key, undefined)',
		);
		assert.throws(
			() => ctx.setWidget("w-extra", ["x"]),
			/setWidget\("w-extra"\) refused: this session already holds 50 widget keys/,
		);
		assert.equal(events.length, published, "nothing refused is published");
		ctx.setStatus("s0", "updated");
		ctx.setStatus("s1", undefined);
		ctx.setStatus("s-extra", "now it fits");
		const view = ui.view();
		assert.equal(Object.keys(view.statuses).length, SESSION_UI_LIMITS.statusKeys);
		assert.equal(view.statuses.s0, "updated");
		assert.equal(Object.keys(view.widgets).length, SESSION_UI_LIMITS.widgetKeys);
	});

	test("a burst of notifications is cut at the session's burst", () => {
		const { ctx, events } = session();
		let refused = 0;
		let message = "";
		for (let i = 0; i < 500; i++) {
			try {
				ctx.notify(`n${i}`, "info");
			} catch (error) {
				refused++;
				message ||= (error as Error).message;
			}
		}
		const shown = events.filter((e) => e === "extension.notify").length;
		assert.ok(
			shown >= SESSION_UI_LIMITS.notificationBurst && shown < SESSION_UI_LIMITS.notificationBurst + 10,
			`${shown}`,
		);
		assert.equal(shown + refused, 500);
		assert.match(
			message,
			/^ctx\.ui\.notify refused: this session's extensions exceeded 20 notifications per second \(burst 60\)$/,
		);
	});

	test("pending dialogs are capped; the editor text is cut", async () => {
		const { ui, ctx } = session();
		const waiting = Array.from({ length: SESSION_UI_LIMITS.pendingDialogs }, (_, i) => ctx.confirm(`q${i}`, "?"));
		await assert.rejects(
			ctx.select("one more", ["a"]),
			/ctx\.ui\.select refused: 16 dialogs already wait for the user/,
		);
		ui.dismissAll("session-closed");
		assert.deepEqual(await Promise.all(waiting), Array(SESSION_UI_LIMITS.pendingDialogs).fill(false));

		ctx.setEditorText("e".repeat(SESSION_UI_LIMITS.editorTextChars + 10));
		ctx.pasteToEditor("more");
		assert.equal(ui.view().editorText?.length, SESSION_UI_LIMITS.editorTextChars);
	});

	test("unanswered dialogs leave rows up to the burst; the next one past it ends without a row", async () => {
		const ends: DialogEnd[] = [];
		const ui = new SessionUi(
			() => {},
			(ended) => ended && ends.push(ended),
		);
		const ctx = ui.context();
		const burst = SESSION_UI_LIMITS.dialogRowBurst;
		for (let i = 0; i <= burst; i++) {
			const answer = ctx.confirm(`q${i}`, "?");
			const pending = ui.view().dialogs[0];
			assert.ok(pending);
			assert.deepEqual(ui.answer(pending.requestId, { cancelled: true }), { ok: true });
			assert.equal(await answer, false);
		}
		assert.equal(ends.length, burst + 1, "every dialog ended");
		assert.deepEqual(
			ends.map((e) => e.leaveRow),
			[...Array(burst).fill(true), false],
			`${burst} rows, then none past the burst`,
		);
		// An answered dialog never leaves one.
		const answered = ctx.confirm("yes?", "?");
		ui.answer(ui.view().dialogs[0]!.requestId, { confirmed: true });
		assert.equal(await answered, true);
		assert.deepEqual(
			{ reason: ends.at(-1)?.reason, leaveRow: ends.at(-1)?.leaveRow },
			{ reason: "answered", leaveRow: false },
		);
	});
});

/** A tool call's partial updates, coalesced (bridge/partial-updates.ts): the newest wins, the last is never lost. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { PartialUpdates } from "../../src/extensions/bridge/partial-updates.js";

test("the first update goes at once, later ones wait and the newest wins; close delivers the last", () => {
	const shown: Array<[number, boolean]> = [];
	const updates = new PartialUpdates<number>((value, final) => {
		shown.push([value, final]);
		return true;
	}, 60_000);
	for (let i = 1; i <= 1000; i++) updates.push(i);
	assert.deepEqual(shown, [[1, false]]);
	updates.close();
	assert.deepEqual(shown, [
		[1, false],
		[1000, true],
	]);
	updates.push(1001);
	updates.close();
	assert.equal(shown.length, 2, "nothing after the close");
});

test("an update the budget refuses waits for the next interval, and a newer one replaces it", async () => {
	const shown: number[] = [];
	let allow = false;
	let delivered: () => void = () => {};
	const next = new Promise<void>((resolve) => {
		delivered = resolve;
	});
	const updates = new PartialUpdates<number>((value) => {
		if (!allow) return false;
		shown.push(value);
		delivered();
		return true;
	}, 1);
	updates.push(1);
	assert.deepEqual(shown, []);
	updates.push(2);
	allow = true;
	await next;
	assert.deepEqual(shown, [2]);
	updates.close();
	assert.deepEqual(shown, [2], "nothing pending: close delivers nothing more");
});

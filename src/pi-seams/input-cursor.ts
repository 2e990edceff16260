/** pi-tui's `Input` has no setter for its cursor (a private field); pier puts it after a draft it restores. */
import type { Input } from "@earendil-works/pi-tui";
import { Findings, loadForCheck, type Seam } from "./seam.js";

/** The cursor of `input` at `offset` in its value. */
export function setInputCursor(input: Input, offset: number): void {
	(input as unknown as { cursor: number }).cursor = offset;
}

const id = { name: "input-cursor", file: "src/pi-seams/input-cursor.ts" };

type PiTui = typeof import("@earendil-works/pi-tui");

export const seam: Seam = {
	...id,
	members: ["pi-tui Input: private cursor (an offset into getValue(), where typing inserts)"],
	async check(roots) {
		const findings = new Findings(id);
		const tui = await loadForCheck<PiTui>(findings, roots.tui, "dist/index.js");
		if (typeof tui?.Input !== "function") findings.add("pi-tui exports no Input class");
		else {
			const input = new tui.Input();
			input.setValue("ab");
			const cursor = (input as unknown as { cursor?: unknown }).cursor;
			if (typeof cursor !== "number") findings.add(`Input's cursor is ${typeof cursor}, not a number`);
			else {
				(input as unknown as { cursor: number }).cursor = 2;
				input.handleInput("c");
				if (input.getValue() !== "abc")
					findings.add(`typing at cursor 2 of "ab" gave "${input.getValue()}": the cursor no longer places input`);
			}
		}
		findings.done();
	},
};

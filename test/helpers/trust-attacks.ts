/** Shared pieces of the trust attacks in test/hostile: files an attacker commits, and the marker that proves a hole. */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export function write(path: string, text: string): void {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
}

/** A pi extension that leaves a marker the moment pi's loader runs it in Node. */
export const markerExtension = (marker: string): string =>
	`import { writeFileSync } from "node:fs";\nexport default function () { writeFileSync(${JSON.stringify(marker)}, "ran"); }\n`;

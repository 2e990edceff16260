import { readFileSync } from "node:fs";

/** pier's version, from its package.json (the same file in the source tree and under dist/). */
export function pierVersion(): string {
	const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
		version: string;
	};
	return pkg.version;
}

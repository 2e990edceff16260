/** pi's `--export` HTML exporter of a session file (`core/export-html/index.js`, not exported). */
import { moduleExports, piModule, type Seam } from "./seam.js";

const MODULE = "dist/core/export-html/index.js";

interface Exporter {
	exportFromFile(file: string, output?: string): Promise<string>;
}

/** Writes the HTML export of `file` (to `output`, or pi's default name) and answers the written path. */
export async function exportSessionFile(file: string, output: string | undefined): Promise<string> {
	const { exportFromFile } = await piModule<Exporter>(MODULE);
	return exportFromFile(file, output);
}

const id = { name: "export-html", file: "src/pi-seams/export-html.ts" };

export const seam: Seam = {
	...id,
	members: ["core/export-html/index.js (unexported): exportFromFile(file, output)"],
	check: moduleExports(id, (roots) => roots.codingAgent, { [MODULE]: { exportFromFile: 2 } }),
};

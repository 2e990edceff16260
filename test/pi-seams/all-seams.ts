/**
 * Every seam, found in src/pi-seams/ itself rather than listed here: a seam file without a descriptor, or with one
 * that names another file, fails the test that loads it.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Seam } from "../../src/pi-seams/seam.js";

/** The compiled seams (dist/src/pi-seams), next to this compiled file's dist/test/pi-seams. */
const SEAMS_DIR = new URL("../../src/pi-seams/", import.meta.url);

/** The files that are seams: all of src/pi-seams but the shared machinery. */
export function seamFiles(): string[] {
	return readdirSync(fileURLToPath(SEAMS_DIR))
		.filter((name) => name.endsWith(".js") && name !== "seam.js")
		.map((name) => `src/pi-seams/${name.replace(/\.js$/, ".ts")}`)
		.sort();
}

/** The descriptor a seam file exports; throws naming the file when it has none or it names another file. */
export async function seamOf(file: string): Promise<Seam> {
	const module = (await import(
		new URL(file.replace(/^src\/pi-seams\//, "").replace(/\.ts$/, ".js"), SEAMS_DIR).href
	)) as {
		seam?: Seam;
	};
	const seam = module.seam;
	if (!seam || typeof seam.check !== "function")
		throw new Error(`${file} exports no seam descriptor (export const seam: Seam = { name, file, members, check })`);
	if (seam.file !== file) throw new Error(`${file}'s seam descriptor names the file ${seam.file}`);
	return seam;
}

/**
 * pier's side of the plugin host's C helper (tool-step.ts): built with gcc from the project's own files
 * (kit/c/host/tool_step.c and kit/c/rpi_plugin.h), nothing downloaded, the first time a native extension is
 * launched. The library is kept beside this module, named by a hash of its sources, its flags and the
 * machine, so a later pier run (or a parallel one: each builds under its own temporary name and renames)
 * finds it without building.
 *
 * Never a reason for a launch to fail: no gcc, a read-only install directory, a compile error or
 * `PIER_NATIVE_TOOL_STEP=off` all mean no helper, and the plugin host makes the same calls one at a time.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout or package root, from this module's place in dist (dist/src/extensions/runtimes/native). */
const ROOT = fileURLToPath(new URL("../../../../../", import.meta.url));
export const TOOL_STEP_SOURCE = join(ROOT, "kit", "c", "host", "tool_step.c");
const HEADER = join(ROOT, "kit", "c", "rpi_plugin.h");
/** Where built helpers are kept. */
export const TOOL_STEP_DIR = fileURLToPath(new URL("./tool-step/", import.meta.url));
/** Warnings are errors: a helper that does not compile cleanly is not one to load into every plugin host. */
const FLAGS = ["-O2", "-fPIC", "-shared", "-std=c11", "-Wall", "-Wextra", "-Werror"];
const BUILD_TIMEOUT_MS = 60_000;

export type ToolStepStatus = { path: string } | { path: undefined; reason: string };

let building: Promise<ToolStepStatus> | undefined;

/** The helper's path once built (at most one build per process), or why there is none. */
export function toolStep(): Promise<ToolStepStatus> {
	if (process.env.PIER_NATIVE_TOOL_STEP === "off")
		return Promise.resolve({ path: undefined, reason: "PIER_NATIVE_TOOL_STEP=off" });
	building ??= buildToolStep(TOOL_STEP_DIR);
	return building;
}

/** The library's file name for these sources on this machine. */
export function toolStepName(source: string, header: string): string {
	const hash = createHash("sha256")
		.update(source)
		.update("\0")
		.update(header)
		.update("\0")
		.update(`${FLAGS.join(" ")} ${process.platform} ${process.arch}`)
		.digest("hex")
		.slice(0, 16);
	return `libpier_tool_step-${hash}.so`;
}

/** The helper in `dir`: found there, or built there now. */
export async function buildToolStep(dir: string): Promise<ToolStepStatus> {
	let out: string;
	try {
		out = join(dir, toolStepName(readFileSync(TOOL_STEP_SOURCE, "utf8"), readFileSync(HEADER, "utf8")));
	} catch (error) {
		return { path: undefined, reason: `cannot read the helper's sources: ${(error as Error).message}` };
	}
	if (existsSync(out)) return { path: out };
	const temporary = `${out}.${process.pid}.tmp`;
	try {
		mkdirSync(dir, { recursive: true });
		await gcc([...FLAGS, "-o", temporary, TOOL_STEP_SOURCE]);
		renameSync(temporary, out);
		return { path: out };
	} catch (error) {
		rmSync(temporary, { force: true });
		return { path: undefined, reason: (error as Error).message };
	}
}

function gcc(args: readonly string[]): Promise<void> {
	return new Promise((resolve, reject) => {
		execFile("gcc", args, { timeout: BUILD_TIMEOUT_MS }, (error, _stdout, stderr) => {
			if (!error) return resolve();
			const why = (error as NodeJS.ErrnoException).code === "ENOENT" ? "gcc is not installed" : error.message;
			reject(new Error(`building the tool-step helper failed: ${why}${stderr ? `\n${stderr.slice(-2000)}` : ""}`));
		});
	});
}

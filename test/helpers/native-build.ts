/**
 * Builds the native plugins tests load: the cargo workspace (kit/rust, examples/native, test/fixtures/native)
 * once per test process, and C plugins with gcc against kit/c/rpi_plugin.h. Everything builds offline
 * (.cargo/config.toml points crates.io at Debian's packaged crates). Parallel test processes are safe:
 * cargo serialises on its own lock in <repo>/target, and each C library is written to a temporary name
 * and renamed into place, so a reader never sees a half-written .so.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout: the nearest directory above this file that holds package.json (works from dist/test too). */
export const NATIVE_REPO_ROOT = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
export const NATIVE_TARGET_DIR = join(NATIVE_REPO_ROOT, "target");
export const C_HEADER_DIR = join(NATIVE_REPO_ROOT, "kit", "c");

function findRepoRoot(start: string): string {
	let dir = start;
	for (;;) {
		if (existsSync(join(dir, "package.json"))) return dir;
		const parent = dirname(dir);
		if (parent === dir) throw new Error(`native-build: no package.json above ${start}`);
		dir = parent;
	}
}

export interface CommandOutput {
	stdout: string;
	stderr: string;
}

/** Runs a build tool in the repo root; a failure carries the tool's own output so the test says why. */
export function runTool(file: string, args: readonly string[], timeoutMs = 600_000): Promise<CommandOutput> {
	return new Promise((resolvePromise, reject) => {
		execFile(
			file,
			args,
			{ cwd: NATIVE_REPO_ROOT, timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 },
			(error, stdout, stderr) => {
				if (error) {
					const why = (error as NodeJS.ErrnoException).code === "ENOENT" ? `${file} is not installed` : error.message;
					reject(new Error(`native-build: ${file} ${args.join(" ")} failed: ${why}\n${stderr.slice(-4000)}`));
					return;
				}
				resolvePromise({ stdout, stderr });
			},
		);
	});
}

let workspaceBuild: Promise<void> | undefined;

/** `cargo build --release --offline` of the whole workspace, once per process (later calls share the promise). */
export function buildWorkspace(): Promise<void> {
	workspaceBuild ??= runTool("cargo", ["build", "--release", "--offline", "--workspace"]).then(() => undefined);
	return workspaceBuild;
}

/** Absolute path of `lib<crate>.so` built from the workspace crate `crate` (dashes become underscores, as cargo names it). */
export async function nativeLibrary(crate: string): Promise<string> {
	await buildWorkspace();
	const path = join(NATIVE_TARGET_DIR, "release", `lib${crate.replaceAll("-", "_")}.so`);
	if (!existsSync(path)) {
		throw new Error(
			`native-build: crate "${crate}" produced no ${path}; is it a member of the root Cargo.toml with crate-type = ["cdylib"]?`,
		);
	}
	return path;
}

const cBuilds = new Map<string, Promise<string>>();

/**
 * Absolute path of `target/c/lib<name>.so`, compiled from `test/fixtures/native/c/<name>.c` (or from `source`,
 * relative to the repo root, for the C example) with warnings as errors against kit/c/rpi_plugin.h.
 */
export function cLibrary(name: string, source?: string): Promise<string> {
	const src = resolve(NATIVE_REPO_ROOT, source ?? join("test", "fixtures", "native", "c", `${name}.c`));
	const key = `${name}\0${src}`;
	let build = cBuilds.get(key);
	if (!build) {
		build = compileC(name, src);
		cBuilds.set(key, build);
	}
	return build;
}

async function compileC(name: string, src: string): Promise<string> {
	if (!existsSync(src)) throw new Error(`native-build: no C source ${src} for library "${name}"`);
	const outDir = join(NATIVE_TARGET_DIR, "c");
	mkdirSync(outDir, { recursive: true });
	const out = join(outDir, `lib${name}.so`);
	const partial = `${out}.${process.pid}.tmp`;
	await runTool("gcc", [
		"-std=c11",
		"-O2",
		"-Wall",
		"-Wextra",
		"-Werror",
		"-shared",
		"-fPIC",
		"-I",
		C_HEADER_DIR,
		"-o",
		partial,
		src,
	]);
	renameSync(partial, out);
	return out;
}

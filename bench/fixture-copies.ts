/**
 * N distinct copies of a bench fixture extension: the host loads one instance per extension id, so 50 specs of
 * one manifest are one extension. Copy i has the id `<id>-<i>`; its tool and command get the suffix `_<i>`
 * except in copy 0, which keeps `echo` and `ping` (the one the round trips call). `echoHost` loads them.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ExtensionHost } from "../src/extensions/host/host.js";
import { loadManifest } from "../src/extensions/manifest.js";
import { processSpec } from "../src/extensions/runtimes/process/launcher.js";
import { quickjsSpec } from "../src/extensions/runtimes/quickjs/launcher.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FIXTURES = { quickjs: "echo-quickjs", process: "echo-extension" } as const;
const KIT = pathToFileURL(join(ROOT, "kit", "node", "index.mjs")).href;

export interface Copies {
	dirs: string[];
	[Symbol.dispose](): void;
}

export function fixtureCopies(kind: keyof typeof FIXTURES, count: number): Copies {
	const source = join(ROOT, "bench", "fixtures", FIXTURES[kind]);
	const root = mkdtempSync(join(tmpdir(), `pier-bench-${kind}-`));
	const manifest = JSON.parse(readFileSync(join(source, "pi-extension.json"), "utf8")) as { id: string };
	const entry = kind === "quickjs" ? "index.mjs" : "main.mjs";
	const code = readFileSync(join(source, entry), "utf8");
	const dirs: string[] = [];
	for (let i = 0; i < count; i++) {
		const dir = join(root, String(i));
		cpSync(source, dir, { recursive: true });
		const id = `${manifest.id}-${i}`;
		writeFileSync(join(dir, "pi-extension.json"), JSON.stringify({ ...manifest, id }));
		const suffix = i === 0 ? "" : `_${i}`;
		writeFileSync(
			join(dir, entry),
			code
				.replace(`"../../../kit/node/index.mjs"`, JSON.stringify(KIT))
				.replace(`id: "${manifest.id}"`, `id: "${id}"`)
				.replace(`name: "echo"`, `name: "echo${suffix}"`)
				.replace(`registerCommand("ping"`, `registerCommand("ping${suffix}"`),
		);
		dirs.push(dir);
	}
	return { dirs, [Symbol.dispose]: () => rmSync(root, { recursive: true, force: true }) };
}

/** The first `count` copies of a fixture, shared by the whole bench process and removed when it exits. */
const shared = new Map<keyof typeof FIXTURES, Copies>();
export function fixtureDirs(kind: keyof typeof FIXTURES, count: number): string[] {
	const have = shared.get(kind);
	if (have && have.dirs.length >= count) return have.dirs.slice(0, count);
	have?.[Symbol.dispose]();
	const copies = fixtureCopies(kind, Math.max(count, 50));
	if (shared.size === 0)
		process.once("exit", () => {
			for (const c of shared.values()) c[Symbol.dispose]();
		});
	shared.set(kind, copies);
	return copies.dirs.slice(0, count);
}

/** A host with `count` distinct copies of the echo extension (copy 0 has the `echo` tool and `ping` command). */
export async function echoHost(kind: keyof typeof FIXTURES, count: number): Promise<ExtensionHost> {
	const host = new ExtensionHost({ mode: "print", maxParallelLoads: Math.min(count, 8) });
	const specs = fixtureDirs(kind, count).map((dir) =>
		kind === "quickjs"
			? quickjsSpec(loadManifest(dir), { cwd: ROOT, projectTrusted: true, deadlineMs: 60_000 })
			: processSpec(loadManifest(dir), { cwd: ROOT, projectTrusted: true }),
	);
	const report = await host.load(specs);
	if (report.failures.length > 0) throw new Error(report.failures[0]!.message);
	if (host.instances.length !== count) throw new Error(`${host.instances.length} extensions loaded, not ${count}`);
	return host;
}

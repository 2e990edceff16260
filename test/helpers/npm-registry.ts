/**
 * A tiny npm registry over real HTTP: packuments and tarballs for packages the test publishes, packed by the real
 * `npm pack`. Point npm at it with `npm_config_registry` (see `npmEnv`); nothing leaves the machine.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";

export interface Registry {
	url: string;
	/** Packs `files` (with a package.json built from `manifest`) and serves it as `name@version`, the latest. */
	publish(manifest: { name: string; version: string } & Record<string, unknown>, files?: Record<string, string>): void;
	close(): Promise<void>;
}

export async function startRegistry(workDir: string): Promise<Registry> {
	const versions = new Map<string, Map<string, { manifest: Record<string, unknown>; tarball: Buffer }>>();
	const server: Server = createServer((req, res) => {
		const path = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname).slice(1);
		const tarball = /^(.+)\/-\/(.+)-(\d+\.\d+\.\d+)\.tgz$/.exec(path);
		if (tarball) {
			const entry = versions.get(tarball[1]!)?.get(tarball[3]!);
			res.statusCode = entry ? 200 : 404;
			res.end(entry?.tarball ?? "");
			return;
		}
		const known = versions.get(path);
		if (!known) {
			res.statusCode = 404;
			res.setHeader("content-type", "application/json");
			res.end('{"error":"not found"}');
			return;
		}
		const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		const all = [...known.entries()];
		const packument = {
			name: path,
			"dist-tags": { latest: all[all.length - 1]![0] },
			versions: Object.fromEntries(
				all.map(([version, { manifest, tarball: tgz }]) => [
					version,
					{
						...manifest,
						dist: {
							tarball: `${base}/${path}/-/${path.split("/").pop()}-${version}.tgz`,
							shasum: createHash("sha1").update(tgz).digest("hex"),
							integrity: `sha512-${createHash("sha512").update(tgz).digest("base64")}`,
						},
					},
				]),
			),
		};
		res.setHeader("content-type", "application/json");
		res.end(JSON.stringify(packument));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
	return {
		url,
		publish(manifest, files = {}) {
			const dir = join(workDir, "packages", manifest.name, manifest.version);
			mkdirSync(dir, { recursive: true });
			writeFileSync(join(dir, "package.json"), JSON.stringify(manifest, null, 2));
			for (const [file, text] of Object.entries(files)) {
				mkdirSync(dirname(join(dir, file)), { recursive: true });
				writeFileSync(join(dir, file), text);
			}
			const out = join(workDir, "tarballs");
			mkdirSync(out, { recursive: true });
			const name = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", out], {
				cwd: dir,
				encoding: "utf8",
				stdio: ["ignore", "pipe", "ignore"],
			});
			const filename = (JSON.parse(name) as Array<{ filename: string }>)[0]!.filename;
			if (!versions.has(manifest.name)) versions.set(manifest.name, new Map());
			versions.get(manifest.name)!.set(manifest.version, { manifest, tarball: readFileSync(join(out, filename)) });
		},
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

/** npm pointed at the registry, with its cache and global prefix in `dir` (so `-g` installs stay in the test). */
export function npmEnv(registry: Registry, dir: string): Record<string, string> {
	return {
		npm_config_registry: registry.url,
		npm_config_cache: join(dir, "npm-cache"),
		npm_config_prefix: join(dir, "npm-global"),
		npm_config_audit: "false",
		npm_config_fund: "false",
		npm_config_update_notifier: "false",
	};
}

/** An npm script that appends `what` to the marker file (a script that ran leaves its line). */
export const mark = (marker: string, what: string) =>
	`node -e "require('fs').appendFileSync(${JSON.stringify(marker).replace(/"/g, "'")}, '${what}\\n')"`;

/** The lines scripts left in the marker file, sorted; none when no script ran. */
export const marks = (marker: string) =>
	existsSync(marker) ? readFileSync(marker, "utf8").trim().split("\n").sort() : [];

/**
 * Emits the service worker (`/sw.js`, from web/service-worker.js) with the build's shell written in: the files to
 * cache and a version, a hash of every file the build emits and of web/public. A build that changes anything the
 * page loads is therefore a new worker with a new cache; an unchanged one keeps the worker (and the browser's
 * installed app) as it was.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";

const WEB = fileURLToPath(new URL(".", import.meta.url));
const PUBLIC = join(WEB, "public");
/** What an offline start needs besides the built scripts and styles. */
const PUBLIC_SHELL = ["/manifest.webmanifest", "/icons/icon-192.png", "/icons/icon-512.png"];

function files(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
		e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
	);
}

export function serviceWorker(): Plugin {
	return {
		name: "pier-service-worker",
		apply: "build",
		enforce: "post",
		generateBundle(_options, bundle) {
			const hash = createHash("sha256");
			const built: string[] = [];
			for (const name of Object.keys(bundle).sort()) {
				const item = bundle[name];
				if (!item) continue;
				hash.update(`${name}\0`);
				hash.update(item.type === "chunk" ? item.code : item.source);
				if (/\.(js|css)$/.test(name)) built.push(`/${name}`);
			}
			for (const file of files(PUBLIC).sort()) {
				hash.update(`${relative(PUBLIC, file)}\0`);
				hash.update(readFileSync(file));
			}
			const template = readFileSync(join(WEB, "service-worker.js"), "utf8");
			const shell = { version: hash.digest("hex").slice(0, 16), files: ["/", ...built, ...PUBLIC_SHELL] };
			this.emitFile({
				type: "asset",
				fileName: "sw.js",
				source: template.replace("__PIER_SHELL__", JSON.stringify(shell)),
			});
		},
	};
}

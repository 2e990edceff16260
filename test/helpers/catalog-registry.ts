/**
 * A stand-in for the npm registry's catalog wire over real HTTP: `/-/v1/search` (keywords: and words, as the
 * registry narrows), packuments and tarballs (the real `npm pack` ones of npm-registry.ts, so `npm pack` and
 * `npm install` work against it), and the downloads service's `/downloads/point/last-week/<name>`. `mode`
 * makes it fail the way a registry does: an error status, or a body that is not JSON.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Registry, startRegistry } from "./npm-registry.js";

export interface CatalogRegistry {
	url: string;
	/** The downloads service's base, for PIER_NPM_DOWNLOADS. */
	downloadsUrl: string;
	inner: Registry;
	publish(manifest: { name: string; version: string } & Record<string, unknown>, files?: Record<string, string>): void;
	/** Weekly downloads the service answers; a name without one is a 404. */
	downloads: Map<string, number>;
	/** Every search text received, in order. */
	searches: string[];
	mode: "ok" | "error" | "garbage";
	close(): Promise<void>;
}

export async function startCatalogRegistry(workDir: string): Promise<CatalogRegistry> {
	const inner = await startRegistry(workDir);
	const manifests = new Map<string, Record<string, unknown>>();
	const state: Pick<CatalogRegistry, "downloads" | "searches" | "mode"> = {
		downloads: new Map(),
		searches: [],
		mode: "ok",
	};
	const server: Server = createServer(async (req, res) => {
		const url = new URL(req.url ?? "/", "http://x");
		if (state.mode === "error") {
			res.statusCode = 503;
			res.statusMessage = "Service Unavailable";
			res.end("down for maintenance");
			return;
		}
		if (state.mode === "garbage") {
			res.setHeader("content-type", "text/html");
			res.end("<html>a captive portal</html>");
			return;
		}
		if (url.pathname === "/-/v1/search") {
			const text = url.searchParams.get("text") ?? "";
			state.searches.push(text);
			const words = text.split(/\s+/).filter(Boolean);
			const keywords = words.filter((w) => w.startsWith("keywords:")).map((w) => w.slice(9));
			const rest = words.filter((w) => !w.startsWith("keywords:")).map((w) => w.toLowerCase());
			const size = Number(url.searchParams.get("size") ?? "20");
			const hits = [...manifests.values()].filter((m) => {
				const kw = (m.keywords as string[] | undefined) ?? [];
				const hay = `${m.name} ${m.description ?? ""}`.toLowerCase();
				return keywords.every((k) => kw.includes(k)) && rest.every((w) => hay.includes(w));
			});
			res.setHeader("content-type", "application/json");
			res.end(
				JSON.stringify({
					objects: hits.slice(0, size).map((m) => ({
						package: {
							name: m.name,
							version: m.version,
							description: m.description,
							keywords: m.keywords,
							date: "2026-01-02T03:04:05.000Z",
							links: { npm: `https://www.npmjs.com/package/${m.name}` },
							publisher: { username: "tester" },
						},
					})),
					total: hits.length,
				}),
			);
			return;
		}
		const downloads = /^\/downloads\/point\/last-week\/(.+)$/.exec(decodeURIComponent(url.pathname));
		if (downloads) {
			const n = state.downloads.get(downloads[1]!);
			res.setHeader("content-type", "application/json");
			res.statusCode = n === undefined ? 404 : 200;
			res.end(JSON.stringify(n === undefined ? { error: "not found" } : { downloads: n, package: downloads[1] }));
			return;
		}
		// Packuments and tarballs: the real registry stand-in's.
		const answer = await fetch(new URL(req.url ?? "/", inner.url));
		res.statusCode = answer.status;
		const type = answer.headers.get("content-type");
		if (type) res.setHeader("content-type", type);
		res.end(Buffer.from(await answer.arrayBuffer()));
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
	const self: CatalogRegistry = {
		url,
		downloadsUrl: `${url}downloads/point/last-week/`,
		inner,
		get downloads() {
			return state.downloads;
		},
		get searches() {
			return state.searches;
		},
		get mode() {
			return state.mode;
		},
		set mode(value) {
			state.mode = value;
		},
		publish(manifest, files) {
			inner.publish(manifest, files);
			manifests.set(manifest.name, manifest);
		},
		close: async () => {
			await new Promise<void>((resolve) => server.close(() => resolve()));
			await inner.close();
		},
	};
	return self;
}

/** A loopback URL nothing listens on: a registry that is down. */
export async function deadUrl(): Promise<string> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const port = (server.address() as AddressInfo).port;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return `http://127.0.0.1:${port}/`;
}

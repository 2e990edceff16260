/**
 * The catalog's registry client against a stand-in speaking the registry's search and packument wire over real
 * HTTP: what it asks, what it makes of the answers, and a registry that is down, failing or not a registry.
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import {
	compareVersions,
	MAX_PACKUMENT_BYTES,
	MAX_README_CHARS,
	packageDetails,
	packageNameProblem,
	RegistryError,
	registryUrl,
	searchPackages,
} from "../../src/extensions/catalog/registry.js";
import { type CatalogRegistry, deadUrl, startCatalogRegistry } from "../helpers/catalog-registry.js";
import { tempDir } from "../helpers/pier-cli.js";

describe("the registry client", () => {
	const dir = tempDir("pier-catalog-registry-");
	let registry: CatalogRegistry;
	let env: NodeJS.ProcessEnv;

	before(async () => {
		registry = await startCatalogRegistry(dir.path);
		registry.publish({
			name: "pi-weather",
			version: "1.0.0",
			description: "Weather for pi",
			keywords: ["pi-package"],
		});
		registry.publish({
			name: "pi-weather",
			version: "1.2.0",
			description: "Weather for pi",
			keywords: ["pi-package"],
			readme: "# pi-weather\n\nAsk the sky.",
		});
		registry.publish({ name: "@acme/pi-tides", version: "0.3.0", description: "Tides", keywords: ["pi-package"] });
		// The words match, the keyword does not: not a pi package.
		registry.publish({ name: "weather-lib", version: "2.0.0", description: "weather", keywords: ["weather"] });
		registry.downloads.set("pi-weather", 1234);
		env = { PIER_NPM_DOWNLOADS: registry.downloadsUrl };
	});

	after(async () => {
		await registry?.close();
		dir[Symbol.dispose]();
	});

	test("search asks for keywords:pi-package and the words, and gives version, description and downloads", async () => {
		const answer = await searchPackages("weather", { registry: registry.url, env });
		assert.equal(registry.searches.at(-1), "keywords:pi-package weather");
		assert.deepEqual(
			answer.results.map((r) => [r.name, r.version, r.description, r.weeklyDownloads]),
			[["pi-weather", "1.2.0", "Weather for pi", 1234]],
		);
		assert.equal(answer.registry, registry.url);
		assert.equal(answer.downloadsNote, undefined);
	});

	test("a package the downloads service does not know has unknown downloads; the others keep theirs", async () => {
		const answer = await searchPackages("", { registry: registry.url, env });
		const byName = new Map(answer.results.map((r) => [r.name, r.weeklyDownloads]));
		assert.equal(byName.get("pi-weather"), 1234);
		assert.ok(byName.has("@acme/pi-tides"));
		assert.equal(byName.get("@acme/pi-tides"), undefined);
		assert.ok(!byName.has("weather-lib"));
	});

	test("the downloads service unreachable: the search still answers, downloads unknown, and says why", async () => {
		const dead = await deadUrl();
		const answer = await searchPackages("weather", { registry: registry.url, env: { PIER_NPM_DOWNLOADS: dead } });
		assert.equal(answer.results[0]?.name, "pi-weather");
		assert.equal(answer.results[0]?.weeklyDownloads, undefined);
		assert.match(answer.downloadsNote ?? "", /downloads unknown: .* cannot be reached/);
	});

	test("a registry other than npmjs without a downloads service: downloads unknown, nothing asked", async () => {
		const answer = await searchPackages("weather", { registry: registry.url, env: {} });
		assert.equal(answer.results[0]?.weeklyDownloads, undefined);
		assert.match(answer.downloadsNote ?? "", /is not registry\.npmjs\.org/);
	});

	test("the registry down: a RegistryError naming it and what to do", async () => {
		const dead = await deadUrl();
		await assert.rejects(searchPackages("weather", { registry: dead, env }), (error: unknown) => {
			assert.ok(error instanceof RegistryError);
			assert.equal(error.reason, "unreachable");
			assert.ok(error.message.includes(dead), error.message);
			assert.match(error.message, /cannot be reached .*npm config get registry.*Installed packages keep working/);
			return true;
		});
	});

	test("the registry answering 503, or a page that is not JSON: a RegistryError saying so", async () => {
		registry.mode = "error";
		try {
			await assert.rejects(searchPackages("weather", { registry: registry.url, env }), /answered 503/);
			await assert.rejects(packageDetails("pi-weather", { registry: registry.url, env }), /answered 503/);
		} finally {
			registry.mode = "ok";
		}
		registry.mode = "garbage";
		try {
			await assert.rejects(searchPackages("weather", { registry: registry.url, env }), /not JSON/);
		} finally {
			registry.mode = "ok";
		}
	});

	test("a registry without search (a mirror): the message says so", async () => {
		const server = createServer((_req, res) => {
			res.statusCode = 404;
			res.end();
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
		try {
			await assert.rejects(searchPackages("x", { registry: url, env }), /does not offer search/);
		} finally {
			server.close();
		}
	});

	test("details: the README, versions newest first, the latest tag, downloads", async () => {
		const details = await packageDetails("pi-weather", { registry: registry.url, env });
		assert.equal(details.latest, "1.2.0");
		assert.deepEqual(
			details.versions.map((v) => v.version),
			["1.2.0", "1.0.0"],
		);
		assert.equal(details.readme, "# pi-weather\n\nAsk the sky.");
		assert.equal(details.weeklyDownloads, 1234);
		const scoped = await packageDetails("@acme/pi-tides", { registry: registry.url, env });
		assert.equal(scoped.latest, "0.3.0");
	});

	test("details of a package the registry does not have: not_found naming it", async () => {
		await assert.rejects(packageDetails("pi-nothing", { registry: registry.url, env }), (error: unknown) => {
			assert.ok(error instanceof RegistryError);
			assert.equal(error.reason, "not_found");
			assert.match(error.message, /package pi-nothing: not found on the npm registry at/);
			return true;
		});
	});

	test("a name that is not an npm name is refused before any request", async () => {
		const before = registry.searches.length;
		for (const bad of ["../etc/passwd", "Pi-Upper", "a b", "", "x".repeat(215), "@scope/", "pi?x=1"])
			assert.ok(packageNameProblem(bad), bad);
		assert.equal(packageNameProblem("x".repeat(214)), undefined);
		assert.equal(packageNameProblem("@a/b.c-d_e~f"), undefined);
		await assert.rejects(packageDetails("../etc/passwd", { registry: registry.url }), /is not an npm package name/);
		assert.equal(registry.searches.length, before);
	});

	test("a README past the limit is cut there; a packument past the limit is refused", async () => {
		const big = "x".repeat(MAX_README_CHARS + 1);
		const server = createServer((req, res) => {
			res.setHeader("content-type", "application/json");
			if (req.url === "/huge") {
				res.end(`{"versions":{},"pad":"${"y".repeat(MAX_PACKUMENT_BYTES)}"}`);
				return;
			}
			res.end(
				JSON.stringify({ name: "big", "dist-tags": { latest: "1.0.0" }, versions: { "1.0.0": {} }, readme: big }),
			);
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
		const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
		try {
			const details = await packageDetails("big", { registry: url, env: {} });
			assert.equal(details.readme.length, MAX_README_CHARS);
			assert.equal(details.readmeTruncated, true);
			await assert.rejects(packageDetails("huge", { registry: url, env: {} }), /larger than/);
		} finally {
			server.close();
		}
	});

	test("the registry is PIER_NPM_REGISTRY, else npm's environment setting, with a trailing slash", async () => {
		assert.equal(
			await registryUrl({ env: { PIER_NPM_REGISTRY: "http://a.test", npm_config_registry: "http://b.test/" } }),
			"http://a.test/",
		);
		assert.equal(await registryUrl({ env: { npm_config_registry: "http://b.test" } }), "http://b.test/");
	});

	test("versions compare as semver", () => {
		assert.ok(compareVersions("1.10.0", "1.9.9") > 0);
		assert.ok(compareVersions("1.0.0", "1.0.0-beta.2") > 0);
		assert.ok(compareVersions("1.0.0-beta.10", "1.0.0-beta.9") > 0);
		assert.equal(compareVersions("2.0.0", "2.0.0"), 0);
	});
});

/**
 * `pier search`: against the real npm registry (skipped, with the reason printed, when it cannot be reached or
 * does not serve search here), and against a stand-in for what it prints: the table, the installed mark, and a
 * registry that is down.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type CatalogRegistry, deadUrl, startCatalogRegistry } from "../helpers/catalog-registry.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";

const NPMJS = "https://registry.npmjs.org/";

/** Why the real registry's search cannot be used from here, or undefined when it can. */
async function realSearchUnavailable(): Promise<string | undefined> {
	try {
		const response = await fetch(`${NPMJS}-/v1/search?text=keywords:pi-package&size=1`, {
			signal: AbortSignal.timeout(15_000),
		});
		await response.body?.cancel();
		return response.ok ? undefined : `${NPMJS}-/v1/search answered ${response.status} from this machine`;
	} catch (error) {
		const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
		return `${NPMJS} cannot be reached from this machine (${cause})`;
	}
}

describe("pier search", () => {
	const dir = tempDir("pier-search-cli-");
	const agentDir = join(dir.path, "agent");
	let registry: CatalogRegistry;

	before(async () => {
		mkdirSync(agentDir, { recursive: true });
		registry = await startCatalogRegistry(dir.path);
		registry.publish({
			name: "pi-weather",
			version: "1.2.0",
			description: "Weather\u001b[31m for pi",
			keywords: ["pi-package"],
		});
		registry.publish({ name: "pi-tides", version: "0.3.0", description: "Tides", keywords: ["pi-package"] });
		registry.downloads.set("pi-weather", 12345);
	});

	after(async () => {
		await registry?.close();
		dir[Symbol.dispose]();
	});

	test("against the real npm registry: pi packages with versions", async (t) => {
		const unavailable = await realSearchUnavailable();
		const env = { PIER_NPM_REGISTRY: NPMJS };
		const result = await runPier(["search", "--json", "--limit", "5"], { agentDir, env, timeoutMs: 60_000 });
		if (unavailable) {
			// pier says so itself, naming the registry, and fails without a stack trace.
			assert.equal(result.code, 1, result.stderr);
			assert.match(result.stderr, /^pier: search: the npm registry at https:\/\/registry\.npmjs\.org\/ /);
			assert.doesNotMatch(result.stderr, /\n\s+at /);
			t.skip(`the real registry's search is not available: ${unavailable}`);
			return;
		}
		assert.equal(result.code, 0, result.stderr);
		const answer = JSON.parse(result.stdout) as {
			registry: string;
			total: number;
			results: Array<{ name: string; version: string; keywords: string[] }>;
		};
		assert.equal(answer.registry, NPMJS);
		assert.ok(answer.total > 0 && answer.results.length > 0 && answer.results.length <= 5);
		for (const r of answer.results) {
			assert.match(r.version, /^\d+\.\d+\.\d+/, r.name);
			assert.ok(r.keywords.includes("pi-package"), `${r.name}: ${r.keywords}`);
		}
		const text = await runPier(["search", "--limit", "3"], { agentDir, env, timeoutMs: 60_000 });
		assert.equal(text.code, 0, text.stderr);
		assert.match(text.stdout, /^NAME\s+VERSION\s+WEEKLY\s+DESCRIPTION\n/);
	});

	test("the table: name, version, weekly downloads, an installed mark, the description on one line", async () => {
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ packages: ["npm:pi-tides"] }));
		const env = { PIER_NPM_REGISTRY: registry.url, PIER_NPM_DOWNLOADS: registry.downloadsUrl };
		const result = await runPier(["search", "pi"], { agentDir, env });
		assert.equal(result.code, 0, result.stderr);
		const lines = result.stdout.split("\n");
		assert.match(lines[0]!, /^NAME\s+VERSION\s+WEEKLY\s+DESCRIPTION$/);
		assert.match(lines[1]!, /^pi-weather\s+1\.2\.0\s+12,345\s+Weather for pi$/);
		assert.match(lines[2]!, /^pi-tides\s+0\.3\.0\s+unknown\s+installed \(user\)\s+Tides$/);
		assert.ok(!result.stdout.includes("\u001b"), "no terminal escapes from the registry's text");
		assert.match(result.stdout, new RegExp(`2 from ${registry.url.replace(/\//g, "\\/")}\\.`));
		assert.equal(registry.searches.at(-1), "keywords:pi-package pi");
	});

	test("no match, and a bad --limit", async () => {
		const env = { PIER_NPM_REGISTRY: registry.url, PIER_NPM_DOWNLOADS: registry.downloadsUrl };
		const none = await runPier(["search", "volcano"], { agentDir, env });
		assert.equal(none.code, 0);
		assert.match(none.stdout, /^No pi packages match "volcano" on http:/);
		const bad = await runPier(["search", "--limit", "101"], { agentDir, env });
		assert.equal(bad.code, 2);
		assert.match(bad.stderr, /--limit must be a whole number from 1 to 100, got 101/);
		const ok = await runPier(["search", "--limit", "100"], { agentDir, env });
		assert.equal(ok.code, 0, ok.stderr);
	});

	test("the registry down: a clear message naming it, exit 1, and pier list still works", async () => {
		const dead = await deadUrl();
		const result = await runPier(["search", "weather"], { agentDir, env: { PIER_NPM_REGISTRY: dead } });
		assert.equal(result.code, 1);
		assert.equal(result.stdout, "");
		assert.match(
			result.stderr,
			new RegExp(
				`^pier: search: the npm registry at ${dead.replace(/[/.]/g, "\\$&")} cannot be reached .*Installed packages keep working\\.\\n$`,
			),
		);
		const list = await runPier(["list"], { agentDir, env: { PIER_NPM_REGISTRY: dead } });
		assert.equal(list.code, 0, list.stderr);
		assert.match(list.stdout, /npm:pi-tides/);
	});
});

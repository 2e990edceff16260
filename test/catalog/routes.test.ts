/**
 * `/api/pi/packages` over HTTP on a real `pier serve`, with a stand-in registry (search, packuments, real npm
 * tarballs, downloads): search, details, inspect (nothing of the package runs), install with the grants of the
 * confirmation bound to the inspected code, newer versions, update, switching off and on for every project and
 * for one, remove, and the refusals (no confirmation, an untrusted project, a registry that fails).
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type {
	Inspection,
	InstallAnswer,
	InstalledView,
	PackageDetails,
	SearchAnswer,
	UpdateAnswer,
} from "../../src/extensions/catalog/wire.js";
import { type ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { type CatalogRegistry, startCatalogRegistry } from "../helpers/catalog-registry.js";
import { mark, marks, npmEnv, type Registry } from "../helpers/npm-registry.js";
import { runPier, tempDir } from "../helpers/pier-cli.js";
import { apiFor, PASSWORD } from "../chamber-web/browser-helpers.js";

function qjsPackage(version: string, marker: string) {
	return {
		manifest: {
			name: "pi-hooks",
			version,
			description: "Hooks for pi",
			keywords: ["pi-package"],
			readme: "# pi-hooks\n\nIt hooks.",
			scripts: { postinstall: mark(marker, `postinstall-${version}`) },
		},
		files: {
			"extensions/hooks/pi-extension.json": JSON.stringify({
				schemaVersion: 1,
				id: "qjs-hooks",
				runtime: "quickjs",
				entry: "./index.mjs",
				capabilities: ["event_hooks", "tools"],
			}),
			"extensions/hooks/index.mjs": `export default function () {} // ${version}\n`,
		},
	};
}

describe("the packages routes", () => {
	const dir = tempDir("pier-catalog-routes-");
	const agentDir = join(dir.path, "agent");
	const project = join(dir.path, "project");
	const marker = join(dir.path, "marker");
	let registry: CatalogRegistry;
	let serve: Serve;
	let api: ApiClient;
	const settings = () => JSON.parse(readFileSync(join(agentDir, "settings.json"), "utf8"));
	/** The state of qjs-hooks in `pier list` for a project: what a session started there would load. */
	const loads = async (cwd: string) => {
		const env = { ...npmEnv({ url: registry.url } as Registry, dir.path), PI_OFFLINE: "1" };
		const listed = await runPier(["list", "--json", "--cwd", cwd], { agentDir, env });
		assert.equal(listed.code, 0, listed.stderr);
		const model = JSON.parse(listed.stdout) as { extensions: Array<{ id: string; state: string }> };
		return model.extensions.find((e) => e.id === "qjs-hooks")?.state ?? "absent";
	};

	before(async () => {
		mkdirSync(agentDir, { recursive: true });
		mkdirSync(project, { recursive: true });
		registry = await startCatalogRegistry(dir.path);
		const v1 = qjsPackage("1.0.0", marker);
		registry.publish(v1.manifest, v1.files);
		registry.publish({ name: "pi-weather", version: "2.0.0", description: "Weather", keywords: ["pi-package"] });
		registry.downloads.set("pi-hooks", 42);
		serve = await startServe(["--state-dir", join(dir.path, "state"), "--ui-password", PASSWORD, "--no-examples"], {
			agentDir,
			cwd: project,
			env: {
				...npmEnv({ url: registry.url } as Registry, dir.path),
				PIER_NPM_DOWNLOADS: registry.downloadsUrl,
				PI_OFFLINE: "0",
			},
		});
		api = await apiFor(serve.url);
	});

	after(async () => {
		await serve?.stop();
		await registry?.close();
		dir[Symbol.dispose]();
	});

	test("search and details", async () => {
		const found = await api.call<SearchAnswer>("GET", "/api/pi/packages/search?q=hooks");
		assert.equal(found.status, 200, JSON.stringify(found.body));
		assert.deepEqual(found.body.results, [
			{
				name: "pi-hooks",
				description: "Hooks for pi",
				version: "1.0.0",
				date: "2026-01-02T03:04:05.000Z",
				keywords: ["pi-package"],
				publisher: "tester",
				links: { npm: "https://www.npmjs.com/package/pi-hooks" },
				weeklyDownloads: 42,
				installed: [],
			},
		]);
		const details = await api.call<PackageDetails>("GET", "/api/pi/packages/details?name=pi-hooks");
		assert.equal(details.status, 200);
		assert.equal(details.body.readme, "# pi-hooks\n\nIt hooks.");
		assert.equal((await api.call("GET", "/api/pi/packages/details?name=pi-nope")).status, 404);
		const bad = await api.call<{ error: { code: string; message: string } }>(
			"GET",
			"/api/pi/packages/details?name=..%2Fetc",
		);
		assert.equal(bad.status, 400);
		assert.match(bad.body.error.message, /is not an npm package name/);
		const long = await api.call("GET", `/api/pi/packages/search?q=${"a".repeat(201)}`);
		assert.equal(long.status, 400);
		assert.equal((await api.call("GET", `/api/pi/packages/search?q=${"a".repeat(200)}`)).status, 200);
	});

	test("the registry failing: search is a 502 naming it; the installed list still answers", async () => {
		registry.mode = "error";
		try {
			const failed = await api.call<{ error: { code: string; message: string } }>("GET", "/api/pi/packages/search?q=x");
			assert.equal(failed.status, 502);
			assert.equal(failed.body.error.code, "registry_unavailable");
			assert.ok(failed.body.error.message.includes(registry.url), failed.body.error.message);
			assert.match(failed.body.error.message, /answered 503/);
			const listed = await api.call("GET", "/api/pi/packages");
			assert.equal(listed.status, 200);
		} finally {
			registry.mode = "ok";
		}
	});

	test("inspect shows kinds, capabilities, grants and scripts, and runs nothing", async () => {
		const inspected = await api.call<Inspection>("POST", "/api/pi/packages/inspect", {
			source: "npm:pi-hooks",
			scope: "user",
		});
		assert.equal(inspected.status, 200, JSON.stringify(inspected.body));
		const [ext] = inspected.body.extensions;
		assert.equal(inspected.body.extensions.length, 1);
		assert.equal(ext?.id, "qjs-hooks");
		assert.equal(ext?.kind, "quickjs");
		assert.equal(ext?.runsAs, "sandbox");
		assert.deepEqual(ext?.capabilities, ["event_hooks", "tools"]);
		assert.deepEqual(ext?.grants, { grantable: true, known: ["run", "write", "read", "net"], held: [] });
		assert.match(ext?.digest ?? "", /^sha256:[0-9a-f]{64}$/);
		assert.deepEqual(inspected.body.scripts, [{ name: "pi-hooks", scripts: ["postinstall"] }]);
		assert.equal(inspected.body.trust.trusted, true);
		assert.match(inspected.body.trust.summary, /loads in every project/);
		assert.deepEqual(marks(marker), [], "inspecting ran a script");
		assert.ok(!existsSync(join(agentDir, "settings.json")), "inspecting changed settings");
		const bad = await api.call<{ error: { code: string } }>("POST", "/api/pi/packages/inspect", {
			source: "git:nohost",
			scope: "user",
		});
		assert.equal(bad.status, 400);
		assert.equal(bad.body.error.code, "bad_source");
	});

	test("install needs the confirmation; grants go only to the code inspected", async () => {
		const unconfirmed = await api.call("POST", "/api/pi/packages/install", { source: "npm:pi-hooks", scope: "user" });
		assert.equal(unconfirmed.status, 400);
		assert.ok(!existsSync(join(agentDir, "settings.json")));
		const inspected = await api.call<Inspection>("POST", "/api/pi/packages/inspect", {
			source: "npm:pi-hooks",
			scope: "user",
		});
		const digest = inspected.body.extensions[0]!.digest!;
		// A digest of other code: the install happens, the grant does not.
		const other = `sha256:${"0".repeat(64)}`;
		const first = await api.call<InstallAnswer>("POST", "/api/pi/packages/install", {
			source: "npm:pi-hooks",
			scope: "user",
			confirmed: true,
			grants: [{ id: "qjs-hooks", digest: other, grants: ["run"] }],
		});
		assert.equal(first.status, 200, JSON.stringify(first.body));
		assert.deepEqual(first.body.grants.granted, []);
		assert.match(first.body.grants.refused[0]?.reason ?? "", /not the code inspected/);
		assert.equal(settings().extensionHost?.grants, undefined);
		assert.deepEqual(settings().packages, ["npm:pi-hooks"]);
		assert.deepEqual(marks(marker), [], "installing ran a script");
		const second = await api.call<InstallAnswer>("POST", "/api/pi/packages/install", {
			source: "npm:pi-hooks",
			scope: "user",
			confirmed: true,
			grants: [{ id: "qjs-hooks", digest, grants: ["run"] }],
		});
		assert.equal(second.status, 200, JSON.stringify(second.body));
		assert.deepEqual(second.body.grants.granted[0]?.grants, ["run"]);
		const granted = settings().extensionHost.grants["qjs-hooks"];
		assert.deepEqual(granted.grants, ["run"]);
		assert.equal(granted.digest, digest);
		assert.ok(granted.dir.startsWith(join(dir.path, "npm-global")), granted.dir);
	});

	test("the installed list says when the registry has a newer version; update moves to it", async () => {
		let listed = await api.call<InstalledView>("GET", "/api/pi/packages");
		let pkg = listed.body.packages.find((p) => p.source === "npm:pi-hooks");
		assert.equal(pkg?.version, "1.0.0");
		assert.equal(pkg?.newer, false);
		assert.deepEqual(pkg?.extensions, [{ id: "qjs-hooks", kind: "quickjs", enabled: true }]);
		const v2 = qjsPackage("1.1.0", marker);
		registry.publish(v2.manifest, v2.files);
		listed = await api.call<InstalledView>("GET", "/api/pi/packages");
		pkg = listed.body.packages.find((p) => p.source === "npm:pi-hooks");
		assert.equal(pkg?.latest, "1.1.0");
		assert.equal(pkg?.newer, true);
		const updated = await api.call<UpdateAnswer>("POST", "/api/pi/packages/update", { source: "npm:pi-hooks" });
		assert.equal(updated.status, 200, JSON.stringify(updated.body));
		listed = await api.call<InstalledView>("GET", "/api/pi/packages");
		pkg = listed.body.packages.find((p) => p.source === "npm:pi-hooks");
		assert.equal(pkg?.version, "1.1.0");
		assert.equal(pkg?.newer, false);
		assert.deepEqual(marks(marker), [], "updating ran a script");
	});

	test("switched off and on for every project, keeping the entry's filters", async () => {
		const s = settings();
		s.packages = [{ source: "npm:pi-hooks", skills: ["a/**"] }];
		writeFileSync(join(agentDir, "settings.json"), JSON.stringify(s));
		const off = await api.call("PUT", "/api/pi/packages/enabled", { identity: "npm:pi-hooks", enabled: false });
		assert.equal(off.status, 200, JSON.stringify(off.body));
		assert.deepEqual(settings().packages, [
			{
				source: "npm:pi-hooks",
				skills: [],
				extensions: [],
				prompts: [],
				themes: [],
				pierSavedFilters: { skills: ["a/**"] },
			},
		]);
		const listed = await api.call<InstalledView>("GET", "/api/pi/packages");
		const pkg = listed.body.packages.find((p) => p.source === "npm:pi-hooks");
		assert.equal(pkg?.enabled, false);
		assert.equal(pkg?.enabledHere, false);
		assert.equal(await loads(project), "filtered");
		const on = await api.call("PUT", "/api/pi/packages/enabled", { identity: "npm:pi-hooks", enabled: true });
		assert.equal(on.status, 200);
		assert.deepEqual(settings().packages, [{ source: "npm:pi-hooks", skills: ["a/**"] }]);
		const unknown = await api.call<{ error: { code: string } }>("PUT", "/api/pi/packages/enabled", {
			identity: "npm:pi-nope",
			enabled: false,
		});
		assert.equal(unknown.status, 404);
	});

	test("switched off in one project: a project entry overrides it there, nothing installed for it", async () => {
		const off = await api.call<{ trustRecorded?: boolean }>("PUT", "/api/pi/packages/enabled", {
			identity: "npm:pi-hooks",
			enabled: false,
			project,
		});
		assert.equal(off.status, 200, JSON.stringify(off.body));
		// The project had nothing to trust; the settings file written makes it a project pier asks about.
		assert.equal(off.body.trustRecorded, true);
		const projectSettings = JSON.parse(readFileSync(join(project, ".pi", "settings.json"), "utf8"));
		assert.deepEqual(projectSettings.packages, [
			{ source: "npm:pi-hooks", extensions: [], skills: [], prompts: [], themes: [] },
		]);
		const listed = await api.call<InstalledView>("GET", "/api/pi/packages");
		const rows = listed.body.packages.filter((p) => p.identity === "npm:pi-hooks");
		assert.equal(rows.length, 1);
		assert.equal(rows[0]?.scope, "user");
		assert.equal(rows[0]?.enabled, true);
		assert.equal(rows[0]?.enabledHere, false);
		assert.equal(rows[0]?.state, "installed");
		assert.ok(!existsSync(join(project, ".pi", "npm")), "the override was installed");
		assert.equal(await loads(project), "absent");
		assert.equal(await loads(dir.path), "enabled");
		const on = await api.call("PUT", "/api/pi/packages/enabled", { identity: "npm:pi-hooks", enabled: true, project });
		assert.equal(on.status, 200);
		assert.deepEqual(JSON.parse(readFileSync(join(project, ".pi", "settings.json"), "utf8")).packages, []);
		assert.equal(await loads(project), "enabled");
	});

	test("an untrusted project: no switch, no install", async () => {
		const untrusted = join(dir.path, "untrusted");
		mkdirSync(join(untrusted, ".pi", "extensions", "x"), { recursive: true });
		writeFileSync(join(untrusted, ".pi", "extensions", "x", "index.ts"), "export default () => {};\n");
		const off = await api.call<{ error: { code: string; message: string } }>("PUT", "/api/pi/packages/enabled", {
			identity: "npm:pi-hooks",
			enabled: false,
			project: untrusted,
		});
		assert.equal(off.status, 409);
		assert.equal(off.body.error.code, "trust_required");
		const install = await api.call<{ error: { code: string; message: string } }>("POST", "/api/pi/packages/install", {
			source: "npm:pi-weather",
			scope: "project",
			cwd: untrusted,
			confirmed: true,
		});
		assert.equal(install.status, 409);
		assert.match(install.body.error.message, /is not trusted/);
		assert.ok(!existsSync(join(untrusted, ".pi", "settings.json")));
	});

	test("remove", async () => {
		const removed = await api.call("POST", "/api/pi/packages/remove", { source: "npm:pi-hooks", scope: "user" });
		assert.equal(removed.status, 200, JSON.stringify(removed.body));
		assert.deepEqual(settings().packages, []);
		const again = await api.call<{ error: { code: string; message: string } }>("POST", "/api/pi/packages/remove", {
			source: "npm:pi-hooks",
			scope: "user",
		});
		assert.equal(again.status, 400);
		assert.match(again.body.error.message, /no user package matches npm:pi-hooks/);
	});
});

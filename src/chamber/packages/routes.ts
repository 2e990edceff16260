/**
 * `/api/pi/packages`: the package catalog (docs/chamber-api.md, "Packages"). Search and details read the npm
 * registry (extensions/catalog/registry.ts); inspect shows what a source holds before anything of it runs;
 * install, update and remove are the CLI's own commands run by the daemon (pier-run.ts); enabled switches a
 * package off or on for every project or one (extensions/catalog/switch.ts). A registry that cannot be reached
 * is a 502 naming it; the installed list still answers, with the latest versions unknown.
 */
import { isAbsolute, resolve } from "node:path";
import type { Context } from "hono";
import { Hono } from "hono";
import { grantInstalled } from "../../extensions/catalog/grants.js";
import { InspectError, inspectSource, installTrust } from "../../extensions/catalog/inspect.js";
import { configuredIdentities, installedPackages } from "../../extensions/catalog/installed.js";
import {
	MAX_QUERY_CHARS,
	MAX_SEARCH_SIZE,
	packageDetails,
	packageNameProblem,
	RegistryError,
	searchPackages,
} from "../../extensions/catalog/registry.js";
import { SwitchError, switchPackage } from "../../extensions/catalog/switch.js";
import type {
	EnabledAnswer,
	InstallAnswer,
	PackageDetails,
	RemoveAnswer,
	SearchAnswer,
	UpdateAnswer,
} from "../../extensions/catalog/wire.js";
import { PackageSourceError, parseScopedSource } from "../../extensions/packages/sources.js";
import { jsonError } from "../http-errors.js";
import { jsonBody } from "../json-body.js";
import { runPier } from "./pier-run.js";
import { EnabledBody, InspectBody, InstallBody, RemoveBody, UpdateBody } from "./wire.js";

export interface PackageRouteOptions {
	agentDir: () => string;
	/** The daemon's directory: a project given relative is relative to it. */
	defaultCwd: string;
}

function registryFailure(c: Context, error: RegistryError): Response {
	return jsonError(
		c,
		error.reason === "not_found" ? 404 : 502,
		error.reason === "not_found" ? "not_found" : "registry_unavailable",
		error.message,
	);
}

/** What a package command printed on stderr, as one message (its "pier: " prefixes dropped). */
const stderrMessage = (text: string) =>
	text
		.split("\n")
		.map((l) => l.replace(/^pier: /, ""))
		.join("\n")
		.trim();

export function packageRoutes(options: PackageRouteOptions): Hono {
	const app = new Hono();
	const cwdOf = (cwd: string | undefined) => resolve(options.defaultCwd, cwd ?? ".");

	app.get("/", async (c) => {
		const cwd = cwdOf(c.req.query("cwd"));
		return c.json(await installedPackages({ cwd, agentDir: options.agentDir(), registry: { cwd } }));
	});

	app.get("/search", async (c) => {
		const q = c.req.query("q") ?? "";
		if (q.length > MAX_QUERY_CHARS) return jsonError(c, 400, "bad_request", `q: at most ${MAX_QUERY_CHARS} characters`);
		const size = Number(c.req.query("size") ?? "20");
		const from = Number(c.req.query("from") ?? "0");
		if (!Number.isInteger(size) || size < 1 || size > MAX_SEARCH_SIZE)
			return jsonError(c, 400, "bad_request", `size: a whole number from 1 to ${MAX_SEARCH_SIZE}`);
		if (!Number.isInteger(from) || from < 0 || from > 10_000)
			return jsonError(c, 400, "bad_request", "from: a whole number from 0 to 10000");
		const cwd = cwdOf(c.req.query("cwd"));
		try {
			const answer = await searchPackages(q, { size, from, cwd });
			const installed = configuredIdentities(cwd, options.agentDir());
			return c.json({
				...answer,
				results: answer.results.map((r) => ({ ...r, installed: installed.get(`npm:${r.name}`) ?? [] })),
			} satisfies SearchAnswer);
		} catch (error) {
			if (error instanceof RegistryError) return registryFailure(c, error);
			throw error;
		}
	});

	app.get("/details", async (c) => {
		const name = c.req.query("name") ?? "";
		const problem = packageNameProblem(name);
		if (problem) return jsonError(c, 400, "bad_request", `name: ${JSON.stringify(name)} ${problem}`);
		const cwd = cwdOf(c.req.query("cwd"));
		try {
			const details = await packageDetails(name, { cwd });
			return c.json({
				...details,
				installed: configuredIdentities(cwd, options.agentDir()).get(`npm:${name}`) ?? [],
			} satisfies PackageDetails);
		} catch (error) {
			if (error instanceof RegistryError) return registryFailure(c, error);
			throw error;
		}
	});

	app.post("/inspect", jsonBody(InspectBody), async (c) => {
		const b = c.req.valid("json");
		try {
			return c.json(
				await inspectSource({ source: b.source, scope: b.scope, cwd: cwdOf(b.cwd), agentDir: options.agentDir() }),
			);
		} catch (error) {
			if (error instanceof PackageSourceError) return jsonError(c, 400, "bad_source", error.message);
			if (error instanceof InspectError) return jsonError(c, 502, "inspect_failed", error.message);
			throw error;
		}
	});

	app.post("/install", jsonBody(InstallBody), async (c) => {
		const b = c.req.valid("json");
		const cwd = cwdOf(b.cwd);
		const agentDir = options.agentDir();
		let identity: string;
		try {
			identity = parseScopedSource(b.source, cwd).identity;
		} catch (error) {
			if (error instanceof PackageSourceError) return jsonError(c, 400, "bad_source", error.message);
			throw error;
		}
		const trust = installTrust(b.scope, cwd, agentDir);
		if (!trust.trusted) return jsonError(c, 409, "trust_required", trust.summary);
		const ran = await runPier(["install", b.source, ...(b.scope === "project" ? ["-l"] : []), "--cwd", cwd], cwd);
		if (ran.code !== 0)
			return jsonError(c, ran.code === 2 ? 400 : 502, "install_failed", stderrMessage(ran.stderr) || ran.stdout);
		const grants = await grantInstalled({ agentDir, cwd, identity, choices: b.grants ?? [] });
		const view = await installedPackages({ cwd, agentDir, checkLatest: false });
		return c.json({
			output: ran.stdout,
			...(ran.stderr ? { notices: stderrMessage(ran.stderr) } : {}),
			grants,
			package: view.packages.find((p) => p.identity === identity && p.scope === b.scope),
		} satisfies InstallAnswer);
	});

	app.post("/update", jsonBody(UpdateBody), async (c) => {
		const b = c.req.valid("json");
		const cwd = cwdOf(b.cwd);
		const ran = await runPier(["update", b.source, "--cwd", cwd], cwd);
		if (ran.code !== 0)
			return jsonError(c, ran.code === 2 ? 400 : 502, "update_failed", stderrMessage(ran.stderr) || ran.stdout);
		return c.json({
			output: ran.stdout,
			...(ran.stderr ? { notices: stderrMessage(ran.stderr) } : {}),
		} satisfies UpdateAnswer);
	});

	app.post("/remove", jsonBody(RemoveBody), async (c) => {
		const b = c.req.valid("json");
		const cwd = cwdOf(b.cwd);
		const ran = await runPier(["remove", b.source, ...(b.scope === "project" ? ["-l"] : []), "--cwd", cwd], cwd);
		if (ran.code !== 0)
			return jsonError(c, ran.code === 2 ? 400 : 502, "remove_failed", stderrMessage(ran.stderr) || ran.stdout);
		return c.json({ output: ran.stdout } satisfies RemoveAnswer);
	});

	app.put("/enabled", jsonBody(EnabledBody), async (c) => {
		const b = c.req.valid("json");
		if (b.project !== undefined && !isAbsolute(b.project) && b.project !== ".")
			return jsonError(c, 400, "bad_request", `/project: ${JSON.stringify(b.project)} is not an absolute directory`);
		try {
			const done = await switchPackage({
				agentDir: options.agentDir(),
				identity: b.identity,
				enabled: b.enabled,
				...(b.project !== undefined ? { project: cwdOf(b.project) } : {}),
			});
			return c.json({ identity: b.identity, ...done } satisfies EnabledAnswer);
		} catch (error) {
			if (error instanceof SwitchError)
				return jsonError(c, error.code === "not_found" ? 404 : 409, error.code, error.message);
			throw error;
		}
	});

	return app;
}

/**
 * The published API (issue 35): the OpenAPI document is generated from the real app's routes and the schemas
 * that validate them, validates as OpenAPI 3.1, names every route the server registers and no route it does not,
 * is served at /api/openapi.json without a credential, and is checked in as docs/openapi.json unchanged.
 * Every /api answer carries the version header.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { jsonBody } from "../../src/chamber/json-body.js";
import { apiRoutes, openApiDocument, openApiPath, routeKey } from "../../src/chamber/openapi/document.js";
import { generateOpenApi } from "../../src/chamber/openapi/generate.js";
import { type Operation, OPERATION_AREAS, OPERATIONS } from "../../src/chamber/openapi/operations.js";
import { API_VERSION, API_VERSION_HEADER } from "../../src/chamber/openapi/version.js";
import { chamberApp } from "../../src/chamber/server.js";
import { Bodies } from "../../src/chamber/wire.js";
import { EVENT_SCHEMAS } from "../../src/chamber/wire-events.js";
import { NON_JSON_ROUTES } from "../../src/client/index.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const HOW_TO_ADD =
	'add an entry `"METHOD /api/…/:param": { summary, query?, body?, response }` to the table of its area ' +
	"(src/chamber/openapi/operations-{account,sessions,parts}.ts, or a new file merged in operations.ts; its body the " +
	"route's own jsonBody schema, its response a TypeBox schema or `described<YourType>(…)`), then run " +
	"`npm run openapi` to rewrite docs/openapi.json";

const dir = tempDir("pier-openapi-");
let built: Awaited<ReturnType<typeof chamberApp>>;
let token: string;
const saved = process.env.PI_CODING_AGENT_DIR;

before(async () => {
	process.env.PI_CODING_AGENT_DIR = join(dir.path, "agent");
	const project = join(dir.path, "project");
	mkdirSync(project, { recursive: true });
	built = await chamberApp({ stateDir: join(dir.path, "state"), defaultCwd: project, heartbeatMs: 3_600_000 });
	token = built.auth.createDeviceToken("openapi").token;
});
after(async () => {
	await built.close();
	if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
	else process.env.PI_CODING_AGENT_DIR = saved;
	dir[Symbol.dispose]();
});

const table = OPERATIONS as Record<string, Operation>;

describe("the OpenAPI document", () => {
	test("validates as OpenAPI 3.1 (@seriousme/openapi-schema-validator)", async () => {
		const { document } = openApiDocument(built.app.routes);
		const result = await new Validator().validate(document as Parameters<Validator["validate"]>[0]);
		assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 4000));
		assert.equal(document.openapi, "3.1.0");
		assert.equal((document.info as { version: string }).version, API_VERSION);
	});

	test("every route the server registers is in it, and every route in it exists", () => {
		const registered = apiRoutes(built.app.routes).map(routeKey);
		// Routes of other parts' routers (auth, push, MCP, changes, files, terminals…) are in the real app's list too.
		for (const key of ["GET /api/auth/status", "POST /api/push/subscribe", "GET /api/pi/sessions/:id/changes"]) {
			assert.ok(registered.includes(key), `${key} among ${registered.length} routes`);
		}
		const undocumented = registered.filter((key) => !(key in table));
		assert.deepEqual(
			undocumented,
			[],
			`routes the server registers without an OpenAPI entry:\n  ${undocumented.join("\n  ")}\nFor each: ${HOW_TO_ADD}.`,
		);
		const unrouted = Object.keys(table).filter((key) => !registered.includes(key));
		assert.deepEqual(
			unrouted,
			[],
			`entries of src/chamber/openapi/operations.ts that no route answers:\n  ${unrouted.join("\n  ")}\n` +
				"Remove them, or fix the method/path to match the route as Hono registers it.",
		);
		const { document } = openApiDocument(built.app.routes);
		const inDocument = Object.entries(document.paths as Record<string, object>).flatMap(([path, item]) =>
			Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
		);
		assert.deepEqual(
			inDocument.sort(),
			registered.map((key) => key.replace(/ (.*)$/, (_, p: string) => ` ${openApiPath(p)}`)).sort(),
		);
	});

	test("no route is in two of the area tables (a second entry would silently replace the first)", () => {
		const keys = OPERATION_AREAS.flatMap((t) => Object.keys(t));
		const twice = keys.filter((k, i) => keys.indexOf(k) !== i);
		assert.deepEqual(twice, [], `in two tables: ${twice.join(", ")}`);
		assert.equal(Object.keys(OPERATIONS).length, keys.length);
	});

	test("a route added without an entry is caught, by name", () => {
		const routes = [
			...built.app.routes,
			{ method: "POST", path: "/api/pi/sessions/:id/not-a-route", handler: () => undefined },
		];
		const generated = openApiDocument(routes);
		assert.deepEqual(generated.undocumented, ["POST /api/pi/sessions/:id/not-a-route"]);
		const op = (generated.document.paths as Record<string, Record<string, { summary: string }>>)[
			"/api/pi/sessions/{id}/not-a-route"
		]?.post;
		assert.match(op?.summary ?? "", /Undocumented: add this route to src\/chamber\/openapi\/operations\.ts/);
	});

	test("request bodies are the schemas the routes validate; a declared body is that very schema", () => {
		const routes = apiRoutes(built.app.routes);
		const withBody = routes.filter((r) => r.body);
		assert.ok(withBody.length >= 40, `${withBody.length} routes validate a JSON body`);
		for (const route of withBody) {
			const declared = table[routeKey(route)]?.body;
			if (declared) {
				assert.equal(
					declared,
					route.body,
					`${routeKey(route)}: operations.ts's body is not the route's jsonBody schema`,
				);
			}
		}
		const prompt = routes.find((r) => routeKey(r) === "POST /api/pi/sessions/:id/prompt");
		assert.equal(prompt?.body, Bodies.prompt);
		const { document } = openApiDocument(built.app.routes);
		const paths = document.paths as Record<string, Record<string, { requestBody?: { content: object } }>>;
		const content = paths["/api/pi/sessions/{id}/prompt"]?.post?.requestBody?.content ?? {};
		const schema = (content as Record<string, { schema: object }>)["application/json"]?.schema;
		assert.deepEqual(schema, JSON.parse(JSON.stringify(Bodies.prompt)));
		// A route whose body is validated by another part (push) is documented from its jsonBody alone.
		assert.ok(paths["/api/push/subscribe"]?.post?.requestBody);
	});

	test("middleware rows (app.use, ALL) and wildcards are not routes; an app.all route on its own is", () => {
		const noop = () => undefined;
		const rows = [
			{ method: "ALL", path: "/api/pi/*", handler: noop },
			{ method: "ALL", path: "/api/pi/events", handler: noop },
			{ method: "GET", path: "/api/pi/events", handler: noop },
			{ method: "POST", path: "/api/pi/x/:id", handler: jsonBody(Bodies.text) },
			{ method: "POST", path: "/api/pi/x/:id", handler: noop },
			{ method: "ALL", path: "/api/pi/only-all", handler: noop },
			{ method: "GET", path: "/*", handler: noop },
		];
		const routes = apiRoutes(rows);
		assert.deepEqual(routes.map(routeKey), ["GET /api/pi/events", "POST /api/pi/x/:id", "ALL /api/pi/only-all"]);
		assert.equal(routes[1]?.body, Bodies.text);
		assert.equal(openApiPath("/api/pi/sessions/:id/images/:entryId/:n"), "/api/pi/sessions/{id}/images/{entryId}/{n}");
	});

	test("the event stream's envelope and every event payload are components", () => {
		const { document } = openApiDocument(built.app.routes);
		const schemas = (document.components as { schemas: Record<string, { oneOf?: unknown[] }> }).schemas;
		for (const name of [
			"Event_session_snapshot",
			"Event_transcript_row",
			"Event_agent_end",
			"Event_extension_dialog",
		]) {
			assert.ok(schemas[name], name);
		}
		assert.equal(schemas.EventEnvelope?.oneOf?.length, Object.keys(EVENT_SCHEMAS).length);
		assert.deepEqual(schemas.Event_transcript_row, {
			type: "object",
			required: ["row"],
			properties: { row: { $ref: "#/components/schemas/TranscriptRow" }, draftId: { type: "string" } },
		});
	});

	test("docs/openapi.json is the generated document (npm run openapi rewrites it)", async () => {
		const generated = await generateOpenApi();
		const checkedIn = readFileSync(join(REPO_ROOT, "docs", "openapi.json"), "utf8");
		assert.ok(
			checkedIn === generated.text,
			"docs/openapi.json differs from the document the routes generate: run `npm run openapi` and commit it",
		);
	});

	test("the client knows which routes answer something other than JSON", () => {
		const nonJson = Object.entries(table)
			.filter(([, op]) => op.content)
			.map(([key]) => key);
		assert.deepEqual([...NON_JSON_ROUTES].sort(), nonJson.sort());
	});
});

describe("serving it, and the version header", () => {
	test("GET /api/openapi.json answers without a credential, the same document", async () => {
		const res = await built.app.request("/api/openapi.json");
		assert.equal(res.status, 200);
		assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
		assert.equal(res.headers.get(API_VERSION_HEADER), API_VERSION);
		const served = (await res.json()) as { paths: object };
		assert.deepEqual(served, openApiDocument(built.app.routes).document);
		// It describes routes, never this daemon's state: no directory of it appears.
		assert.ok(!JSON.stringify(served).includes(dir.path), "no path of the daemon's state in the document");
	});

	test("every /api answer carries Pier-Api-Version: success, 401, 400, 404, 403 bad_host, the auth routes", async () => {
		const bearer = { authorization: `Bearer ${token}` };
		const answers = [
			await built.app.request("/api/pi/sessions", { headers: bearer }),
			await built.app.request("/api/pi/sessions"),
			await built.app.request(`/api/pi/sessions?q=${"x".repeat(300)}`, { headers: bearer }),
			await built.app.request("/api/pi/no-such-route", { headers: bearer }),
			await built.app.request("/api/auth/status"),
		];
		assert.deepEqual(
			answers.map((r) => r.status),
			[200, 401, 400, 404, 200],
		);
		for (const res of answers) assert.equal(res.headers.get(API_VERSION_HEADER), API_VERSION, res.url);
		// A request under another Host name is refused before any route, and still says the version.
		built.allowHosts(["127.0.0.1:1"]);
		try {
			const refused = await built.app.request("http://evil.example/api/pi/sessions", { headers: bearer });
			assert.equal(refused.status, 403);
			assert.equal(refused.headers.get(API_VERSION_HEADER), API_VERSION);
		} finally {
			built.allowHosts(undefined);
		}
		// The web app's files are not the API.
		const page = await built.app.request("/");
		assert.equal(page.headers.get(API_VERSION_HEADER), null);
	});
});

/**
 * pi 1.6's extension API in protocol extensions, in real pi sessions, for the Node kit and QuickJS (one fixture,
 * test/fixtures/quickjs/pi16-api, run by both): `ctx.isProjectTrusted()` from the context snapshot, which pier
 * fills from pi's own answer (pier's trust decision, as trust-settings.ts gives it to pi), `pi.on`'s
 * unsubscribe, and every ExtensionAPI member, those that cannot cross throwing a clear error.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { createPierSession } from "../../src/index.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const RUNTIMES = {
	node: join(REPO_ROOT, "test", "kit", "fixtures", "kit-pi16-api"),
	quickjs: join(REPO_ROOT, "test", "fixtures", "quickjs", "pi16-api"),
};

type Pier = Awaited<ReturnType<typeof createPierSession>>;

/** A real session in a project that needs a trust decision, with the fixture loaded. */
async function withSession<T>(pkg: string, approve: boolean | undefined, run: (pier: Pier) => Promise<T>): Promise<T> {
	using project = tempDir();
	using agent = tempDir();
	// A project setting is something pier loads from the project only once it is trusted.
	mkdirSync(join(project.path, ".pi"));
	writeFileSync(join(project.path, ".pi", "settings.json"), "{}");
	const pier = await createPierSession({
		cwd: project.path,
		agentDir: agent.path,
		session: { kind: "memory" },
		extensionPaths: [pkg],
		...(approve !== undefined ? { approve } : {}),
	});
	try {
		return await run(pier);
	} finally {
		await pier.dispose();
	}
}

/** What `tool` said when pi's demo model called it for the prompt `<tool> {}`. */
async function toolSays(pier: Pier, tool: string): Promise<string> {
	await pier.session.prompt(`${tool} {}`);
	const text = (pier.session.messages.at(-1) as { content: { text: string }[] }).content[0]!.text;
	const said = new RegExp(`the ${tool} tool says: "(.*)"\\.$`, "s").exec(text)?.[1];
	assert.ok(said, text);
	return said;
}

/** The members of pi 1.6's ExtensionAPI, read from the installed pi's declarations. */
function piApiMembers(): string[] {
	const types = readFileSync(
		join(REPO_ROOT, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "core", "extensions", "types.d.ts"),
		"utf8",
	);
	const body = /^export interface ExtensionAPI \{\n([\s\S]*?)^\}/m.exec(types)?.[1];
	assert.ok(body, "pi's types.d.ts has no ExtensionAPI interface");
	return [...new Set([...body.matchAll(/^ {4}(?:readonly )?([A-Za-z]+)[(<?:]/gm)].map((m) => m[1]!))];
}

const NOUN = { node: "process", quickjs: "QuickJS" };

for (const [runtime, pkg] of Object.entries(RUNTIMES)) {
	describe(`pi 1.6's extension API: ${runtime}`, () => {
		test("ctx.isProjectTrusted() is false in a project nobody trusted, true with --approve", async () => {
			assert.equal(
				await withSession(pkg, undefined, (pier) => toolSays(pier, "trusted")),
				"trusted=false atStart=false",
			);
			assert.equal(await withSession(pkg, true, (pier) => toolSays(pier, "trusted")), "trusted=true atStart=true");
		});

		test("the unsubscribe pi.on returns stops that registration's delivery, and only that one", async () => {
			await withSession(pkg, true, async (pier) => {
				// Each prompt is two turns (the tool call, then the answer); the tool runs in the first.
				assert.deepEqual(JSON.parse(await toolSays(pier, "turns")), { every: 1, once: 1, dropped: 0, twice: 1 });
				assert.deepEqual(JSON.parse(await toolSays(pier, "turns")), { every: 3, once: 1, dropped: 0, twice: 3 });
			});
		});

		test("every member of pi 1.6's ExtensionAPI is there; one that cannot cross throws, naming itself and why", async () => {
			await withSession(pkg, true, async (pier) => {
				const { members, thrown } = JSON.parse(await toolSays(pier, "api")) as { members: string[]; thrown: string };
				const expected = piApiMembers();
				assert.ok(expected.includes("registerEntryRenderer") && expected.includes("on"), expected.join(","));
				assert.deepEqual(
					expected.filter((m) => !members.includes(m)),
					[],
				);
				assert.equal(
					thrown,
					`pi.registerEntryRenderer is not available to ${NOUN[runtime as keyof typeof NOUN]} extensions in pier: renderers run in pi's process (issue 'Extension UI in the browser')`,
				);
			});
		});
	});
}

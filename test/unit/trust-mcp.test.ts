/**
 * The trust question's view of a project's `.pi/mcp.json` (extensions/trust-mcp.ts): each server's name and its
 * command line or URL, nothing secret, nothing that repaints the question, and a malformed or odd file named with
 * a note instead of a crash.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { previewLines, previewProjectMcp, urlWithoutSecrets } from "../../src/extensions/trust-mcp.js";
import { tempDir } from "../helpers/pier-cli.js";

function project(root: string, text: string): string {
	mkdirSync(join(root, ".pi"), { recursive: true });
	writeFileSync(join(root, ".pi", "mcp.json"), text);
	return root;
}

test("no .pi/mcp.json: nothing to show", () => {
	using dir = tempDir();
	assert.equal(previewProjectMcp(dir.path), undefined);
});

test("each server's command line or URL; env, headers and URL secrets never", () => {
	using dir = tempDir();
	const config = {
		mcpServers: {
			files: { command: "npx", args: ["-y", "@scope/server", "a dir"], env: { TOKEN: "env-secret" } },
			remote: {
				url: "https://user:pass-secret@mcp.example.com/v1/mcp?key=query-secret#frag-secret",
				headers: { Authorization: "Bearer header-secret" },
				oauth: { clientSecret: "oauth-secret" },
			},
			local: { command: "./server", cwd: "tools" },
			"turn-off": { enabled: false },
			broken: { command: 42 },
			odd: "not an object",
		},
	};
	const preview = previewProjectMcp(project(dir.path, `\uFEFF${JSON.stringify(config)}`));
	assert.deepEqual(preview, {
		file: ".pi/mcp.json",
		servers: [
			{ name: "files", launch: 'npx -y @scope/server "a dir"' },
			{ name: "remote", launch: "https://mcp.example.com/v1/mcp?…" },
			{ name: "local", launch: "./server (in tools)" },
			{ name: "turn-off", launch: "(changes enabled/exposure of your own server of this name)" },
			{ name: "broken", launch: "(an invalid entry: pi reports it and starts nothing for it)" },
			{ name: "odd", launch: "(not a server entry: pi reports it and starts nothing for it)" },
		],
	});
	assert.doesNotMatch(JSON.stringify(preview), /secret/);
	assert.deepEqual(previewLines(preview!).slice(0, 3), [
		".pi/mcp.json would start these MCP servers:",
		'  files: npx -y @scope/server "a dir"',
		"  remote: https://mcp.example.com/v1/mcp?…",
	]);
	assert.equal(urlWithoutSecrets("not a url"), "(not a valid URL)");
});

test("escape sequences and bidi controls in a name or command are shown escaped; long text and many servers are cut", () => {
	using dir = tempDir();
	const servers: Record<string, unknown> = {
		"\u001b[2J\u001b[Hevil": { command: "sh", args: ["-c", "\u202Eexit 0"] },
		long: { command: "x".repeat(1000) },
	};
	for (let i = 0; i < 30; i++) servers[`s${i}`] = { command: "true" };
	const preview = previewProjectMcp(project(dir.path, JSON.stringify({ mcpServers: servers })))!;
	assert.equal(preview.servers[0]!.name, "\\u001B[2J\\u001B[Hevil");
	assert.equal(preview.servers[0]!.launch, 'sh -c "\\u202Eexit 0"');
	assert.ok(preview.servers[1]!.launch.length <= 241 && preview.servers[1]!.launch.endsWith("…"));
	assert.equal(preview.servers.length, 20);
	assert.equal(preview.more, 12);
	assert.equal(previewLines(preview).at(-1), "  … and 12 more");
	// biome-ignore lint/suspicious/noControlCharactersInRegex: what must not be there
	assert.doesNotMatch(previewLines(preview).join("\n"), /[\u0000-\u0009\u000b-\u001f\u202e]/);
});

test("a malformed file is named with a note that quotes none of it", () => {
	using dir = tempDir();
	const notJson = previewProjectMcp(project(dir.path, "SECRET-KEY-MATERIAL"))!;
	assert.deepEqual(notJson.servers, []);
	assert.match(notJson.problem ?? "", /^it is not valid JSON \(/);
	assert.doesNotMatch(JSON.stringify(notJson), /SECRET/);
	assert.match(previewLines(notJson)[0]!, /^\.pi\/mcp\.json is malformed: it is not valid JSON .*pi would start none/);

	const wrongShape = previewProjectMcp(project(dir.path, '{"mcpServers": []}'))!;
	assert.equal(wrongShape.problem, 'it is not an object with an "mcpServers" object');
	assert.deepEqual(previewProjectMcp(project(dir.path, "{}")), { file: ".pi/mcp.json", servers: [] });
	assert.deepEqual(previewLines({ file: ".pi/mcp.json", servers: [] }), [".pi/mcp.json names no MCP servers."]);

	const big = previewProjectMcp(project(dir.path, " ".repeat(300 * 1024)))!;
	assert.match(big.problem ?? "", /too large to show/);
});

test("a FIFO or a directory named mcp.json is not read (a FIFO would block)", () => {
	using fifo = tempDir();
	mkdirSync(join(fifo.path, ".pi"));
	execFileSync("mkfifo", [join(fifo.path, ".pi", "mcp.json")]);
	assert.equal(previewProjectMcp(fifo.path)?.problem, "it is not a regular file");
	using dir = tempDir();
	mkdirSync(join(dir.path, ".pi", "mcp.json"), { recursive: true });
	assert.equal(previewProjectMcp(dir.path)?.problem, "it is not a regular file");
	using link = tempDir();
	mkdirSync(join(link.path, ".pi"));
	symlinkSync(join(link.path, "missing"), join(link.path, ".pi", "mcp.json"));
	assert.equal(previewProjectMcp(link.path), undefined, "a dangling link is no file, as pi sees it");
});

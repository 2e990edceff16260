/**
 * pi 1.6's `project_trust` event reaches in-process extensions in pier, as in pi's CLI: for an undecided project,
 * the user's own extensions (never the project's) are asked in load order, the first `yes` or `no` decides and
 * `remember` stores it in the trust store pier and pi share; a handler that throws is named and skipped. pi's own
 * example (project-trust.ts) prints what pi prints.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { cleanEnv, REPO_ROOT, runPier, tempDir } from "./helpers/pier-cli.js";

const PI_PACKAGE = join(REPO_ROOT, "node_modules", "@earendil-works", "pi-coding-agent");
const EXAMPLE = join(PI_PACKAGE, "examples", "extensions", "project-trust.ts");

/** An undecided project: its context file needs trust, and its own extension adds `project_tool`. */
function project(root: string): string {
	const dir = join(root, "project");
	mkdirSync(join(dir, ".pi", "extensions"), { recursive: true });
	writeFileSync(join(dir, "AGENTS.md"), "# rules\n");
	writeFileSync(
		join(dir, ".pi", "extensions", "project-tool.ts"),
		`export default function (pi: any) {
	pi.registerTool({ name: "project_tool", label: "p", description: "d", parameters: { type: "object", properties: {} },
		execute: async () => ({ content: [{ type: "text", text: "from the project" }] }) });
}
`,
	);
	return dir;
}

/** A user extension whose project_trust handler answers `answer` (or throws, for "throw"). */
function handler(root: string, name: string, answer: object | "throw"): string {
	const file = join(root, `${name}.ts`);
	const body = answer === "throw" ? 'throw new Error("no opinion today")' : `return ${JSON.stringify(answer)}`;
	writeFileSync(
		file,
		`export default function (pi: any) {\n\tpi.on("project_trust", async () => {\n\t\t${body};\n\t});\n}\n`,
	);
	return file;
}

function trustFile(agentDir: string): Record<string, boolean> {
	const file = join(agentDir, "trust.json");
	return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, boolean>) : {};
}

describe("in-process project_trust handlers (pi 1.6's event)", () => {
	test("pi's project-trust.ts example fires in pier run and prints what pi prints; the project stays untrusted", async () => {
		using dir = tempDir();
		const cwd = project(dir.path);
		const args = ["-p", "--no-session", "-e", EXAMPLE, "project_tool {}"];
		const pier = await runPier(args, { agentDir: dir.path, cwd });
		assert.equal(pier.code, 0, pier.stderr);
		const fired = `project_trust fired for ${cwd} (mode: print, load: 1)`;
		assert.ok(pier.stderr.includes(fired), pier.stderr);
		assert.match(pier.stdout, /no active tool named "project_tool"/, "undecided: the project's extension did not load");
		const pi = await new Promise<string>((resolve, reject) => {
			const child = spawn(
				process.execPath,
				[join(PI_PACKAGE, "dist", "cli.js"), "-p", "--no-session", "-e", EXAMPLE, "hi"],
				{
					cwd,
					env: cleanEnv(dir.path),
					stdio: ["ignore", "ignore", "pipe"],
				},
			);
			let stderr = "";
			child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
			child.on("error", reject);
			child.on("close", () => resolve(stderr));
		});
		assert.ok(pi.includes(fired), `pi prints the same line: ${pi}`);
	});

	test("a handler's yes with remember trusts the project, loads its extension and stores the decision", async () => {
		using dir = tempDir();
		const cwd = project(dir.path);
		const yes = handler(dir.path, "yes", { trusted: "yes", remember: true });
		const result = await runPier(["run", "--no-session", "-e", yes, "project_tool {}"], { agentDir: dir.path, cwd });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /from the project/);
		assert.ok(result.stderr.includes(`project trusted by extension ${yes}`), result.stderr);
		assert.doesNotMatch(result.stderr, /no decision yet/, "the undecided line is gone once decided");
		assert.deepEqual(trustFile(dir.path), { [cwd]: true });
	});

	test("the first decision wins: undecided falls through, a no without remember refuses this run only", async () => {
		using dir = tempDir();
		const cwd = project(dir.path);
		const undecided = handler(dir.path, "undecided", { trusted: "undecided" });
		const no = handler(dir.path, "no", { trusted: "no" });
		const yes = handler(dir.path, "yes", { trusted: "yes" });
		const args = ["run", "--no-session", "-e", undecided, "-e", no, "-e", yes, "project_tool {}"];
		const result = await runPier(args, { agentDir: dir.path, cwd });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /no active tool named "project_tool"/);
		assert.ok(result.stderr.includes(`extension ${no} chose not to trust it`), result.stderr);
		assert.deepEqual(trustFile(dir.path), {}, "nothing remembered");
	});

	test("a handler that throws is named, and the next one decides", async () => {
		using dir = tempDir();
		const cwd = project(dir.path);
		const broken = handler(dir.path, "broken", "throw");
		const yes = handler(dir.path, "yes", { trusted: "yes" });
		const args = ["run", "--no-session", "-e", broken, "-e", yes, "project_tool {}"];
		const result = await runPier(args, { agentDir: dir.path, cwd });
		assert.equal(result.code, 0, result.stderr);
		assert.ok(result.stderr.includes(`Extension "${broken}" project_trust error: no opinion today`), result.stderr);
		assert.match(result.stdout, /from the project/);
	});

	test("a stored decision is not asked about, and --no-approve is not overruled", async () => {
		using dir = tempDir();
		const cwd = project(dir.path);
		const yes = handler(dir.path, "yes", { trusted: "yes", remember: true });
		writeFileSync(join(dir.path, "trust.json"), `${JSON.stringify({ [cwd]: false })}\n`);
		const stored = await runPier(["run", "--no-session", "-e", yes, "project_tool {}"], { agentDir: dir.path, cwd });
		assert.match(stored.stdout, /no active tool named "project_tool"/);
		assert.deepEqual(trustFile(dir.path), { [cwd]: false }, "the stored no stands");
		writeFileSync(join(dir.path, "trust.json"), "{}\n");
		const flag = await runPier(["run", "--no-approve", "--no-session", "-e", yes, "project_tool {}"], {
			agentDir: dir.path,
			cwd,
		});
		assert.match(flag.stdout, /no active tool named "project_tool"/);
		assert.deepEqual(trustFile(dir.path), {});
	});

	test("a project's own extension is never asked: it cannot trust the project that holds it", async () => {
		using dir = tempDir();
		const cwd = project(dir.path);
		writeFileSync(
			join(cwd, ".pi", "extensions", "self-trust.ts"),
			'export default function (pi: any) { pi.on("project_trust", async () => ({ trusted: "yes", remember: true })); }\n',
		);
		const result = await runPier(["run", "--no-session", "project_tool {}"], { agentDir: dir.path, cwd });
		assert.equal(result.code, 0, result.stderr);
		assert.match(result.stdout, /no active tool named "project_tool"/);
		assert.deepEqual(trustFile(dir.path), {});
	});
});

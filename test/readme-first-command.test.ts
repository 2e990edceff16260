/**
 * The README's first command, as written: after `npm install` (which builds once, through `prepare`) it must
 * start the checkout's own build. `npx pier` would not: the package is not in its own node_modules, so npx
 * copies it into its cache and builds it again. Runs the command's part after `npm install &&` through a real
 * shell and npm, and checks the chamber answers HTTP, with the offline demo model and pier's example extensions
 * (one of each kind) when nothing is configured.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ApiClient } from "./helpers/chamber.js";
import { cleanEnv, REPO_ROOT, tempDir } from "./helpers/pier-cli.js";

function firstCommand(): string {
	const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
	const block = /## The two commands[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1];
	assert.ok(block, "README.md has a sh block under '## The two commands'");
	const command = block.split("\n").find((line) => line.trim() !== "" && !line.startsWith("#"));
	assert.ok(command, "the block has a command");
	return command;
}

test("the README's first command runs the checkout's build, without npx and without building again", async (t) => {
	const command = firstCommand();
	assert.doesNotMatch(command, /\bnpx\b/, `npx rebuilds the package in its cache: ${command}`);
	const [install, ...rest] = command.split(" && ");
	assert.equal(install, "npm install", `the command starts with npm install: ${command}`);
	const start = rest.join(" && ");
	assert.doesNotMatch(start, /\b(build|prepare|tsc|vite)\b/, `nothing builds after npm install: ${command}`);
	const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> };
	assert.equal(pkg.scripts.start, "node bin/pier.js", "npm start runs the bin, nothing before it");
	assert.equal(pkg.scripts.prestart, undefined, "no prestart script");

	using dir = tempDir("pier-readme-");
	const child = spawn("sh", ["-c", `${start} --port 0 --state-dir "$STATE" --ui-password pw`], {
		cwd: REPO_ROOT,
		env: cleanEnv(join(dir.path, "agent"), { STATE: join(dir.path, "state") }),
		stdio: ["ignore", "pipe", "pipe"],
		detached: true,
	});
	const exited = new Promise<void>((done) => child.on("exit", () => done()));
	t.after(async () => {
		// npm and the shell stay between us and pier: end the whole process group.
		if (child.exitCode === null) process.kill(-child.pid!, "SIGTERM");
		await exited;
	});
	let out = "";
	child.stderr.setEncoding("utf8").on("data", (d: string) => {
		out += d;
	});
	const url = await new Promise<string>((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(`no chamber address within 60 s:\n${out}`)), 60_000);
		child.stdout.setEncoding("utf8").on("data", (d: string) => {
			out += d;
			const found = /pier chamber: (http:\/\/\S+)/.exec(out)?.[1];
			if (found) {
				clearTimeout(timer);
				resolve(found);
			}
		});
		child.on("exit", (code) => reject(new Error(`exited with ${code} before the address:\n${out}`)));
	});
	assert.match(out, /pier chamber: starting on 127\.0\.0\.1:a free port\n/);
	const response = await fetch(url);
	assert.equal(response.status, 200, `the chamber answers at ${url}`);

	// With nothing configured: the offline demo model, and a session runs pier's example extensions.
	const api = new ApiClient(url);
	assert.equal((await api.login("pw")).status, 200);
	const { body: created } = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {});
	const { body: view } = await api.call<{ model?: string }>("GET", `/api/pi/sessions/${created.session.id}`);
	assert.equal(view.model, "pier/demo");
	const { body: listed } = await api.call<{ extensions: { name: string; kind: string }[] }>(
		"GET",
		`/api/pi/extensions?session=${created.session.id}`,
	);
	assert.deepEqual(listed.extensions.map((e) => `${e.kind} ${e.name}`).sort(), [
		"builtin codemode",
		"builtin llama.cpp",
		"builtin mcp",
		"builtin tool-search",
		"process node-weather",
		"quickjs quickjs-hello",
		"typescript chamber-demo",
	]);
});

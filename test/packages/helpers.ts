/**
 * Packages in real git repositories made by the test: a work tree with tagged versions, pushed to a bare
 * repository reached by a file:// URL. Each sandbox has its own HOME, agent dir and global git config, so
 * nothing of the developer's setup is read and nothing leaves the machine.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT, runPier } from "../helpers/pier-cli.js";

export type Files = Record<string, string | { text: string; mode: number } | { symlink: string }>;

export interface Sandbox {
	root: string;
	home: string;
	agent: string;
	env: Record<string, string>;
	pier(args: string[], options?: { cwd?: string }): ReturnType<typeof runPier>;
	[Symbol.dispose](): void;
}

export function sandbox(): Sandbox {
	const root = mkdtempSync(join(tmpdir(), "pier-pkg-"));
	const home = join(root, "home");
	const agent = join(root, "agent");
	mkdirSync(home);
	mkdirSync(agent);
	const gitconfig = join(root, "gitconfig");
	writeFileSync(gitconfig, "[user]\n\tname = Test\n\temail = test@example.invalid\n[init]\n\tdefaultBranch = main\n");
	const env = { HOME: home, GIT_CONFIG_GLOBAL: gitconfig, GIT_CONFIG_NOSYSTEM: "1", PI_OFFLINE: "1" };
	return {
		root,
		home,
		agent,
		env,
		pier: (args, options = {}) => runPier(args, { agentDir: agent, cwd: options.cwd ?? home, env, timeoutMs: 60_000 }),
		[Symbol.dispose]: () => rmSync(root, { recursive: true, force: true }),
	};
}

function write(dir: string, files: Files): void {
	for (const [path, content] of Object.entries(files)) {
		const file = join(dir, path);
		mkdirSync(dirname(file), { recursive: true });
		if (typeof content === "string") writeFileSync(file, content);
		else if ("symlink" in content) symlinkSync(content.symlink, file);
		else writeFileSync(file, content.text, { mode: content.mode });
	}
}

export interface Repo {
	/** file:// URL of the bare repository. */
	url: string;
	bare: string;
	/** Commits `files` on main (optionally tagging it) and pushes to the bare repository. */
	commit(files: Files, tag?: string): void;
}

export function makeRepo(box: Sandbox, name: string): Repo {
	const work = join(box.root, "src", name);
	const bare = join(box.root, "remotes", `${name}.git`);
	mkdirSync(work, { recursive: true });
	mkdirSync(dirname(bare), { recursive: true });
	const git = (cwd: string, ...args: string[]) =>
		execFileSync("git", args, { cwd, env: { ...process.env, ...box.env }, stdio: "pipe" });
	git(work, "init", "-q", "-b", "main");
	git(dirname(bare), "init", "-q", "--bare", "-b", "main", bare);
	git(work, "remote", "add", "origin", bare);
	return {
		url: pathToFileURL(bare).href,
		bare,
		commit(files, tag) {
			write(work, files);
			git(work, "add", "-A");
			git(work, "commit", "-q", "-m", tag ?? "change");
			if (tag) git(work, "tag", tag);
			git(work, "push", "-q", "origin", "main", "--tags");
		},
	};
}

export function writeSettings(dir: string, settings: Record<string, unknown>): void {
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "settings.json"), JSON.stringify(settings, null, 2));
}

/** A QuickJS extension under `extensions/<dir>` whose tool `tool` answers `text`. */
export function quickjsExtension(dir: string, id: string, tool: string, text: string): Files {
	return {
		[`extensions/${dir}/pi-extension.json`]: JSON.stringify({
			schemaVersion: 1,
			id,
			runtime: "quickjs",
			entry: "./index.mjs",
			capabilities: ["tools"],
		}),
		[`extensions/${dir}/index.mjs`]: `export default function (pi) {
	pi.registerTool({ name: ${JSON.stringify(tool)}, label: "t", description: "t", parameters: { type: "object" },
		execute: async () => ({ content: [{ type: "text", text: ${JSON.stringify(text)} }] }) });
}
`,
	};
}

/** A process extension (Node, via pier's kit) whose tool answers `text` and its PI_EXTENSION_PACKAGE_ID. */
export function processExtension(dir: string, id: string, tool: string, text: string): Files {
	const kit = pathToFileURL(join(REPO_ROOT, "kit", "node", "index.mjs")).href;
	return {
		[`extensions/${dir}/pi-extension.json`]: JSON.stringify({
			schemaVersion: 1,
			id,
			executable: "./main.mjs",
			capabilities: ["tools"],
		}),
		[`extensions/${dir}/main.mjs`]: {
			mode: 0o755,
			text: `#!${process.execPath}
import { runExtension } from ${JSON.stringify(kit)};
runExtension({ id: ${JSON.stringify(id)}, name: "p", version: "1.0.0", capabilities: ["tools"] }, (pi) => {
	pi.registerTool({ name: ${JSON.stringify(tool)}, label: "t", description: "t", parameters: { type: "object" },
		async execute() { return { content: [{ type: "text", text: ${JSON.stringify(text)} + " pkg=" + process.env.PI_EXTENSION_PACKAGE_ID }] }; } });
});
`,
		},
	};
}

/** A pi TypeScript extension `extensions/<name>.ts` whose tool answers `text`. */
export function tsExtension(name: string, tool: string, text: string): Files {
	return {
		[`extensions/${name}.ts`]: `export default function (pi: any) {
	pi.registerTool({ name: ${JSON.stringify(tool)}, label: "t", description: "t", parameters: { type: "object", properties: {} },
		execute: async () => ({ content: [{ type: "text", text: ${JSON.stringify(text)} }] }) });
}
`,
	};
}

/** The names in the demo model's "active tools: …" answer to a prompt naming no tool. */
export async function activeTools(
	box: Sandbox,
	cwd?: string,
	extra: string[] = [],
): Promise<{ tools: string[]; stderr: string; code: number | null }> {
	const result = await box.pier(["run", ...extra, "no_such_tool {}"], cwd ? { cwd } : {});
	const match = /active tools: ([^)]*)\)/.exec(result.stdout);
	const tools = match
		? match[1]!
				.split(",")
				.map((t) => t.trim())
				.filter((t) => t && t !== "none")
		: [];
	return { tools, stderr: result.stderr, code: result.code };
}

/**
 * Build item 4: an untrusted project contributes nothing to a real pi session — no skills (`.pi/skills`,
 * `.agents/skills`), prompts, themes, `SYSTEM.md`, `APPEND_SYSTEM.md`, context files or extensions — while the
 * user's own resources stay. Trusted, the same project's resources all load (so the check is not vacuous).
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { createPierRuntime } from "../../src/agent/session-factory.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

const DARK_THEME = join(
	REPO_ROOT,
	"node_modules/@earendil-works/pi-coding-agent/dist/modes/interactive/theme/dark.json",
);

function write(path: string, text: string) {
	mkdirSync(dirname(path), { recursive: true });
	writeFileSync(path, text);
}

const skill = (name: string) => `---\nname: ${name}\ndescription: the ${name} skill\n---\nDo ${name} things.\n`;

function layout(root: string) {
	const agentDir = join(root, "agent");
	const project = join(root, "project");
	write(join(agentDir, "AGENTS.md"), "USER-AGENTS\n");
	write(join(agentDir, "SYSTEM.md"), "USER-SYSTEM\n");
	write(join(agentDir, "skills", "user-skill", "SKILL.md"), skill("user-skill"));
	write(join(project, "AGENTS.md"), "PROJECT-AGENTS\n");
	write(join(project, ".pi", "SYSTEM.md"), "PROJECT-SYSTEM\n");
	write(join(project, ".pi", "APPEND_SYSTEM.md"), "PROJECT-APPEND\n");
	write(join(project, ".pi", "skills", "project-skill", "SKILL.md"), skill("project-skill"));
	write(join(project, ".agents", "skills", "agents-skill", "SKILL.md"), skill("agents-skill"));
	write(join(project, ".pi", "prompts", "project-prompt.md"), "---\ndescription: p\n---\nPROJECT-PROMPT\n");
	const theme = JSON.parse(readFileSync(DARK_THEME, "utf8")) as Record<string, unknown>;
	write(join(project, ".pi", "themes", "project-theme.json"), JSON.stringify({ ...theme, name: "project-theme" }));
	write(
		join(project, ".pi", "extensions", "cmd.ts"),
		'export default function (pi) { pi.registerCommand("project-cmd", { handler: async () => {} }); }\n',
	);
	return { agentDir, project };
}

async function resourcesOf(root: string, approve: boolean) {
	const { agentDir, project } = layout(root);
	const pier = await createPierRuntime({ cwd: project, agentDir, approve, session: { kind: "memory" } });
	try {
		const loader = pier.runtime.services.resourceLoader;
		return {
			trust: pier.trust,
			diagnostics: pier.diagnostics.map((d) => d.message),
			skills: loader
				.getSkills()
				.skills.map((s) => s.name)
				.sort(),
			prompts: loader.getPrompts().prompts.map((p) => p.name),
			themes: loader.getThemes().themes.map((t) => t.name),
			agentsFiles: loader.getAgentsFiles().agentsFiles.map((f) => f.content.trim()),
			systemPrompt: loader.getSystemPrompt()?.trim(),
			append: loader.getAppendSystemPrompt().map((s) => s.trim()),
			sessionPrompt: pier.runtime.session.systemPrompt,
			commands: pier.runtime.session.extensionRunner.getRegisteredCommands().map((c) => c.name),
		};
	} finally {
		await pier.dispose();
	}
}

describe("an untrusted project contributes nothing to the session", () => {
	test("untrusted: only the user's skills, context file and system prompt; none of the project's", async () => {
		using dir = tempDir();
		const r = await resourcesOf(dir.path, false);
		assert.equal(r.trust.trusted, false);
		assert.deepEqual(r.skills, ["user-skill"]);
		assert.deepEqual(r.prompts, []);
		assert.ok(!r.themes.includes("project-theme"), `themes: ${r.themes}`);
		assert.deepEqual(r.agentsFiles, ["USER-AGENTS"]);
		assert.equal(r.systemPrompt, "USER-SYSTEM");
		assert.deepEqual(r.append, []);
		assert.doesNotMatch(r.sessionPrompt, /PROJECT-/);
		assert.match(r.sessionPrompt, /USER-SYSTEM/);
		assert.ok(!r.commands.includes("project-cmd"));
		const lines = r.diagnostics.filter((m) => /not trusted/.test(m));
		assert.equal(lines.length, 1);
		for (const what of [
			".pi/extensions",
			".pi/skills",
			".pi/prompts",
			".pi/themes",
			".pi/SYSTEM.md",
			".agents/skills",
		]) {
			assert.ok(lines[0]!.includes(what), `${what} named in: ${lines[0]}`);
		}
		assert.match(lines[0]!, /, AGENTS\.md;/);
	});

	test("trusted: the project's skills, prompts, themes, system prompts, context file and extensions load", async () => {
		using dir = tempDir();
		const r = await resourcesOf(dir.path, true);
		assert.equal(r.trust.trusted, true);
		assert.deepEqual(r.skills, ["agents-skill", "project-skill", "user-skill"]);
		assert.deepEqual(r.prompts, ["project-prompt"]);
		assert.ok(r.themes.includes("project-theme"));
		assert.deepEqual(r.agentsFiles, ["USER-AGENTS", "PROJECT-AGENTS"]);
		assert.equal(r.systemPrompt, "PROJECT-SYSTEM");
		assert.deepEqual(r.append, ["PROJECT-APPEND"]);
		assert.ok(r.commands.includes("project-cmd"));
	});

	test("a project whose only context file is AGENTS.override.md (pi 1.6 reads it first) needs a decision", async () => {
		using dir = tempDir();
		const agentDir = join(dir.path, "agent");
		const project = join(dir.path, "project");
		write(join(project, "AGENTS.override.md"), "PROJECT-OVERRIDE\n");
		const pier = await createPierRuntime({ cwd: project, agentDir, session: { kind: "memory" } });
		try {
			assert.equal(pier.trust.trusted, false);
			assert.deepEqual(pier.trust.resources, ["AGENTS.override.md"]);
			const files = pier.runtime.services.resourceLoader.getAgentsFiles().agentsFiles;
			assert.deepEqual(
				files.map((f) => f.content.trim()),
				[],
			);
		} finally {
			await pier.dispose();
		}
	});
});

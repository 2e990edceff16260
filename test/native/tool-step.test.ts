/**
 * The plugin host's C helper for tool calls (kit/c/host/tool_step.c): built with gcc from the project's own
 * files, bound by the plugin host, and never more than a shortcut. The same plugin (a C fixture with every
 * outcome a first step can have, and counters) gives the same answers, and sees the same calls, with the
 * helper and without it; without gcc, or with a library it cannot bind, there is simply no helper.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, type TestContext, test } from "node:test";
import {
	buildToolStep,
	TOOL_STEP_SOURCE,
	toolStep,
	toolStepName,
} from "../../src/extensions/runtimes/native/tool-step-build.js";
import { loadToolStep, TOOL_STEP_VERSION } from "../../src/extensions/runtimes/native/tool-step.js";
import { tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";
import { cModule, spec, textOf } from "./host-helpers.js";

interface Counts {
	executes: number;
	destroys: number;
	stringsOut: number;
	stringsFreed: number;
	paramsFreed: number;
	wakersSet: number;
	wakersCleared: number;
	caller: string;
}

/** A temporary directory removed when the test ends. */
function scratchDir(t: TestContext, prefix: string): string {
	const dir = tempDir(prefix);
	t.after(() => dir[Symbol.dispose]());
	return dir.path;
}

/** Every step case through a fresh plugin host; its answers, and the plugin's counters after them. */
async function stepCases(t: TestContext, helper: boolean) {
	const dir = await cModule(scratchDir(t, "pier-tool-step-"), "step_cases");
	const { host } = testHost();
	t.after(() => host.shutdown("test end"));
	const before = process.env.PIER_NATIVE_TOOL_STEP;
	if (helper) delete process.env.PIER_NATIVE_TOOL_STEP;
	else process.env.PIER_NATIVE_TOOL_STEP = "off";
	try {
		assert.deepEqual((await host.load([spec(dir)])).failures, []);
	} finally {
		if (before === undefined) delete process.env.PIER_NATIVE_TOOL_STEP;
		else process.env.PIER_NATIVE_TOOL_STEP = before;
	}
	const failure = (name: string) =>
		host.invokeTool(name, "c1", {}).then(
			() => assert.fail(`${name} should fail`),
			(error: Error) => error.message,
		);
	const updates: string[] = [];
	const answers = {
		done: textOf(await host.invokeTool("done", "c1", { a: 1 })),
		done2: textOf(await host.invokeTool("done", "c2", {})),
		big: textOf(await host.invokeTool("big", "c1", {})).length,
		fail: await failure("fail"),
		refuse: await failure("refuse"),
		later: textOf(await host.invokeTool("later", "c1", {}, { onUpdate: (u) => updates.push(textOf(u)) })),
		weird: await failure("weird"),
		woken: textOf(await host.invokeTool("woken", "c1", {})),
		updates,
	};
	const counts = ((await host.invokeTool("counts", "c1", {})) as { details: Counts }).details;
	return { answers, counts };
}

describe("the tool-step helper", () => {
	test("builds once with gcc from kit/c, under a name that changes with its sources", async (t) => {
		const first = await toolStep();
		assert.ok(first.path, `built: ${"reason" in first ? first.reason : ""}`);
		assert.ok(existsSync(first.path));
		assert.equal(await toolStep(), first, "one build per process");
		const dir = scratchDir(t, "pier-tool-step-build-");
		const built = await buildToolStep(dir);
		assert.ok(built.path?.startsWith(dir));
		const mtime = statSync(built.path!).mtimeMs;
		assert.deepEqual(await buildToolStep(dir), built, "found, not built again");
		assert.equal(statSync(built.path!).mtimeMs, mtime);
		assert.deepEqual(readdirSync(dir), [built.path!.slice(dir.length + 1)], "no temporary file left");
		const source = readFileSync(TOOL_STEP_SOURCE, "utf8");
		assert.notEqual(toolStepName(source, "header"), toolStepName(`${source}\n`, "header"));
		assert.notEqual(toolStepName(source, "header"), toolStepName(source, "header 2"));
	});

	test("no gcc: no helper, and the reason says so", async (t) => {
		const path = process.env.PATH;
		process.env.PATH = scratchDir(t, "pier-no-gcc-");
		try {
			const status = await buildToolStep(scratchDir(t, "pier-tool-step-none-"));
			assert.equal(status.path, undefined);
			assert.match("reason" in status ? status.reason : "", /gcc is not installed/);
		} finally {
			process.env.PATH = path;
		}
	});

	test("PIER_NATIVE_TOOL_STEP=off: no helper", async () => {
		process.env.PIER_NATIVE_TOOL_STEP = "off";
		try {
			assert.deepEqual(await toolStep(), { path: undefined, reason: "PIER_NATIVE_TOOL_STEP=off" });
		} finally {
			delete process.env.PIER_NATIVE_TOOL_STEP;
		}
	});

	test("a library that is not the helper, or another version of it, is refused by name", (t) => {
		const dir = scratchDir(t, "pier-tool-step-bad-");
		assert.match(loadToolStep(join(dir, "missing.so")) ?? "", /could not load the tool-step helper .*missing\.so/);
		const source = join(dir, "other.c");
		writeFileSync(source, "#include <stdint.h>\nuint32_t pier_tool_step_version(void) { return 99; }\n");
		const other = join(dir, "libother.so");
		execFileSync("gcc", ["-shared", "-fPIC", "-o", other, source]);
		assert.equal(
			loadToolStep(other),
			`the tool-step helper ${other} is version 99, this plugin host binds version ${TOOL_STEP_VERSION}`,
		);
	});

	test("every first-step outcome: the same answers and the same plugin calls with the helper and without", async (t) => {
		const withHelper = await stepCases(t, true);
		const without = await stepCases(t, false);
		assert.deepEqual(withHelper.answers, without.answers);
		const { answers } = withHelper;
		assert.equal(answers.done, "done");
		assert.equal(answers.big, 100_000, "a result larger than the helper's buffer");
		assert.match(answers.fail, /step_cases: failed/);
		assert.match(answers.refuse, /null handle/);
		assert.equal(answers.later, "later");
		assert.deepEqual(answers.updates, ["partial", "working"]);
		assert.match(answers.weird, /unknown step tag 7/);
		assert.equal(answers.woken, "woken");
		const { caller: helperCaller, ...helperCounts } = withHelper.counts;
		const { caller: plainCaller, ...plainCounts } = without.counts;
		assert.deepEqual(helperCounts, plainCounts);
		// 9 calls with `counts`: the refused one never had a handle; every string the plugin made was freed once.
		assert.equal(helperCounts.executes, 8);
		assert.equal(helperCounts.destroys, 7, "all but the `counts` call itself, still running");
		assert.equal(helperCounts.paramsFreed, 9);
		assert.equal(helperCounts.stringsFreed, helperCounts.stringsOut);
		assert.deepEqual([helperCounts.wakersSet, helperCounts.wakersCleared], [1, 1]);
		assert.match(helperCaller, /^libpier_tool_step-[0-9a-f]{16}\.so$/, "the helper called execute");
		assert.doesNotMatch(plainCaller, /pier_tool_step/, "koffi called execute");
	});
});

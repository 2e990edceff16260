/**
 * The host's short wait for answers (runtimes/answer-wait.ts) reads a process extension's pipe itself and a
 * QuickJS guest's port itself, beside the event loop's delivery. These tests attack the seam between the two:
 * answers split across both paths, bursts larger than one read, and streams of updates, with every frame
 * arriving whole and in order; and they prove the wait really takes answers where it runs.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, test } from "node:test";
import { tempDir, REPO_ROOT } from "../helpers/pier-cli.js";

// Long enough that an answer is taken however slow this machine is today (the default is 0.15 ms); read when
// the module loads, hence the imports after it.
process.env.PIER_ANSWER_WAIT = "50";
const { answersTaken, readNow, spinningPays } = await import("../../src/extensions/runtimes/answer-wait.js");
const { loadManifest } = await import("../../src/extensions/manifest.js");
const { quickjsSpec } = await import("../../src/extensions/runtimes/quickjs/launcher.js");
const { scriptedPackage, scriptedSpec, testHost } = await import("../helpers/scripted.js");
const { processSpec } = await import("../../src/extensions/runtimes/process/launcher.js");
const { fixtureCopies } = await import("../../bench/fixture-copies.js");

const textOf = (value: unknown) => (value as { content: { text: string }[] }).content[0]!.text;

describe("answers taken by the host's wait", () => {
	test("a process extension's answers arrive whole and in order, split across the wait and the stream", async (t) => {
		using dir = tempDir();
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const report = await host.load([
			scriptedSpec(scriptedPackage(dir.path, "waits", { tools: ["echo", "burst", "split"] })),
		]);
		assert.deepEqual(report.failures, []);
		const before = answersTaken();
		for (let i = 0; i < 200; i++)
			assert.equal(textOf(await host.invokeTool("echo", `e${i}`, { text: `${i}` })), `echo:${i}`);
		// Where the wait runs, quick sequential answers are taken by it; on one CPU it never runs.
		if (spinningPays) assert.ok(answersTaken() - before >= 190, `the wait took ${answersTaken() - before} of 200`);
		else assert.equal(answersTaken(), before);

		for (let i = 0; i < 60; i++) {
			// The second half comes on the child's next turn (often inside the wait) or after 1 ms (the stream's).
			const args = { text: `${i}`, delayMs: i % 2 === 0 ? 0 : 1 };
			assert.equal(textOf(await host.invokeTool("split", `s${i}`, args)), `split:${i}`);
		}
		for (let i = 0; i < 10; i++) {
			const steps: number[] = [];
			const result = await host.invokeTool(
				"burst",
				`b${i}`,
				{ count: 300, pad: 500 },
				{
					onUpdate: (value) => steps.push((value as { step: number }).step),
				},
			);
			assert.equal(textOf(result), "burst done");
			assert.deepEqual(
				steps,
				Array.from({ length: 300 }, (_, k) => k + 1),
			);
		}
		// Pipelined calls with bursts of updates between them (a split answer would interleave with its
		// neighbours' in the child's own writes): every answer and every update is its own call's.
		const updates = new Map<number, number[]>();
		const answers = await Promise.all(
			Array.from({ length: 300 }, (_, i) =>
				i % 10 === 0
					? host.invokeTool(
							"burst",
							`p${i}`,
							{ count: 20, pad: 4000 },
							{
								onUpdate: (value) => updates.set(i, [...(updates.get(i) ?? []), (value as { step: number }).step]),
							},
						)
					: host.invokeTool("echo", `p${i}`, { text: `${i}` }),
			),
		);
		assert.deepEqual(
			answers.map(textOf),
			answers.map((_, i) => (i % 10 === 0 ? "burst done" : `echo:${i}`)),
		);
		for (let i = 0; i < 300; i += 10)
			assert.deepEqual(
				updates.get(i),
				Array.from({ length: 20 }, (_, k) => k + 1),
			);
	});

	test("a QuickJS guest's answers are taken by the wait, in order, beside its streamed updates", async (t) => {
		const dir = join(REPO_ROOT, "bench", "fixtures", "echo-quickjs");
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const spec = quickjsSpec(loadManifest(dir), { cwd: dir, projectTrusted: true, deadlineMs: 10_000 });
		const report = await host.load([spec]);
		assert.deepEqual(report.failures, []);
		const before = answersTaken();
		for (let i = 0; i < 200; i++)
			assert.equal(textOf(await host.invokeTool("echo", `q${i}`, { text: `${i}` })), `${i}`);
		if (spinningPays) assert.ok(answersTaken() - before >= 190, `the wait took ${answersTaken() - before} of 200`);
		else assert.equal(answersTaken(), before);
		const answers = await Promise.all(
			Array.from({ length: 200 }, (_, i) => host.invokeTool("echo", `qp${i}`, { text: `${i}` })),
		);
		assert.deepEqual(
			answers.map(textOf),
			answers.map((_, i) => `${i}`),
		);
	});

	test("calls alternating between two process extensions are waited for only with a CPU left for the next", async (t) => {
		using copies = fixtureCopies("process", 2);
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const report = await host.load(
			copies.dirs.map((dir) => processSpec(loadManifest(dir), { cwd: dir, projectTrusted: true })),
		);
		assert.deepEqual(report.failures, []);
		const before = answersTaken();
		for (let i = 0; i < 100; i++)
			assert.equal(textOf(await host.invokeTool(i % 2 === 0 ? "echo" : "echo_1", `a${i}`, { text: `${i}` })), `${i}`);
		const took = answersTaken() - before;
		// The kit just answered lingers on a CPU of its own: on two CPUs the host's wait would hold the other one
		// from the kit it asks. Only the first call (turning from no process extension) may be waited for.
		if (!spinningPays) assert.equal(took, 0);
		else if (availableParallelism() < 3) assert.ok(took <= 1, `the wait took ${took} of 100 alternating answers`);
		else assert.ok(took >= 95, `the wait took ${took} of 100`);
	});

	test("calls alternating between two QuickJS guests are still waited for (their worker stops lingering)", async (t) => {
		using copies = fixtureCopies("quickjs", 2);
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const spec = (dir: string) =>
			quickjsSpec(loadManifest(dir), { cwd: dir, projectTrusted: true, deadlineMs: 10_000 });
		const report = await host.load(copies.dirs.map(spec));
		assert.deepEqual(report.failures, []);
		const before = answersTaken();
		for (let i = 0; i < 100; i++)
			assert.equal(textOf(await host.invokeTool(i % 2 === 0 ? "echo" : "echo_1", `b${i}`, { text: `${i}` })), `${i}`);
		if (spinningPays) assert.ok(answersTaken() - before >= 95, `the wait took ${answersTaken() - before} of 100`);
		else assert.equal(answersTaken(), before);
	});

	// Both looks at a pipe lower Error.stackTraceLimit around a read that usually fails with EAGAIN; left lowered,
	// every error after it in the host or the extension would lose its stack.
	test("looking at a pipe leaves error stacks as they were, in the host and in the kit", async (t) => {
		const child = spawn(process.execPath, ["-e", "setTimeout(() => process.stdout.write('x'), 100)"]);
		t.after(() => child.kill());
		// libuv's end of the pipe is non-blocking (the stream may take the 'x' before readNow does).
		const fd = (child.stdout as unknown as { _handle: { fd: number } })._handle.fd;
		const limit = Error.stackTraceLimit;
		Error.stackTraceLimit = 17;
		try {
			const seen = new Set<string>();
			for (;;) {
				const chunk = readNow(fd);
				assert.equal(Error.stackTraceLimit, 17);
				seen.add(typeof chunk === "string" ? chunk : "data");
				if (chunk === "end") break;
				if (chunk === "empty") await new Promise((resolve) => setTimeout(resolve, 5));
			}
			assert.ok(seen.has("empty"), "an empty pipe was looked at");
			// Not a pipe at all: the read's own error, still without touching the limit.
			assert.equal(readNow(2 ** 30), "end");
			assert.equal(Error.stackTraceLimit, 17);
		} finally {
			Error.stackTraceLimit = limit;
		}

		// In a realm where Error is frozen (an in-process extension hardened it), the look still works.
		const frozen = spawn(
			process.execPath,
			[
				"--input-type=module",
				"-e",
				`const { readNow } = await import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, "dist", "src", "extensions", "runtimes", "answer-wait.js")).href)});
				Object.freeze(Error);
				process.stdin.pause();
				process.stdout.write(JSON.stringify([readNow(process.stdin._handle.fd), Error.stackTraceLimit]));`,
			],
			{ stdio: ["pipe", "pipe", "inherit"] },
		);
		t.after(() => frozen.kill());
		let out = "";
		frozen.stdout.on("data", (chunk: Buffer) => {
			out += chunk;
		});
		await new Promise((done) => frozen.once("close", done));
		assert.equal(out, JSON.stringify(["empty", 10]));

		using dir = tempDir();
		const kit = pathToFileURL(join(REPO_ROOT, "kit", "node", "index.mjs")).href;
		writeFileSync(
			join(dir.path, "main.mjs"),
			`#!/usr/bin/env node
import { runExtension } from ${JSON.stringify(kit)};
runExtension({ id: "stacks", capabilities: ["tools"] }, (pi) => {
	pi.registerTool({ name: "stack_depth", label: "Stack depth", description: "frames in a new error's stack",
		parameters: { type: "object" },
		execute: async () => ({ content: [{ type: "text", text: String(new Error("x").stack.split("\\n").length - 1) }] }) });
	pi.registerTool({ name: "freeze_error", label: "Freeze Error", description: "hardens the realm as SES would",
		parameters: { type: "object" },
		execute: async () => { Object.freeze(Error); return { content: [{ type: "text", text: "frozen" }] }; } });
});
`,
			{ mode: 0o755 },
		);
		writeFileSync(
			join(dir.path, "pi-extension.json"),
			JSON.stringify({ schemaVersion: 1, id: "stacks", executable: "./main.mjs", capabilities: ["tools"] }),
		);
		const { host } = testHost();
		t.after(() => host.shutdown("test end"));
		const report = await host.load([processSpec(loadManifest(dir.path), { cwd: dir.path, projectTrusted: true })]);
		assert.deepEqual(report.failures, []);
		// Calls in a row, so the kit lingers (and looks at an empty stdin) between them.
		const depths = new Set<string>();
		for (let i = 0; i < 100; i++) depths.add(textOf(await host.invokeTool("stack_depth", `d${i}`, {})));
		for (const depth of depths) assert.ok(Number(depth) >= 1, `an error in the kit had ${depth} stack frames`);
		// A frozen Error cannot be lowered: the kit goes on looking the slower way, and answering.
		assert.equal(textOf(await host.invokeTool("freeze_error", "f", {})), "frozen");
		for (let i = 0; i < 50; i++) assert.ok(Number(textOf(await host.invokeTool("stack_depth", `z${i}`, {}))) >= 1);
	});
});

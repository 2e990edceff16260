/**
 * Build item 5: no extension input reaches an uncaught path. Each channel's inbound side gets 25,000 random and
 * mutated frames (PIER_FUZZ_FRAMES=<n> for a longer run), decoded by the channel's own decoder and handed to a real
 * ExtensionInstance, then batches of them through real channels (child processes, QuickJS workers). Nothing may
 * throw out of the decode/validate path, no exception or rejection may go uncaught, and the host still serves a
 * fresh instance afterwards. PIER_FUZZ_SEED=<n> replays a run.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { loadManifest } from "../../src/extensions/manifest.js";
import { FrameDecoder, FrameError } from "../../src/extensions/protocol/codec.js";
import { processSpec } from "../../src/extensions/runtimes/process/launcher.js";
import { QuickJsChannel } from "../../src/extensions/runtimes/quickjs/channel.js";
import { readWorkerMessage } from "../../src/extensions/runtimes/quickjs/inbound.js";
import { quickjsSpec } from "../../src/extensions/runtimes/quickjs/launcher.js";
import { escapes, processPackage, quickjsPackage, rawProcessSource } from "../helpers/hostile.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";
import { testHost } from "../helpers/scripted.js";
import { fuzzControl, fuzzFrame, Random } from "./generator.js";
import { InstanceFeeder } from "./harness.js";

const SEED = Number(process.env.PIER_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 32));
const FRAMES = Number(process.env.PIER_FUZZ_FRAMES ?? 25_000);
const MAX_FRAME_BYTES = 64 * 1024;
const HELLO = join(REPO_ROOT, "examples", "quickjs", "hello");
const textOf = (value: unknown) => (value as { content: { text: string }[] }).content[0]!.text;

console.log(`fuzz seed ${SEED} (replay with PIER_FUZZ_SEED=${SEED})`);

/** Splits `bytes` at random points, as a pipe might deliver them. */
function chunks(r: Random, bytes: Buffer): Buffer[] {
	if (r.chance(0.7)) return [bytes];
	const out: Buffer[] = [];
	let at = 0;
	while (at < bytes.length) {
		const size = 1 + r.int(Math.max(1, bytes.length - at));
		out.push(bytes.subarray(at, at + size));
		at += size;
	}
	return out;
}

describe(`channel fuzzing (seed ${SEED})`, () => {
	test(`process channel decoder → instance: ${FRAMES} frames`, async () => {
		using escaped = escapes();
		const r = new Random(SEED);
		const feeder = new InstanceFeeder();
		const unexpected: string[] = [];
		let refused = 0;
		const started = Date.now();
		for (let i = 0; i < FRAMES; i++) {
			// Several frames per decoder, the way a stream carries them, until one of them breaks it.
			const decoder = new FrameDecoder(MAX_FRAME_BYTES);
			const line = Buffer.concat([fuzzFrame(r, MAX_FRAME_BYTES), Buffer.from([0x0a])]);
			try {
				for (const chunk of chunks(r, line)) for (const value of decoder.push(chunk)) await feeder.feed(value);
				decoder.end();
			} catch (error) {
				if (error instanceof FrameError) refused++;
				else unexpected.push(`frame ${i}: ${(error as Error)?.stack ?? error}`);
			}
			if (i % 500 === 0) {
				// Now and then the same input meets an instance still in its handshake.
				try {
					const values = new FrameDecoder(MAX_FRAME_BYTES).push(
						Buffer.concat([fuzzFrame(r, MAX_FRAME_BYTES), Buffer.from([0x0a])]),
					);
					await feeder.feedHandshake(values);
				} catch (error) {
					if (!(error instanceof FrameError)) unexpected.push(`handshake ${i}: ${(error as Error)?.stack ?? error}`);
				}
			}
		}
		await feeder.close();
		console.log(
			`process decoder: ${FRAMES} frames, ${refused} refused by the codec, ${feeder.stats.frames} reached an instance, ` +
				`${feeder.stats.crashes} instance crashes, ${Date.now() - started} ms`,
		);
		assert.deepEqual(unexpected, []);
		assert.deepEqual(feeder.stats.thrown, []);
		assert.ok(refused > FRAMES / 10 && feeder.stats.frames > FRAMES / 10, "both paths were exercised");
		await new Promise((resolve) => setTimeout(resolve, 300)); // let pending timers and rejections surface
		assert.deepEqual(escaped.list, []);
	});

	test(`QuickJS channel inbound → instance: ${FRAMES} messages`, async () => {
		using escaped = escapes();
		const r = new Random(SEED ^ 0x5bd1e995);
		const feeder = new InstanceFeeder();
		const kinds = new Map<string, number>();
		const started = Date.now();
		for (let i = 0; i < FRAMES; i++) {
			// The port carries JS strings (lone surrogates and all), and now and then something else.
			const message = r.chance(0.05)
				? fuzzControl(r)
				: r.chance(0.1)
					? fuzzFrame(r, MAX_FRAME_BYTES).toString("latin1")
					: fuzzFrame(r, MAX_FRAME_BYTES).toString("utf8");
			let read: ReturnType<typeof readWorkerMessage>;
			try {
				read = readWorkerMessage(message, MAX_FRAME_BYTES);
			} catch (error) {
				assert.fail(`message ${i} threw: ${(error as Error)?.stack ?? error}`);
			}
			kinds.set(read.kind, (kinds.get(read.kind) ?? 0) + 1);
			if (read.kind === "frame") await feeder.feed(read.frame);
		}
		await feeder.close();
		console.log(
			`QuickJS inbound: ${FRAMES} messages (${[...kinds].map(([k, n]) => `${n} ${k}`).join(", ")}), ` +
				`${feeder.stats.crashes} instance crashes, ${Date.now() - started} ms`,
		);
		assert.deepEqual(feeder.stats.thrown, []);
		assert.ok((kinds.get("violation") ?? 0) > FRAMES / 10 && (kinds.get("frame") ?? 0) > FRAMES / 10);
		await new Promise((resolve) => setTimeout(resolve, 300));
		assert.deepEqual(escaped.list, []);
	});

	test("real process channels: batches of mutated lines from child processes", async () => {
		using escaped = escapes();
		using dir = tempDir("pier-fuzz-process-");
		const r = new Random(SEED ^ 0x1234567);
		const flood = rawProcessSource(
			["flood", "ok"],
			`if (name === "ok") return answer(id, "fine");
			process.stdout.write((await import("node:fs")).readFileSync(args));
			answer(id, "survived");`,
			["commands"],
		);
		const ext = processPackage(dir.path, "fuzz-process", flood, ["commands"]);
		const BATCHES = 20;
		const LINES = 2_000;
		let crashed = 0;
		const started = Date.now();
		for (let batch = 0; batch < BATCHES; batch++) {
			const file = join(dir.path, `batch-${batch}.bin`);
			const lines: Buffer[] = [];
			for (let i = 0; i < LINES; i++) lines.push(fuzzFrame(r, MAX_FRAME_BYTES), Buffer.from([0x0a]));
			writeFileSync(file, Buffer.concat(lines));
			const { host } = testHost();
			const report = await host.load([
				processSpec(loadManifest(ext), { cwd: ext, projectTrusted: true, maxFrameBytes: MAX_FRAME_BYTES }),
			]);
			assert.deepEqual(report.failures, []);
			try {
				await host.invokeCommand("flood", file, { timeoutMs: 10_000 });
			} catch (error) {
				assert.match((error as Error).message, /extension fuzz-process (crashed|did not answer)/);
				crashed++;
			}
			await host.shutdown("batch done");
		}
		const { host } = testHost();
		await host.load([processSpec(loadManifest(ext), { cwd: ext, projectTrusted: true })]);
		assert.equal(await host.invokeCommand("ok", ""), "fine", "a fresh instance answers after the fuzzing");
		await host.shutdown("test end");
		console.log(
			`process channel: ${BATCHES * LINES} lines in ${BATCHES} child processes, ${crashed} crashed, ${Date.now() - started} ms`,
		);
		assert.deepEqual(escaped.list, []);
	});

	test("real QuickJS channels: batches of arbitrary frame strings from a guest, and non-string messages", async () => {
		using escaped = escapes();
		using dir = tempDir("pier-fuzz-quickjs-");
		const r = new Random(SEED ^ 0x7654321);
		// The guest sends each string as the whole text of an update frame.
		const source = `
export default function (pi) {
	pi.registerTool({
		name: "emit", label: "e", description: "e", parameters: { type: "object" },
		execute: async (_id, params, _signal, onUpdate) => {
			const real = JSON.stringify;
			let text = "";
			JSON.stringify = () => text;
			for (text of params.frames) onUpdate(null);
			JSON.stringify = real;
			return { content: [{ type: "text", text: "survived" }] };
		},
	});
}`;
		const ext = quickjsPackage(dir.path, "fuzz-quickjs", source, ["tools"]);
		const spec = (path: string) =>
			quickjsSpec(loadManifest(path), { cwd: path, projectTrusted: true, deadlineMs: 5_000 });
		const BATCHES = 20;
		const FRAMES_PER_BATCH = 500;
		let crashed = 0;
		const started = Date.now();
		for (let batch = 0; batch < BATCHES; batch++) {
			const frames: string[] = [];
			while (frames.length < FRAMES_PER_BATCH) {
				const text = fuzzFrame(r, 4096).toString("utf8");
				if (text.length < 2_000) frames.push(text);
			}
			const { host } = testHost();
			await host.load([spec(ext), spec(HELLO)]);
			try {
				await host.invokeTool("emit", "c", { frames });
			} catch (error) {
				assert.match((error as Error).message, /extension fuzz-quickjs crashed/);
				crashed++;
			}
			assert.equal(textOf(await host.invokeTool("shout", "c", { text: "alive" })), "ALIVE!");
			await host.shutdown("batch done");
		}

		// Non-string messages cannot come from a guest (it only has __pier_send, which takes text), so they are
		// handed to the channel's receiver directly: the channel refuses each as a violation.
		const workerMessages = Array.from({ length: 30 }, () => fuzzControl(r)).filter(
			(m) => !(typeof m === "object" && m !== null && (m as { ready?: unknown }).ready === true),
		);
		for (const message of workerMessages) {
			const channel = new QuickJsChannel({
				manifest: { id: "fuzz-raw", name: "raw", version: "1", capabilities: [], uiCapabilities: [] },
				entry: join(HELLO, "index.mjs"),
				root: HELLO,
				deadlineMs: 5_000,
			});
			const closed = new Promise<string>((resolve) => channel.start({ frame: () => {}, closed: resolve }));
			(channel as unknown as { receive(message: unknown): void }).receive(message);
			assert.match(await closed, /^protocol violation: the worker sent .* neither a frame nor a control message$/);
			await channel.terminate();
		}

		const { host } = testHost();
		await host.load([spec(ext)]);
		assert.equal(textOf(await host.invokeTool("emit", "c", { frames: [] })), "survived", "a fresh instance answers");
		await host.shutdown("test end");
		console.log(
			`QuickJS channel: ${BATCHES * FRAMES_PER_BATCH} frame strings in ${BATCHES} workers, ${crashed} crashed; ` +
				`${workerMessages.length} non-string messages refused; ${Date.now() - started} ms`,
		);
		assert.deepEqual(escaped.list, []);
	});
});

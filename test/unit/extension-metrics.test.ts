import assert from "node:assert/strict";
import { test } from "node:test";
import { withoutPaths } from "../../src/chamber/extension-list.js";
import { ExtensionError } from "../../src/extensions/host/errors.js";
import { ExtensionMetrics } from "../../src/extensions/host/metrics.js";

/** Within the histogram's resolution: half a bucket, 2^(1/16) ≈ 4.4%. */
function near(actual: number | undefined, expected: number) {
	assert.ok(actual !== undefined, "a value");
	assert.ok(Math.abs(actual - expected) / expected <= 0.045, `${actual} ≈ ${expected}`);
}

test("percentiles of 1..1000 ms are the nearest-rank values within a bucket", () => {
	const m = new ExtensionMetrics();
	for (let ms = 1; ms <= 1000; ms++) m.record(ms);
	near(m.percentile(0.5), 500);
	near(m.percentile(0.99), 990);
	near(m.percentile(0.9), 900);
	assert.equal(m.percentile(1), 1000, "the top is clamped to the exact maximum");
	assert.equal(m.percentile(0), 1, "the bottom to the exact minimum");
	const s = m.snapshot();
	assert.equal(s.invocations, 1000);
	assert.equal(s.errors, 0);
	assert.equal(s.maxMs, 1000);
});

test("a skewed distribution: p50 stays with the many, p99 finds the slow tail", () => {
	const m = new ExtensionMetrics();
	for (let i = 0; i < 980; i++) m.record(0.2);
	for (let i = 0; i < 20; i++) m.record(250);
	near(m.percentile(0.5), 0.2);
	near(m.percentile(0.98), 0.2);
	near(m.percentile(0.99), 250);
});

test("one sample is every percentile; nothing recorded has none", () => {
	const empty = new ExtensionMetrics();
	assert.equal(empty.percentile(0.5), undefined);
	assert.deepEqual(empty.snapshot(), { invocations: 0, errors: 0, restarts: 0, crashes: 0 });
	const one = new ExtensionMetrics();
	one.record(3.25);
	assert.equal(one.percentile(0.5), 3.25);
	assert.equal(one.percentile(0.99), 3.25);
});

test("out-of-range latencies land in the end buckets without throwing", () => {
	const m = new ExtensionMetrics();
	for (const ms of [0, -1, Number.NaN, 1e-9, 1e12]) m.record(ms);
	assert.equal(m.invocations, 5);
	assert.equal(m.percentile(1), 1e12);
});

test("errors count with the last message; a cancellation is not the extension's error", () => {
	const m = new ExtensionMetrics();
	m.record(1, new ExtensionError("timeout", "did not answer"));
	m.record(1, new ExtensionError("cancelled", "the invocation was cancelled"));
	m.record(1);
	m.failed("event: handler threw", 42);
	const s = m.snapshot();
	assert.equal(s.invocations, 3);
	assert.equal(s.errors, 2);
	assert.deepEqual(s.lastError, { message: "event: handler threw", at: 42 });
	m.crashed("exit 3");
	assert.equal(m.snapshot().crashes, 1);
	assert.equal(m.snapshot().lastError?.message, "exit 3");
});

test("withoutPaths keeps names and cuts absolute paths to their last segment", () => {
	assert.equal(
		withoutPaths("extension x (/home/u/.pi/ext/pi-extension.json) crashed"),
		"extension x (…pi-extension.json) crashed",
	);
	assert.equal(withoutPaths("at file:///tmp/a/b.mjs:3:4"), "at …b.mjs:3:4");
	assert.equal(withoutPaths("git:github.com/o/r failed"), "git:github.com/o/r failed");
	assert.equal(withoutPaths("1/2 done"), "1/2 done");
});

/**
 * The chamber's page where a user waits, in headless Chromium (playwright-core, Debian's chromium as the tests
 * use it) against a `pier serve` in this process, on session files written directly (session-files.ts):
 *
 * - `chamber.open.5000`: from navigation to the session's last message on screen, a 5,000-entry session,
 *   beside `chamber.open.10`, a 10-entry one.
 * - `chamber.scroll.5000.longtask`: the longest main-thread task (the page's `longtask` performance entries, which
 *   Chromium reports from 50 ms up: 0 means none) while the fully loaded 5,000-entry transcript is scrolled from
 *   top to bottom; the longest gap between frames goes to the log beside it.
 * - `chamber.keystroke.5000`: a key in the composer to the next frame, with the 5,000-entry transcript fully
 *   loaded, beside `chamber.keystroke.10`.
 * - The same as `….phone`: a 390×844 phone with the CPU slowed 4× (`Emulation.setCPUThrottlingRate`).
 * - `chamber.first-screen.js`: the JavaScript (KiB, as served, before compression) the page has fetched once a
 *   session is open and its last message shows, beside all the JavaScript the built app has: what the code split
 *   (markdown, the QR code, highlighting, the terminal, sheets and account panels fetched on first use) leaves out.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";
import { sessionDirFor } from "../src/agent/paths.js";
import { startChamber } from "../src/chamber/server.js";
import type { Result } from "./figures.js";
import { type BenchContext, compareAll, type FigureSpec } from "./harness.js";
import { httpCall } from "./http.js";
import { writeSession } from "./session-files.js";

const HOST = "127.0.0.1";
const PASSWORD = "bench password";
const LONG = 5000;
const SHORT = 10;
const KEYS = 20;
const FIRST_SCREEN = "chamber.first-screen.js";

interface Device {
	suffix: string;
	context: BrowserContextOptions;
	cpuSlowdown: number;
}

const DEVICES: Device[] = [
	{ suffix: "", context: { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 }, cpuSlowdown: 1 },
	{
		suffix: ".phone",
		context: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
		cpuSlowdown: 4,
	},
];

/** In the page: the row is drawn and inside the transcript's visible box. */
const onScreen = (id: string) => `(() => {
	const id = ${JSON.stringify(id)};
	const row = document.querySelector('[data-testid="row"][data-row-id="' + id + '"]');
	const box = document.querySelector('[data-testid="transcript"]');
	if (!row || !box) return false;
	const r = row.getBoundingClientRect(), b = box.getBoundingClientRect();
	return r.bottom > b.top && r.top < b.bottom ? performance.now() : false;
})()`;

/** In the page: bytes of the scripts this document fetched (module preloads and dynamic imports included). */
const SCRIPT_BYTES = `performance.getEntriesByType("resource")
	.filter((e) => new URL(e.name).pathname.endsWith(".js"))
	.reduce((n, e) => n + e.decodedBodySize, 0)`;

/** Every script the built app has (its chunks), bytes. */
function appScriptBytes(): number {
	const assets = fileURLToPath(new URL("../web/assets", import.meta.url));
	return readdirSync(assets)
		.filter((name) => name.endsWith(".js"))
		.reduce((n, name) => n + statSync(join(assets, name)).size, 0);
}

/** In the page: scrolls to the top until no earlier page is left to load (the transcript loads them as it nears the top). */
const LOAD_ALL = `(async () => {
	const el = document.querySelector('[data-testid="transcript"]');
	const frame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
	// A phone at a quarter of the CPU on a loaded machine takes minutes for 5,000 entries: bounded by time, not frames.
	const deadline = performance.now() + 300000;
	while (performance.now() < deadline) {
		el.scrollTop = 0;
		await frame();
		if (!document.querySelector('[data-testid="older-rows"]')) return;
	}
	const shown = document.querySelectorAll('[data-testid="row"]').length;
	const button = document.querySelector('[data-testid="older-rows"]')?.textContent;
	const toasts = [...document.querySelectorAll("[data-testid=toast]")].map((t) => t.textContent).join(" | ");
	throw new Error("earlier rows never finished loading in 300 s (" + shown + " rows drawn; button: " + button + "; toasts: " + (toasts || "none") + "; scrollTop " + el.scrollTop + ")");
})()`;

/** In the page: from the top to the bottom, a screen and a half per frame; the longest task and frame gap, ms. */
const SCROLL_DOWN = `(async () => {
	const el = document.querySelector('[data-testid="transcript"]');
	el.scrollTop = 0;
	const frame = () => new Promise((r) => requestAnimationFrame(r));
	await frame();
	let longtask = 0;
	const observer = new PerformanceObserver((list) => {
		for (const e of list.getEntries()) longtask = Math.max(longtask, e.duration);
	});
	observer.observe({ type: "longtask" });
	let gap = 0;
	let before = await frame();
	// The target moves down whatever the page does with the scroll, so the walk ends; a frame where the page put the
	// reader elsewhere than asked (a redraw keeping its place) is counted and reported, not retried for ever.
	let target = 0;
	let pulled = 0;
	const deadline = performance.now() + 300000;
	while (target < el.scrollHeight - el.clientHeight - 1) {
		if (performance.now() > deadline) throw new Error("scrolling did not reach the bottom in 300 s at " + el.scrollTop + " of " + el.scrollHeight);
		target = Math.min(target + el.clientHeight * 1.5, el.scrollHeight - el.clientHeight);
		el.scrollTop = target;
		const now = await frame();
		if (Math.abs(el.scrollTop - target) > 1) pulled++;
		gap = Math.max(gap, now - before);
		before = now;
	}
	await new Promise((r) => setTimeout(r, 100));
	for (const e of observer.takeRecords()) longtask = Math.max(longtask, e.duration);
	observer.disconnect();
	return { longtask, gap, pulled };
})()`;

/** In the page: from each key's event to the frame after it, ms. */
const KEY_WATCH = `(() => {
	window.__keys = [];
	document.addEventListener("keydown", (e) => {
		const start = e.timeStamp;
		requestAnimationFrame(() => window.__keys.push(performance.now() - start));
	}, { capture: true });
})()`;

/**
 * `PIER_BENCH_PROFILE=<dir>`: the page's CPU profile of a measured walk, written as `<dir>/<id>.cpuprofile` (the
 * last run of the figure wins), for the note that explains a figure.
 */
async function startProfile(page: Page): Promise<{ save(id: string): Promise<void> } | undefined> {
	const dir = process.env.PIER_BENCH_PROFILE;
	if (!dir) return undefined;
	const cdp = await page.context().newCDPSession(page);
	await cdp.send("Profiler.enable");
	await cdp.send("Profiler.setSamplingInterval", { interval: 1000 });
	await cdp.send("Profiler.start");
	return {
		async save(id) {
			const { profile } = await cdp.send("Profiler.stop");
			mkdirSync(dir, { recursive: true });
			writeFileSync(join(dir, `${id}.cpuprofile`), JSON.stringify(profile));
			await cdp.detach();
		},
	};
}

async function devicePage(browser: Browser, url: string, device: Device): Promise<Page> {
	// The probes below are evaluated as strings, which the page's CSP (no eval) would refuse.
	const context = await browser.newContext({ ...device.context, bypassCSP: true });
	context.setDefaultTimeout(120_000);
	const page = await context.newPage();
	await page.goto(url);
	await page.getByTestId("login-password").fill(PASSWORD);
	await page.getByTestId("login-submit").click();
	await page.getByTestId("session-list").waitFor();
	if (device.cpuSlowdown > 1) {
		const cdp = await context.newCDPSession(page);
		await cdp.send("Emulation.setCPUThrottlingRate", { rate: device.cpuSlowdown });
	}
	return page;
}

export async function benchChamberOpen(ctx: BenchContext): Promise<Result[]> {
	const wanted = DEVICES.filter(
		(d) =>
			["chamber.open.", "chamber.scroll.", "chamber.keystroke."].some((p) =>
				[LONG, SHORT].some((n) => ctx.wants(`${p}${n}${d.suffix}`) || ctx.wants(`${p}${n}.longtask${d.suffix}`)),
			) ||
			(d.suffix === "" && ctx.wants(FIRST_SCREEN)),
	);
	if (wanted.length === 0) return [];
	const root = mkdtempSync(join(tmpdir(), "pier-bench-chamber-open-"));
	const savedAgentDir = process.env.PI_CODING_AGENT_DIR;
	const savedOffline = process.env.PI_OFFLINE;
	process.env.PI_OFFLINE = "1";
	const agentDir = join(root, "agent");
	const project = join(root, "project");
	mkdirSync(project, { recursive: true });
	process.env.PI_CODING_AGENT_DIR = agentDir;
	const chamber = await startChamber({
		host: HOST,
		port: 0,
		stateDir: join(root, "state"),
		defaultCwd: project,
		password: PASSWORD,
		heartbeatMs: 3_600_000,
	});
	const browser = await chromium.launch({
		executablePath: process.env.PIER_CHROMIUM ?? "/usr/bin/chromium",
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
	});
	try {
		const { token } = chamber.auth.createDeviceToken("bench");
		const dir = sessionDirFor(project, agentDir, {});
		const sessions = { long: writeSession(project, dir, LONG).id, short: writeSession(project, dir, SHORT).id };
		const lastRow = async (id: string) => {
			const view = JSON.parse(await httpCall(chamber.port, token, "GET", `/api/pi/sessions/${id}?rows=1`));
			return (view as { rows: { id: string }[] }).rows[0]!.id;
		};
		const last = { long: await lastRow(sessions.long), short: await lastRow(sessions.short) };
		const base = `http://${HOST}:${chamber.port}`;
		const results: Result[] = [];
		for (const device of wanted) {
			const page = await devicePage(browser, base, device);
			const where = device.suffix
				? `${device.context.viewport?.width}×${device.context.viewport?.height}, CPU ÷4`
				: "1280×800";
			/** Navigation to the last message on screen, ms (the page's clock starts at navigation). */
			const open = async (which: "long" | "short") => {
				await page.goto(`${base}/?s=${sessions[which]}`);
				const at = await page.waitForFunction(onScreen(last[which]), undefined, { polling: "raf" });
				return (await at.jsonValue()) as number;
			};
			const keystrokes = async (which: "long" | "short") => {
				await open(which);
				await page.evaluate(LOAD_ALL);
				await page.evaluate(KEY_WATCH);
				const box = page.getByTestId("composer");
				await box.click();
				await page.keyboard.type("the quick brown fox!", { delay: 20 });
				await box.fill("");
				const samples = (await page.evaluate("window.__keys")) as number[];
				if (samples.length < KEYS) throw new Error(`${samples.length} keystrokes measured, not ${KEYS}`);
				return samples;
			};
			const specs: FigureSpec[] = [
				...(device.suffix
					? []
					: [
							{
								id: FIRST_SCREEN,
								title: `JavaScript fetched to show a session (${SHORT} entries, 1280×800), KiB`,
								unit: "KiB" as const,
								warmup: 0,
								run: async () => {
									await open("short");
									return ((await page.evaluate(SCRIPT_BYTES)) as number) / 1024;
								},
								baseline: { title: "all of the built app's JavaScript", run: () => appScriptBytes() / 1024 },
							},
						]),
				{
					id: `chamber.open.${LONG}${device.suffix}`,
					title: `navigation → last message on screen, ${LONG.toLocaleString("en")}-entry session (${where})`,
					unit: "ms",
					run: () => open("long"),
					baseline: {
						id: `chamber.open.${SHORT}${device.suffix}`,
						title: `the same, ${SHORT}-entry session`,
						run: () => open("short"),
					},
				},
				{
					id: `chamber.scroll.${LONG}.longtask${device.suffix}`,
					title: `longest main-thread task scrolling the loaded ${LONG.toLocaleString("en")}-entry transcript top to bottom (${where})`,
					unit: "ms",
					warmup: 0,
					run: async () => {
						await open("long");
						await page.evaluate(LOAD_ALL);
						const profiler = await startProfile(page);
						const { longtask, gap, pulled } = (await page.evaluate(SCROLL_DOWN)) as {
							longtask: number;
							gap: number;
							pulled: number;
						};
						await profiler?.save(`chamber.scroll.${LONG}.longtask${device.suffix}`);
						ctx.log(
							`    longest task ${longtask.toFixed(0)} ms, longest frame gap ${gap.toFixed(0)} ms` +
								(pulled ? `, ${pulled} frames where the page moved the scroll elsewhere` : ""),
						);
						return longtask;
					},
				},
				{
					id: `chamber.keystroke.${LONG}${device.suffix}`,
					title: `composer key → next frame, ${LONG.toLocaleString("en")}-entry transcript loaded (${where})`,
					unit: "ms",
					run: () => keystrokes("long"),
					baseline: {
						id: `chamber.keystroke.${SHORT}${device.suffix}`,
						title: `the same, ${SHORT}-entry session`,
						run: () => keystrokes("short"),
					},
				},
			];
			// One figure failing (a page crash, a timeout) leaves the others standing.
			for (const spec of specs) {
				try {
					const done = await compareAll(ctx, [spec]);
					for (const r of done)
						ctx.log(
							`    ${r.id}: ${r.figure.median.toFixed(1)} ${r.unit}${r.baseline ? ` (baseline ${r.baseline.median.toFixed(1)}, ratio ${r.ratio?.toFixed(2)})` : ""}`,
						);
					results.push(...done);
				} catch (error) {
					process.stderr.write(`bench ${spec.id} failed: ${(error as Error).stack ?? error}\n`);
					process.exitCode = 1;
				}
			}
			await page.context().close();
		}
		return results;
	} finally {
		await browser.close();
		await chamber.close();
		if (savedAgentDir === undefined) delete process.env.PI_CODING_AGENT_DIR;
		else process.env.PI_CODING_AGENT_DIR = savedAgentDir;
		if (savedOffline === undefined) delete process.env.PI_OFFLINE;
		else process.env.PI_OFFLINE = savedOffline;
		rmSync(root, { recursive: true, force: true });
	}
}

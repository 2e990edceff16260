/**
 * Finding 10: a process extension's double-forked descendant (a new session, so outside the extension's
 * process group) holds the extension's stdout and stderr open. Before the fix, DELETE of the session hung
 * (the channel waited for stdout EOF) and `pier serve` ignored SIGTERM until killed.
 *
 * Runs twice against a real `pier serve`: with the machine's cgroup v2 (where writable, the descendant must be
 * dead afterwards and the cgroup gone) and with the documented fallback forced (PIER_EXTENSION_CGROUPS=off:
 * the process group only — delete and SIGTERM stay bounded, the extension itself dies, the descendant may
 * survive and is reported). Where the machine has no usable cgroup, the first run asserts the fallback too.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { cgroupStatus } from "../../src/extensions/runtimes/process/cgroup.js";
import { ApiClient, startServe } from "../helpers/chamber.js";
import { REPO_ROOT, tempDir } from "../helpers/pier-cli.js";

/** The shutdown timeout (2 s) plus generous slack for 2 shared cores. */
const DELETE_BOUND_MS = 2_000 + 4_000;
const SIGTERM_BOUND_MS = 8_000;

function writeFixture(dir: string, stubborn: boolean): string {
	const pkg = join(dir, "double-fork");
	mkdirSync(pkg, { recursive: true });
	const kit = join(REPO_ROOT, "kit/node/index.mjs");
	writeFileSync(
		join(pkg, "main.mjs"),
		`#!/usr/bin/env node
import { spawn } from "node:child_process";
import { join } from "node:path";
import { runExtension } from ${JSON.stringify(kit)};

// A double fork: the intermediate shell backgrounds a new session leader and exits at once. The descendant
// ignores SIGHUP and SIGTERM and keeps this process's stdout and stderr (pier's pipes) open.
const pidFile = join(process.cwd(), "descendant-" + process.pid + ".pid");
spawn("/bin/sh", ["-c", "trap '' HUP TERM; setsid sh -c 'echo $$ > \\"$0\\"; exec sleep 600' \\"$1\\" &", "sh", pidFile], {
	stdio: ["ignore", "inherit", "inherit"],
});

${stubborn ? "// Stubborn: the kit's exit on shutdown does nothing, so pier must kill it after the shutdown timeout.\nprocess.exit = () => {};\n" : ""}
runExtension({ id: "double-fork", name: "Double fork", version: "1.0.0", capabilities: ["tools"] }, (pi) => {
	pi.registerTool({
		name: "df_noop",
		description: "does nothing",
		parameters: { type: "object", properties: {} },
		execute: async () => ({ content: [{ type: "text", text: "ok" }] }),
	});
});
`,
		{ mode: 0o755 },
	);
	writeFileSync(
		join(pkg, "pi-extension.json"),
		JSON.stringify({ schemaVersion: 1, id: "double-fork", executable: "./main.mjs", capabilities: ["tools"] }),
	);
	return pkg;
}

const alive = (pid: number) => {
	try {
		process.kill(pid, 0);
		// a zombie is dead for every purpose here
		return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
	} catch {
		return false;
	}
};
const sessionOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[3]);

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((done) => setTimeout(done, 50));
	}
}

const pidFiles = (pkg: string) => new Set(readdirSync(pkg).filter((n) => n.startsWith("descendant-")));

/** A new session, and the pids of the extension process and its escaped descendant. */
async function sessionWithDescendant(api: ApiClient, pkg: string) {
	const before = pidFiles(pkg);
	const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", {});
	assert.equal(created.status, 201, JSON.stringify(created.body));
	const file = await until("the descendant's pid file", () =>
		[...pidFiles(pkg)].find((n) => !before.has(n) && readFileSync(join(pkg, n), "utf8").trim() !== ""),
	);
	const extensionPid = Number(/descendant-(\d+)\.pid/.exec(file)![1]);
	const descendant = Number(readFileSync(join(pkg, file), "utf8").trim());
	assert.ok(alive(descendant), "the descendant runs");
	assert.notEqual(sessionOf(descendant), sessionOf(extensionPid), "the descendant left the extension's session");
	return { id: created.body.session.id, extensionPid, descendant };
}

const cases: { name: string; env: Record<string, string>; stubborn: boolean; signal: NodeJS.Signals }[] = [
	{ name: "with the machine's cgroups", env: {}, stubborn: false, signal: "SIGTERM" },
	{ name: "an extension that ignores shutdown, cgroups, SIGINT", env: {}, stubborn: true, signal: "SIGINT" },
	{
		name: "an extension that ignores shutdown, the fallback forced (PIER_EXTENSION_CGROUPS=off)",
		env: { PIER_EXTENSION_CGROUPS: "off" },
		stubborn: true,
		signal: "SIGTERM",
	},
];

for (const { name, env, stubborn, signal } of cases) {
	describe(`a double-forked descendant holding stdout, ${name}`, () => {
		test(`DELETE of the session and ${signal} of pier serve finish in bounded time`, async (t) => {
			const status = env.PIER_EXTENSION_CGROUPS ? { usable: false as const, reason: "forced off" } : cgroupStatus();
			const cgroups = status.usable;
			t.diagnostic(cgroups ? `cgroups ran (${status.base})` : `fallback ran: ${status.reason}`);
			using dir = tempDir("pier-double-fork-");
			const pkg = writeFixture(dir.path, stubborn);
			const agentDir = join(dir.path, "agent");
			const serve = await startServe(["-e", pkg, "--state-dir", join(dir.path, "state"), "--ui-password", "pw"], {
				agentDir,
				cwd: dir.path,
				env,
			});
			const leftovers: number[] = [];
			try {
				const api = new ApiClient(serve.url);
				assert.equal((await api.login("pw")).status, 200);

				const first = await sessionWithDescendant(api, pkg);
				leftovers.push(first.descendant);
				const started = Date.now();
				const deleted = await api.call("DELETE", `/api/pi/sessions/${first.id}`);
				const deleteMs = Date.now() - started;
				t.diagnostic(`DELETE took ${deleteMs} ms`);
				assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
				assert.ok(deleteMs < DELETE_BOUND_MS, `DELETE took ${deleteMs} ms`);
				assert.ok(!alive(first.extensionPid), "the extension process is gone");
				if (cgroups) {
					await until("the descendant to die", () => (alive(first.descendant) ? undefined : true), 3_000);
				} else {
					t.diagnostic(`fallback: the descendant ${alive(first.descendant) ? "survived (documented)" : "died"}`);
				}

				const second = await sessionWithDescendant(api, pkg);
				leftovers.push(second.descendant);
				const stopping = Date.now();
				const exited = new Promise<number | null>((done) => serve.process.once("exit", (c) => done(c)));
				serve.process.kill(signal);
				const code = await Promise.race([
					exited,
					new Promise<"hung">((done) => setTimeout(() => done("hung"), SIGTERM_BOUND_MS + 5_000)),
				]);
				const stopMs = Date.now() - stopping;
				t.diagnostic(`${signal} → exit took ${stopMs} ms (code ${code})`);
				assert.notEqual(code, "hung", `pier serve ignored ${signal}:\n${serve.output()}`);
				assert.equal(code, 0, serve.output());
				assert.ok(stopMs < SIGTERM_BOUND_MS, `${signal} took ${stopMs} ms`);
				assert.ok(!alive(second.extensionPid), "the extension process is gone");
				if (cgroups) {
					await until("the descendant to die", () => (alive(second.descendant) ? undefined : true), 3_000);
					const base = status.usable ? status.base : "";
					const left = readdirSync(base).filter((n) => n.startsWith(`pier-${serve.process.pid}-`));
					assert.deepEqual(left, [], "every extension cgroup was removed");
					assert.doesNotMatch(serve.output(), /without a cgroup/);
				} else {
					assert.match(serve.output(), /process extensions run without a cgroup/, "the fallback is said once");
					assert.equal(serve.output().match(/without a cgroup/g)?.length, 1);
				}
			} finally {
				if (serve.process.exitCode === null) serve.process.kill("SIGKILL");
				for (const pid of leftovers) {
					try {
						process.kill(pid, "SIGKILL");
					} catch {
						// gone, as it should be
					}
				}
			}
			assert.ok(existsSync(pkg));
		});
	});
}

/**
 * The terminal over HTTP against a real `pier serve` and real PTYs (bash): nothing runs until a terminal is opened
 * (node-pty is not even loaded); a shell in the session's directory runs `pwd`; its scrollback comes back on a new
 * stream, bounded at 256 KiB; resize, exit, limits. Hostile: no credentials, a cookie without its key, a foreign
 * Origin, another session's id. Closing: DELETE, the session's delete and the daemon's stop leave no process the
 * terminal started running, a job that ignores SIGHUP included.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import { isRunning } from "../../src/chamber/terminal/process-session.js";
import { TERMINAL_LIMITS, type TerminalView } from "../../src/chamber/terminal/terminal-wire.js";
import { ApiClient, type Serve, servedChamber } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";

/** One SSE event of a terminal stream: its name and JSON payload. */
interface TermEvent {
	event: string;
	data: Record<string, unknown>;
}

/** An output or replay event's text (it travels as base64 of UTF-8). */
function decoded(e: TermEvent): string {
	return Buffer.from(e.data.base64 as string, "base64").toString("utf8");
}

/** A terminal stream read on a raw socket, keeping every event. */
class TermStream {
	readonly events: TermEvent[] = [];
	private readonly texts = new Map<string, string>();
	status: number | undefined;
	closed = false;
	private buffer = "";
	private waiters: (() => void)[] = [];
	private readonly req: ReturnType<typeof request>;
	readonly ready: Promise<number>;

	constructor(url: URL, headers: Record<string, string>) {
		let onStatus: (status: number) => void = () => {};
		this.ready = new Promise((done) => {
			onStatus = done;
		});
		this.req = request(url, { headers: { accept: "text/event-stream", ...headers } }, (res) => {
			this.status = res.statusCode;
			onStatus(res.statusCode ?? 0);
			res.setEncoding("utf8");
			res.on("data", (chunk: string) => this.feed(chunk));
			res.on("close", () => {
				this.closed = true;
				this.wake();
			});
		});
		this.req.on("error", () => {
			this.closed = true;
			onStatus(0);
			this.wake();
		});
		this.req.end();
	}

	private feed(chunk: string): void {
		this.buffer += chunk;
		for (let end = this.buffer.indexOf("\n\n"); end >= 0; end = this.buffer.indexOf("\n\n")) {
			const block = this.buffer.slice(0, end).split("\n");
			this.buffer = this.buffer.slice(end + 2);
			const event = block.find((l) => l.startsWith("event: "))?.slice(7);
			const data = block.find((l) => l.startsWith("data: "))?.slice(6);
			if (!event || !data) continue;
			const parsed = { event, data: JSON.parse(data) as Record<string, unknown> };
			this.events.push(parsed);
			if (event === "terminal.output" || event === "terminal.replay") {
				const id = parsed.data.id as string;
				this.texts.set(id, (this.texts.get(id) ?? "") + decoded(parsed));
			}
		}
		this.wake();
	}

	private wake(): void {
		for (const w of this.waiters.splice(0)) w();
	}

	/** Everything a terminal wrote on this stream (its replay, then its output). */
	text(id: string): string {
		return this.texts.get(id) ?? "";
	}

	async until<T>(check: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const found = check();
			if (found) return found;
			if (this.closed) throw new Error(`stream closed before ${what}; got ${this.names()}`);
			const left = deadline - Date.now();
			if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${this.names()}`);
			await new Promise<void>((done) => {
				const timer = setTimeout(done, left);
				this.waiters.push(() => {
					clearTimeout(timer);
					done();
				});
			});
		}
	}

	/** Resolves once the daemon has ended the stream. */
	async ended(what: string): Promise<void> {
		await this.until(() => this.closed || undefined, what).catch((error: Error) => {
			if (!this.closed) throw error;
		});
	}

	names(): string {
		return this.events.map((e) => e.event).join(" ");
	}

	close(): void {
		this.closed = true;
		this.req.destroy();
	}
}

/** Polls a condition of the machine (a process gone) until it holds. */
async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!check()) {
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

describe("terminals over HTTP", () => {
	const dir = tempDir("pier-terminal-");
	const project = join(dir.path, "project");
	const other = join(dir.path, "other");
	let serve: Serve;
	let api: ApiClient;
	let sessionA: string;
	let sessionB: string;

	const base = (session: string) => `/api/pi/sessions/${session}/terminals`;
	const stream = (session: string, client: ApiClient = api) =>
		new TermStream(new URL(`${base(session)}/stream`, serve.url), client.headers());
	const open = async (session: string, body: Record<string, unknown> = {}) => {
		const reply = await api.call<{ terminal: TerminalView }>("POST", base(session), body);
		assert.equal(reply.status, 201, JSON.stringify(reply.body));
		return reply.body.terminal;
	};
	const type = async (session: string, id: string, data: string) => {
		const reply = await api.call("POST", `${base(session)}/${id}/input`, { data });
		assert.equal(reply.status, 200, JSON.stringify(reply.body));
	};
	const newSession = async (cwd: string) => {
		const created = await api.call<{ session: { id: string } }>("POST", "/api/pi/sessions", { cwd });
		assert.equal(created.status, 201, JSON.stringify(created.body));
		sessions.push(created.body.session.id);
		return created.body.session.id;
	};
	/** Runs a command and waits for the line its output ends with (built so the echoed command never matches). */
	const run = async (watch: TermStream, session: string, id: string, command: string, done: RegExp) => {
		const before = watch.text(id).length;
		await type(session, id, `${command}\r`);
		return watch.until(() => done.exec(watch.text(id).slice(before)) ?? undefined, `${command} to finish`);
	};

	before(async () => {
		mkdirSync(join(dir.path, "agent"), { recursive: true });
		mkdirSync(project);
		mkdirSync(other);
		// bash without the developer's rc files (HOME is the test's own); the password also in the daemon's
		// environment, where the shell must not see it.
		({ serve, api } = await servedChamber(["--no-examples"], {
			agentDir: join(dir.path, "agent"),
			cwd: dir.path,
			stateDir: join(dir.path, "state"),
			password: "pw",
			env: { SHELL: "/bin/bash", HOME: dir.path, PIER_UI_PASSWORD: "pw" },
		}));
		sessionA = await newSession(project);
		sessionB = await newSession(other);
	});
	// A failed test leaves no terminal to count against the next one's limits.
	const sessions: string[] = [];
	afterEach(async () => {
		if (serve.process.exitCode !== null) return;
		for (const session of sessions) {
			const { body } = await api.call<{ terminals?: TerminalView[] }>("GET", base(session));
			for (const t of body.terminals ?? []) await api.call("DELETE", `${base(session)}/${t.id}`);
		}
	});
	after(async () => {
		await serve?.stop();
		dir[Symbol.dispose]();
	});

	test("nothing runs until a terminal is opened: no terminal, node-pty not loaded", async () => {
		const reply = await api.call<{ terminals: TerminalView[] }>("GET", base(sessionA));
		assert.equal(reply.status, 200);
		assert.deepEqual(reply.body.terminals, []);
		const maps = readFileSync(`/proc/${serve.process.pid}/maps`, "utf8");
		assert.doesNotMatch(maps, /pty\.node/, "node-pty's binding is loaded before any terminal was opened");
	});

	test("a shell in the session's directory runs pwd; the scrollback comes back on a new stream", async () => {
		const watch = stream(sessionA);
		assert.equal(await watch.ready, 200);
		const terminal = await open(sessionA, { cols: 100, rows: 30 });
		assert.equal(terminal.cwd, project);
		assert.equal(terminal.shell, "/bin/bash");
		assert.deepEqual([terminal.cols, terminal.rows], [100, 30]);
		assert.match(readFileSync(`/proc/${serve.process.pid}/maps`, "utf8"), /pty\.node/);
		await watch.until(
			() =>
				watch.events.find((e) => e.event === "terminal.opened" && (e.data.terminal as TerminalView).id === terminal.id),
			"terminal.opened",
		);

		const here = project.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
		await run(watch, sessionA, terminal.id, "pwd", new RegExp(`[\\r\\n]${here}\\r?\\n`));
		// The shell is the user's, as a terminal emulator starts it, without the daemon's password.
		await run(watch, sessionA, terminal.id, 'echo "T=$TERM P=[$PIER_UI_PASSWORD]"', /T=xterm-256color P=\[\]/);
		await run(watch, sessionA, terminal.id, "stty size", /[\r\n]30 100\r?\n/);
		const resized = await api.call("POST", `${base(sessionA)}/${terminal.id}/resize`, { cols: 120, rows: 40 });
		assert.equal(resized.status, 200);
		await run(watch, sessionA, terminal.id, "stty size", /[\r\n]40 120\r?\n/);
		watch.close();

		// A reload: a new stream lists the terminal and replays what it showed.
		const again = stream(sessionA);
		const listed = await again.until(() => again.events.find((e) => e.event === "terminal.list"), "the list");
		assert.deepEqual(
			(listed.data.terminals as TerminalView[]).map((t) => [t.id, t.cols, t.rows]),
			[[terminal.id, 120, 40]],
		);
		const replay = await again.until(() => again.events.find((e) => e.event === "terminal.replay"), "the replay");
		assert.equal(replay.data.id, terminal.id);
		assert.match(decoded(replay), new RegExp(`[\\r\\n]${here}\\r?\\n`));
		assert.match(decoded(replay), /[\r\n]40 120\r?\n/);
		// And it goes on live after the replay.
		await run(again, sessionA, terminal.id, "echo live-$((40+2))", /live-42/);
		again.close();
		await api.call("DELETE", `${base(sessionA)}/${terminal.id}`);
	});

	test("the scrollback keeps the newest 256 KiB: one byte past the bound drops the oldest", async () => {
		const terminal = await open(sessionA);
		const watch = stream(sessionA);
		// FIRST-MARK, 300,000 bytes, LAST-MARK: written by printf so the echoed command line shows neither mark.
		await run(
			watch,
			sessionA,
			terminal.id,
			"printf 'FIRST-%s\\n' MARK; head -c 300000 /dev/zero | tr '\\0' x; printf '\\nLAST-%s\\n' MARK",
			/LAST-MARK/,
		);
		watch.close();
		const again = stream(sessionA);
		const replay = await again.until(
			() => again.events.find((e) => e.event === "terminal.replay" && e.data.id === terminal.id),
			"the replay",
		);
		const text = decoded(replay);
		const bytes = Buffer.byteLength(text);
		assert.ok(bytes <= TERMINAL_LIMITS.scrollbackBytes, `${bytes} bytes replayed`);
		// Cut at most at a line start within 4 KiB after the bound (the 300,000 x's are one line: cut at the bound).
		assert.ok(bytes > TERMINAL_LIMITS.scrollbackBytes - 4096, `${bytes} bytes replayed`);
		assert.match(text, /LAST-MARK/);
		assert.doesNotMatch(text, /FIRST-MARK/);
		again.close();
		await api.call("DELETE", `${base(sessionA)}/${terminal.id}`);
	});

	test("bodies past their bounds are refused, naming the field", async () => {
		const terminal = await open(sessionA);
		const url = `${base(sessionA)}/${terminal.id}`;
		const long = await api.call<{ error: { message: string } }>("POST", `${url}/input`, {
			data: "x".repeat(TERMINAL_LIMITS.inputChars + 1),
		});
		assert.equal(long.status, 400);
		assert.match(long.body.error.message, /data/);
		assert.equal(
			(await api.call("POST", `${url}/input`, { data: "x".repeat(TERMINAL_LIMITS.inputChars) })).status,
			200,
		);
		const wide = await api.call<{ error: { message: string } }>("POST", `${url}/resize`, {
			cols: TERMINAL_LIMITS.maxColumns + 1,
			rows: 10,
		});
		assert.equal(wide.status, 400);
		assert.match(wide.body.error.message, /cols/);
		assert.equal((await api.call("POST", `${url}/resize`, { cols: TERMINAL_LIMITS.maxColumns, rows: 10 })).status, 200);
		await api.call("DELETE", url);
	});

	test("a session holds at most 8 terminals and the daemon 32; DELETE ends the shell", async () => {
		const opened: { session: string; terminal: TerminalView }[] = [];
		const fill = async (session: string, count: number) => {
			for (let n = 0; n < count; n++) opened.push({ session, terminal: await open(session) });
		};
		const refused = async (session: string, which: RegExp) => {
			const reply = await api.call<{ error: { code: string; message: string } }>("POST", base(session), {});
			assert.equal(reply.status, 409);
			assert.equal(reply.body.error.code, "terminal_limit");
			assert.match(reply.body.error.message, which);
		};
		await fill(sessionA, TERMINAL_LIMITS.perSession);
		await refused(sessionA, /this session has 8 terminals/);
		// Eight full scrollbacks of escape bytes (six bytes each in JSON, four thirds in base64) replay on one stream.
		const watch = stream(sessionA);
		for (const { terminal } of opened) {
			const command = "head -c 300000 /dev/zero | tr '\\0' '\\033'; printf '\\nFULL-%s\\n' MARK";
			await run(watch, sessionA, terminal.id, command, /FULL-MARK/);
		}
		watch.close();
		const again = stream(sessionA);
		const replays = await again.until(() => {
			const got = again.events.filter((e) => e.event === "terminal.replay");
			return got.length === TERMINAL_LIMITS.perSession ? got : undefined;
		}, "eight replays");
		for (const replay of replays) {
			const bytes = Buffer.byteLength(decoded(replay));
			assert.ok(bytes > TERMINAL_LIMITS.scrollbackBytes - 4096 && bytes <= TERMINAL_LIMITS.scrollbackBytes, `${bytes}`);
		}
		assert.equal(again.closed, false, "the stream was cut off");
		again.close();
		// 8 + 8 + 8 + 7 + 1 = 32 across five sessions: the next one, in a session with room, is the daemon's 33rd.
		const more = [sessionB, await newSession(other), await newSession(other), await newSession(project)];
		await fill(more[0]!, 8);
		await fill(more[1]!, 8);
		await fill(more[2]!, 7);
		await fill(more[3]!, 1);
		await refused(more[3]!, /the chamber has 32 terminals/);
		for (const { session, terminal } of opened)
			assert.equal((await api.call("DELETE", `${base(session)}/${terminal.id}`)).status, 200);
		for (const { terminal } of opened) assert.equal(isRunning(terminal.pid), false, `shell ${terminal.pid} still runs`);
		const left = await api.call<{ terminals: TerminalView[] }>("GET", base(sessionA));
		assert.deepEqual(left.body.terminals, []);
		await open(more[3]!).then((t) => api.call("DELETE", `${base(more[3]!)}/${t.id}`));
	});

	test("a shell that exits says how, and its terminal is gone", async () => {
		const watch = stream(sessionA);
		const terminal = await open(sessionA);
		await type(sessionA, terminal.id, "exit 3\r");
		const exit = await watch.until(
			() => watch.events.find((e) => e.event === "terminal.exit" && e.data.id === terminal.id),
			"terminal.exit",
		);
		assert.deepEqual(exit.data, { id: terminal.id, reason: "exited", exitCode: 3 });
		const input = await api.call("POST", `${base(sessionA)}/${terminal.id}/input`, { data: "x" });
		assert.equal(input.status, 404);
		watch.close();
	});

	test("hostile: without credentials, with a cookie and no key, or from another origin, nothing opens or reads", async () => {
		const terminal = await open(sessionA);
		const url = `${base(sessionA)}/${terminal.id}`;
		const stranger = new ApiClient(serve.url);
		const halfSignedIn = new ApiClient(serve.url);
		halfSignedIn.cookie = api.cookie;
		for (const [client, code] of [
			[stranger, "unauthorized"],
			[halfSignedIn, "browser_key_required"],
		] as const) {
			for (const [method, path, body] of [
				["GET", base(sessionA), undefined],
				["POST", base(sessionA), {}],
				["POST", `${url}/input`, { data: "touch pwned\r" }],
				["POST", `${url}/resize`, { cols: 10, rows: 10 }],
				["DELETE", url, undefined],
			] as const) {
				const reply = await client.call<{ error: { code: string } }>(method, path, body);
				assert.equal(reply.status, 401, `${method} ${path}`);
				assert.equal(reply.body.error.code, code);
			}
			const watch = stream(sessionA, client);
			assert.equal(await watch.ready, 401);
			watch.close();
		}
		// A page on another origin cannot post to it with the browser's credentials.
		const foreign = await fetch(new URL(`${url}/input`, serve.url), {
			method: "POST",
			headers: { ...api.headers({ "content-type": "application/json" }), origin: "http://evil.example" },
			body: JSON.stringify({ data: "touch pwned\r" }),
		});
		assert.equal(foreign.status, 403);
		const listed = await api.call<{ terminals: TerminalView[] }>("GET", base(sessionA));
		assert.deepEqual(
			listed.body.terminals.map((t) => t.id),
			[terminal.id],
			"nothing opened",
		);
		await api.call("DELETE", url);
	});

	test("hostile: a terminal is found only under its own session's id", async () => {
		const watchA = stream(sessionA);
		const terminal = await open(sessionA);
		const foreign = `${base(sessionB)}/${terminal.id}`;
		for (const [method, path, body] of [
			["POST", `${foreign}/input`, { data: "echo crossed-$((1+1))\r" }],
			["POST", `${foreign}/resize`, { cols: 10, rows: 10 }],
			["DELETE", foreign, undefined],
		] as const) {
			const reply = await api.call<{ error: { code: string } }>(method, path, body);
			assert.equal(reply.status, 404, `${method} ${path}`);
			assert.equal(reply.body.error.code, "not_found");
		}
		// Session B's list and stream do not show A's terminal.
		const listB = await api.call<{ terminals: TerminalView[] }>("GET", base(sessionB));
		assert.deepEqual(listB.body.terminals, []);
		const watchB = stream(sessionB);
		const listed = await watchB.until(() => watchB.events.find((e) => e.event === "terminal.list"), "B's list");
		assert.deepEqual(listed.data.terminals, []);
		// A session that does not exist has no terminals to open.
		const nowhere = await api.call<{ error: { code: string } }>("POST", base("no-such-session"), {});
		assert.equal(nowhere.status, 404);
		// The terminal ran none of it and still runs: what it shows next is its own.
		await run(watchA, sessionA, terminal.id, "echo mine-$((2+2))", /mine-4/);
		assert.doesNotMatch(watchA.text(terminal.id), /crossed-2/);
		assert.equal(isRunning(terminal.pid), true);
		assert.equal(watchB.events.filter((e) => e.event !== "terminal.list").length, 0, watchB.names());
		watchA.close();
		watchB.close();
		await api.call("DELETE", `${base(sessionA)}/${terminal.id}`);
	});

	test("deleting the session ends its terminals and every process they started", async () => {
		const doomed = await newSession(project);
		const watch = stream(doomed);
		const terminal = await open(doomed);
		// A job in the background, and one that ignores the hangup (it gets SIGKILL after the grace time).
		const bg = await run(watch, doomed, terminal.id, "sleep 1000 & echo BG=$!", /BG=(\d+)/);
		const nohup = await run(watch, doomed, terminal.id, "nohup sleep 1001 >/dev/null 2>&1 & echo NH=$!", /NH=(\d+)/);
		const pids = [terminal.pid, Number(bg[1]), Number(nohup[1])];
		for (const pid of pids) assert.equal(isRunning(pid), true, `${pid} should run`);
		const survivor = await open(sessionA);

		assert.equal((await api.call("DELETE", `/api/pi/sessions/${doomed}`)).status, 200);
		const exit = await watch.until(() => watch.events.find((e) => e.event === "terminal.exit"), "terminal.exit");
		assert.equal(exit.data.reason, "closed");
		await watch.ended("the stream's end");
		for (const pid of pids) await until(() => !isRunning(pid), `process ${pid} to end`);
		// Another session's terminal is not touched.
		assert.equal(isRunning(survivor.pid), true);
		await api.call("DELETE", `${base(sessionA)}/${survivor.id}`);
	});

	// Last: it stops the daemon.
	test("stopping the daemon ends every terminal and what runs in it", async () => {
		const watch = stream(sessionB);
		const first = await open(sessionA);
		const second = await open(sessionB);
		const bg = await run(watch, sessionB, second.id, "sleep 1002 & echo BG=$!", /BG=(\d+)/);
		const pids = [first.pid, second.pid, Number(bg[1])];
		assert.equal(await serve.stop(), 0);
		for (const pid of pids) await until(() => !isRunning(pid), `process ${pid} to end`);
		watch.close();
	});
});

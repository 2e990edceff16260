/**
 * Finding 6: the login rate limit was checked before the scrypt hash and counted after it, so 200
 * simultaneous wrong passwords from one client all passed the check (185 were hashed). Now each attempt is
 * counted before its hash: of 200 at once, only the allowed 5 are checked (answered 401 bad_password, which
 * only a finished hash can answer); the other 195 are 429 with Retry-After. A different client still signs in.
 */
import assert from "node:assert/strict";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ApiClient, type Serve, startServe } from "../helpers/chamber.js";
import { tempDir } from "../helpers/pier-cli.js";

const PASSWORD = "correct horse battery";
const ALLOWED = 5;

const dir = tempDir("pier-login-race-");
let serve: Serve;

before(async () => {
	serve = await startServe(["--no-examples", "--state-dir", join(dir.path, "state"), "--ui-password", PASSWORD], {
		agentDir: join(dir.path, "agent"),
		cwd: dir.path,
	});
});

after(async () => {
	await serve?.stop();
	dir[Symbol.dispose]();
});

interface Answer {
	status: number;
	code?: string;
	retryAfter?: string;
}

/** One login over its own socket; `localAddress` picks the client's address (127.0.0.0/8 is all loopback). */
function login(password: string, agent: Agent, localAddress?: string): Promise<Answer> {
	const url = new URL("/api/auth/login", serve.url);
	const body = JSON.stringify({ password });
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{
				method: "POST",
				agent,
				...(localAddress ? { localAddress } : {}),
				headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
			},
			(res) => {
				let text = "";
				res.setEncoding("utf8").on("data", (d: string) => {
					text += d;
				});
				res.on("end", () => {
					const code = text ? (JSON.parse(text) as { error?: { code?: string } }).error?.code : undefined;
					resolve({
						status: res.statusCode ?? 0,
						...(code ? { code } : {}),
						...(res.headers["retry-after"] ? { retryAfter: String(res.headers["retry-after"]) } : {}),
					});
				});
			},
		);
		req.on("error", reject);
		req.end(body);
	});
}

test("200 simultaneous wrong logins from one client: at most the allowed 5 reach the password check", async () => {
	// One socket per request, all opened at once: the daemon sees 200 logins in flight together.
	const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
	const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => login(`wrong guess ${i}`, agent)));
	agent.destroy();
	const tally = new Map<string, number>();
	for (const a of answers) tally.set(`${a.status} ${a.code}`, (tally.get(`${a.status} ${a.code}`) ?? 0) + 1);
	const checked = answers.filter((a) => a.status === 401 && a.code === "bad_password").length;
	// bad_password is only ever answered after scrypt compared the hash: this is the number checked.
	assert.ok(checked <= ALLOWED, `checked ${checked} of 200 (${JSON.stringify([...tally])})`);
	assert.equal(checked, ALLOWED, `the allowed attempts are still checked (${JSON.stringify([...tally])})`);
	const limited = answers.filter((a) => a.status === 429 && a.code === "rate_limited");
	assert.equal(limited.length, 200 - ALLOWED, JSON.stringify([...tally]));
	for (const a of limited) {
		const seconds = Number(a.retryAfter);
		assert.ok(Number.isInteger(seconds) && seconds >= 1 && seconds <= 60, `Retry-After ${a.retryAfter}`);
	}
	console.log(`# 200 concurrent wrong logins: ${JSON.stringify(Object.fromEntries(tally))}`);

	// The blocked client is blocked even with the right password: a guess that happens to be right is not
	// told so while the block lasts.
	const blockedAgent = new Agent();
	assert.equal((await login(PASSWORD, blockedAgent)).status, 429);

	// Another client (another loopback address) is not affected and signs in, and its cookie and key work.
	const other = new Agent();
	const ok = await login(PASSWORD, other, "127.0.0.2");
	assert.equal(ok.status, 200, JSON.stringify(ok));
	blockedAgent.destroy();
	other.destroy();
	const client = new ApiClient(serve.url);
	assert.equal((await client.login(PASSWORD)).status, 429, "ApiClient connects from 127.0.0.1: still blocked");
});

test("the block holds for later bursts in the window: another 50 at once are all refused unchecked", async () => {
	const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
	const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => login(`later guess ${i}`, agent)));
	agent.destroy();
	assert.deepEqual([...new Set(answers.map((a) => a.status))], [429]);
});

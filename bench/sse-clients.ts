/**
 * N SSE clients on one worker thread, so their reading and JSON parsing does not steal the server's event
 * loop (a browser would not either); both threads read the same monotonic clock (process.hrtime). Each client
 * parses every `data:` line as JSON; the k-th sample is the `transcript.row` whose data carries `bench-<k>`.
 */
import { Worker } from "node:worker_threads";

const CLIENTS = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const { host, port, path, headers, clients } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const pending = new Map();
let connected = 0;
const fail = (message) => parentPort.postMessage({ type: "error", message });
for (let c = 0; c < clients; c++) {
	const req = http.get({ host, port, path, headers, agent }, (res) => {
		if (res.statusCode !== 200) return fail("status " + res.statusCode);
		res.setEncoding("utf8");
		let buffer = "";
		res.on("data", (chunk) => {
			buffer += chunk;
			let end = buffer.indexOf("\\n\\n");
			while (end >= 0) {
				const frame = buffer.slice(0, end);
				buffer = buffer.slice(end + 2);
				end = buffer.indexOf("\\n\\n");
				for (const line of frame.split("\\n")) {
					if (!line.startsWith("data: ")) continue;
					const envelope = JSON.parse(line.slice(6));
					if (envelope.event !== "transcript.row") continue;
					const k = /"bench-(\\d+)"/.exec(line);
					if (!k) continue;
					const at = process.hrtime.bigint();
					let times = pending.get(k[1]);
					if (!times) pending.set(k[1], (times = []));
					times.push(at);
					if (times.length === clients) {
						pending.delete(k[1]);
						parentPort.postMessage({ type: "sample", k: Number(k[1]), times });
					}
				}
			}
		});
		res.on("error", (e) => fail(String(e)));
		res.on("close", () => fail("stream closed"));
		if (++connected === clients) parentPort.postMessage({ type: "ready" });
	});
	req.on("error", (e) => fail(String(e)));
}
`;

type FromClients =
	| { type: "ready" }
	| { type: "error"; message: string }
	| { type: "sample"; k: number; times: bigint[] };

export class SseClients {
	private readonly worker: Worker;
	private waiter: { resolve: (m: FromClients) => void; reject: (e: Error) => void } | undefined;
	private failure: Error | undefined;
	private k = 0;
	private closing = false;

	private constructor(
		readonly label: string,
		options: { host: string; port: number; path: string; headers: Record<string, string>; clients: number },
	) {
		this.worker = new Worker(CLIENTS, { eval: true, workerData: options });
		this.worker.on("message", (m: FromClients) => {
			if (m.type === "error") this.fail(new Error(`SSE client (${label}): ${m.message}`));
			else this.waiter?.resolve(m);
		});
		this.worker.on("error", (e) => this.fail(e));
	}

	/** Connected: every client has its response headers, so the server has attached it. */
	static async connect(
		label: string,
		options: { host: string; port: number; path: string; headers: Record<string, string>; clients: number },
	): Promise<SseClients> {
		const clients = new SseClients(label, options);
		const m = await clients.next(60_000);
		if (m.type !== "ready") throw new Error(`SSE clients (${label}): expected ready, got ${m.type}`);
		return clients;
	}

	/**
	 * `firings` times: stamp the time, `fire(k)` (which must make the server write the k-th frame), wait until
	 * every client has parsed it. One sample per client per firing, in ms (or µs).
	 */
	async block(firings: number, fire: (k: number) => void, unit: "ms" | "µs" = "ms"): Promise<number[]> {
		const ns = unit === "ms" ? 1e6 : 1e3;
		const latencies: number[] = [];
		for (let i = 0; i < firings; i++) {
			const k = this.k++;
			const arrived = this.next(15_000);
			const start = process.hrtime.bigint();
			fire(k);
			const m = await arrived;
			if (m.type !== "sample" || m.k !== k) throw new Error(`expected sample ${k}, got ${JSON.stringify(m)}`);
			for (const at of m.times) latencies.push(Number(at - start) / ns);
		}
		return latencies;
	}

	async close(): Promise<void> {
		this.closing = true;
		await this.worker.terminate();
	}

	private fail(error: Error): void {
		if (this.closing) return;
		this.failure ??= error;
		this.waiter?.reject(error);
	}

	private next(timeoutMs: number): Promise<FromClients> {
		if (this.failure) return Promise.reject(this.failure);
		return new Promise<FromClients>((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`SSE clients stalled (${this.label})`)), timeoutMs);
			this.waiter = {
				resolve: (m) => {
					clearTimeout(timer);
					resolve(m);
				},
				reject: (e) => {
					clearTimeout(timer);
					reject(e);
				},
			};
		});
	}
}

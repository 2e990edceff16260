/**
 * The soak's daemon (bench/soak.ts starts it as its own process, so its memory is the daemon's alone): the
 * chamber on 127.0.0.1 with a temporary agent dir, the offline demo model and no extensions. Every numbered
 * event's publish time (the monotonic clock every process on the machine shares) is appended to a file, so
 * the soak can measure delivery per client without the daemon keeping anything for it.
 *
 * argv: <root dir> <publish-times file>. Prints one JSON line `{port, token, pid}` when listening; answers
 * the IPC message "measure" with its memory after a full collection and what its replay windows hold,
 * `{heap: path}` by writing a heap snapshot there, and "closeIdle" by closing every idle session.
 */
import { closeSync, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { writeHeapSnapshot } from "node:v8";
import { EventChannel } from "../src/chamber/events/channel.js";
import { startChamber } from "../src/chamber/server.js";

const [root, timesFile] = process.argv.slice(2);
if (!root || !timesFile) throw new Error("usage: soak-daemon <root> <times-file>");
const project = join(root, "project");
mkdirSync(project, { recursive: true });
process.env.PI_CODING_AGENT_DIR = join(root, "agent");
process.env.PI_OFFLINE = "1";

const times = openSync(timesFile, "w");
/** Every channel that has published, to report what their replay windows hold. */
const channels = new Set<WeakRef<EventChannel>>();
const seen = new WeakSet<EventChannel>();
const publish = EventChannel.prototype.publish;
EventChannel.prototype.publish = function (this: EventChannel, event, payload) {
	if (!seen.has(this)) {
		seen.add(this);
		channels.add(new WeakRef(this));
	}
	const envelope = publish.call(this, event, payload);
	writeSync(times, `${envelope.sessionId} ${envelope.seq} ${process.hrtime.bigint()}\n`);
	return envelope;
} as typeof publish;

const chamber = await startChamber({
	host: "127.0.0.1",
	port: 0,
	stateDir: join(root, "state"),
	defaultCwd: project,
	// The soak's clients are many on purpose (the default cap is for real devices).
	connections: { maxConnections: 4_096 },
});
const { token } = chamber.auth.createDeviceToken("soak");
process.stdout.write(`${JSON.stringify({ port: chamber.port, token, pid: process.pid })}\n`);
// The soak asks for the daemon's memory after a full collection (node runs this with --expose-gc): what the
// daemon keeps, as opposed to the garbage V8 has not collected yet, which the resident set also counts.
process.on("message", (message) => {
	// The heap probe (bench/heap-growth.ts): a snapshot, written while the soak holds every session between turns.
	if (typeof message === "object" && message !== null && "heap" in message) {
		process.send?.({ heapWritten: writeHeapSnapshot(String(message.heap)) });
		return;
	}
	// The end of the soak: with its clients gone, the sessions are idle, and the daemon closes them as its idle
	// sweep would after 15 minutes.
	if (message === "closeIdle") {
		void chamber.chamber.closeIdle(0).then((closed) => process.send?.({ closed }));
		return;
	}
	if (message !== "measure") return;
	const gc = (globalThis as { gc?: () => void }).gc;
	gc?.();
	const replay = { events: 0, bytes: 0 };
	for (const ref of channels) {
		const channel = ref.deref();
		if (!channel) {
			channels.delete(ref);
			continue;
		}
		const { events, bytes } = channel.retained;
		replay.events += events;
		replay.bytes += bytes;
	}
	process.send?.({ collected: gc !== undefined, replay, ...process.memoryUsage() });
});
process.on("SIGTERM", () => {
	void chamber.close().finally(() => {
		closeSync(times);
		process.exit(0);
	});
});

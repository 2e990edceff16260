/** Hostile extension packages, written into a test's temporary directory, and a record of what escaped. */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A QuickJS package `id` whose index.mjs is `source`. */
export function quickjsPackage(root: string, id: string, source: string, capabilities: string[]): string {
	const dir = join(root, id);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "index.mjs"), source);
	writeFileSync(
		join(dir, "pi-extension.json"),
		JSON.stringify({ schemaVersion: 1, id, runtime: "quickjs", entry: "./index.mjs", capabilities }),
	);
	return dir;
}

/** A process package `id` whose executable is the Node script `source`. */
export function processPackage(root: string, id: string, source: string, capabilities: string[]): string {
	const dir = join(root, id);
	mkdirSync(dir, { recursive: true });
	writeFileSync(join(dir, "main.mjs"), `#!${process.execPath}\n${source}`);
	chmodSync(join(dir, "main.mjs"), 0o755);
	writeFileSync(
		join(dir, "pi-extension.json"),
		JSON.stringify({ schemaVersion: 1, id, executable: "./main.mjs", capabilities }),
	);
	return dir;
}

/**
 * A protocol-v1 extension written by hand, without the kit: it answers the handshake, registers `commands`,
 * and on a command invocation calls `onCommand(name, args, id)` (a function body in the child) which writes
 * whatever raw lines it likes with `raw(text)` and answers with `answer(id, value)`. A request it sends with
 * `ask(line)` resolves with the host's response result.
 */
export function rawProcessSource(
	commands: string[],
	onCommand: string,
	capabilities: string[] = ["commands", "session_actions"],
): string {
	return `
import { createInterface } from "node:readline";
const raw = (text) => process.stdout.write(text + "\\n");
const send = (frame) => raw(JSON.stringify(frame));
const answer = (id, value) => send({ type: "response", id, result: { status: "success", value: value ?? null } });
const waiting = new Map();
let seq = 0;
const ask = (line) => new Promise((resolve) => { const id = "x" + ++seq; waiting.set(id, resolve); raw(line(id)); });
const onCommand = async (name, args, id) => { ${onCommand} };
createInterface({ input: process.stdin }).on("line", (line) => {
	const f = JSON.parse(line);
	if (f.type === "hello") {
		send({ type: "hello", protocolVersion: 1, manifest: { id: process.env.PI_EXTENSION_ID, name: "raw", version: "1.0.0", capabilities: ${JSON.stringify(capabilities)} } });
	} else if (f.type === "request" && f.request.kind === "load") {
		for (const name of ${JSON.stringify(commands)}) send({ type: "register", registration: { kind: "command", command: { name } } });
		answer(f.id);
	} else if (f.type === "request" && f.request.kind === "initialize") {
		answer(f.id);
	} else if (f.type === "request" && f.request.kind === "invoke") {
		const inv = f.request.invocation;
		onCommand(inv.name, inv.arguments, f.id);
	} else if (f.type === "response" && waiting.has(f.id)) {
		waiting.get(f.id)(f.result);
	} else if (f.type === "shutdown") {
		process.exit(0);
	}
});
`;
}

/** JSON text nesting `depth` arrays: `[[…]]`. */
export const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

/** Every uncaught exception and unhandled rejection of this test process, from now on. */
export function escapes(): { list: string[]; [Symbol.dispose](): void } {
	const list: string[] = [];
	const onError = (error: unknown) => list.push(`uncaught: ${(error as Error)?.stack ?? error}`);
	const onRejection = (reason: unknown) => list.push(`unhandled rejection: ${(reason as Error)?.stack ?? reason}`);
	process.on("uncaughtException", onError);
	process.on("unhandledRejection", onRejection);
	return {
		list,
		[Symbol.dispose]: () => {
			process.off("uncaughtException", onError);
			process.off("unhandledRejection", onRejection);
		},
	};
}

/**
 * A scripted RPC client: sends each command of a script in turn over the child's stdin (pi's JSONL wire,
 * `docs/rpc.md` of the pi package), waits until the command is answered and the agent is idle again, answers
 * extension dialogs the same way every time, and closes stdin at the end (pi's RPC mode exits on EOF).
 *
 * "Idle" is: the command's `response` arrived, every `agent_start` has its `agent_end`, no dialog is
 * open, and the program has been quiet for QUIET_MS. A step waits at most STEP_LIMIT_MS, then the next one
 * is sent anyway (the transcript shows what happened).
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";

export type RpcCommand = { type: string; [field: string]: unknown };

export interface RpcScript {
	commands: RpcCommand[];
	/** How dialogs are answered; the default below when absent. */
	answer?: (request: UiRequest) => Record<string, unknown> | undefined;
}

export interface UiRequest {
	type: "extension_ui_request";
	id: string;
	method: string;
	options?: string[];
	prefill?: string;
	[field: string]: unknown;
}

const QUIET_MS = 400;
const STEP_LIMIT_MS = 20_000;

/** select: the first option; confirm: yes; input: "parity input"; editor: its prefill + " (edited)". */
export function defaultAnswer(request: UiRequest): Record<string, unknown> | undefined {
	switch (request.method) {
		case "select":
			return request.options?.[0] === undefined ? { cancelled: true } : { value: request.options[0] };
		case "confirm":
			return { confirmed: true };
		case "input":
			return { value: "parity input" };
		case "editor":
			return { value: `${request.prefill ?? ""} (edited)` };
		default:
			return undefined; // fire-and-forget methods (notify, setStatus, …) take no answer
	}
}

export async function driveRpc(
	child: ChildProcessWithoutNullStreams,
	script: RpcScript,
	exited: Promise<number | null>,
): Promise<void> {
	let buffer = "";
	let lastOutput = Date.now();
	let running = 0;
	let openDialogs = 0;
	const answered = new Set<string>();
	let gone = false;
	void exited.then(() => {
		gone = true;
	});
	const answer = script.answer ?? defaultAnswer;
	const send = (frame: Record<string, unknown>) => {
		if (!gone && child.stdin.writable) child.stdin.write(`${JSON.stringify(frame)}\n`);
	};
	child.stdin.on("error", () => {});
	child.stdout.on("data", (chunk: string) => {
		lastOutput = Date.now();
		buffer += chunk;
		let newline = buffer.indexOf("\n");
		while (newline >= 0) {
			const line = buffer.slice(0, newline);
			buffer = buffer.slice(newline + 1);
			newline = buffer.indexOf("\n");
			let frame: Record<string, unknown>;
			try {
				frame = JSON.parse(line) as Record<string, unknown>;
			} catch {
				continue;
			}
			if (frame.type === "agent_start") running++;
			if (frame.type === "agent_end") running = Math.max(0, running - 1);
			if (frame.type === "response" && typeof frame.id === "string") answered.add(frame.id);
			if (frame.type === "extension_ui_request") {
				const reply = answer(frame as UiRequest);
				if (reply) {
					openDialogs++;
					// Answered after a beat, as a client would, so the dialog is really open in between.
					setTimeout(() => {
						openDialogs--;
						send({ type: "extension_ui_response", id: frame.id, ...reply });
					}, 20);
				}
			}
		}
	});
	child.stderr.on("data", () => {
		lastOutput = Date.now();
	});
	let index = 0;
	for (const command of script.commands) {
		index++;
		const id = `step-${index}`;
		send({ id, ...command });
		const started = Date.now();
		while (!gone && Date.now() - started < STEP_LIMIT_MS) {
			await new Promise((resolve) => setTimeout(resolve, 50));
			const idle = answered.has(id) && running === 0 && openDialogs === 0;
			if (idle && Date.now() - lastOutput >= QUIET_MS) break;
		}
		if (gone) return;
	}
	child.stdin.end();
}

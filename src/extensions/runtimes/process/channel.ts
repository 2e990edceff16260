/**
 * Process extensions: the child's stdio as a protocol channel.
 *
 * The child gets a cleared environment (only what the spec declares, plus the
 * PI_EXTENSION_* variables, which nothing may override) and its own process
 * group, so terminating it takes its descendants too.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { DEFAULT_MAX_FRAME_BYTES, encodeFrameText, FrameDecoder, type FrameError } from "../../protocol/codec.js";
import { PROTOCOL_VERSION } from "../../protocol/frames.js";
import type { Channel, ChannelEvents } from "../../host/channel.js";

/** rpi keeps this much of a child's stderr for error messages. */
export const STDERR_TAIL_BYTES = 16 * 1024;

export const RESERVED_ENVIRONMENT = [
	"PI_EXTENSION_PROTOCOL_VERSION",
	"PI_EXTENSION_ID",
	"PI_EXTENSION_ENTRY",
	"PI_EXTENSION_CAPABILITIES",
	"PI_EXTENSION_UI_CAPABILITIES",
	"PI_EXTENSION_MAX_FRAME_BYTES",
] as const;

export interface ProcessLaunch {
	id: string;
	executable: string;
	arguments: readonly string[];
	/** The package directory (rpi runs the child there). */
	cwd: string;
	/** Declared environment entries; nothing else of the parent's environment is passed. */
	environment?: Readonly<Record<string, string>>;
	packageId?: string;
	maxFrameBytes?: number;
}

export function childEnvironment(launch: ProcessLaunch): Record<string, string> {
	const declared = launch.environment ?? {};
	for (const [name, value] of Object.entries(declared)) {
		if ((RESERVED_ENVIRONMENT as readonly string[]).includes(name)) {
			throw new Error(`extension ${launch.id} cannot override reserved environment variable ${name}`);
		}
		if (name === "" || name.includes("=") || name.includes("\0") || value.includes("\0")) {
			throw new Error(`extension ${launch.id} has an invalid environment entry ${JSON.stringify(name)}`);
		}
	}
	return {
		...declared,
		PI_EXTENSION_PROTOCOL_VERSION: String(PROTOCOL_VERSION),
		PI_EXTENSION_ID: launch.id,
		...(launch.packageId ? { PI_EXTENSION_PACKAGE_ID: launch.packageId } : {}),
	};
}

/**
 * Process groups still running. Children live in their own groups, so they would
 * outlive pier if it exited without shutting them down; this is the last word.
 */
const liveGroups = new Set<number>();
process.once("exit", () => {
	for (const pgid of liveGroups) {
		try {
			process.kill(-pgid, "SIGKILL");
		} catch {
			// already gone
		}
	}
});

class StderrTail {
	private chunks: Buffer[] = [];
	private bytes = 0;

	push(chunk: Buffer): void {
		this.chunks.push(chunk);
		this.bytes += chunk.length;
		while (this.bytes - this.chunks[0]!.length >= STDERR_TAIL_BYTES) this.bytes -= this.chunks.shift()!.length;
	}

	text(): string {
		const all = Buffer.concat(this.chunks);
		return all.subarray(Math.max(0, all.length - STDERR_TAIL_BYTES)).toString("utf8");
	}
}

export class ProcessChannel implements Channel {
	readonly exited: Promise<void>;
	private readonly child: ChildProcess;
	private readonly stderr = new StderrTail();
	private readonly decoder: FrameDecoder;
	private readonly maxFrameBytes: number;
	private events: ChannelEvents | undefined;
	private backlog: unknown[] = [];
	private outbox: string | undefined;
	private closedReason: string | undefined;
	private alive = true;

	constructor(launch: ProcessLaunch) {
		this.maxFrameBytes = launch.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
		this.decoder = new FrameDecoder(this.maxFrameBytes);
		this.child = spawn(launch.executable, [...launch.arguments], {
			cwd: launch.cwd,
			env: childEnvironment(launch),
			detached: true, // its own process group: SIGKILL to -pid reaches every descendant
			stdio: ["pipe", "pipe", "pipe"],
		});
		const pid = this.child.pid;
		if (pid !== undefined) liveGroups.add(pid);
		this.exited = new Promise((resolve) => {
			this.child.once("close", (code, signal) => {
				this.alive = false;
				this.close(`extension process exited (${signal ? `signal ${signal}` : `code ${code}`})`);
				resolve();
			});
		});
		this.child.once("error", (error) => {
			this.alive = false;
			this.close(`extension process could not start: ${error.message}`);
		});
		this.child.stdin!.on("error", () => {}); // EPIPE after the child died: reported by "close"
		this.child.stderr!.on("data", (chunk: Buffer) => this.stderr.push(chunk));
		this.child.stdout!.on("data", (chunk: Buffer) => this.receive(chunk));
		this.child.stdout!.on("end", () => {
			try {
				this.decoder.end();
			} catch (error) {
				this.fail(error as FrameError);
			}
		});
	}

	get pid(): number | undefined {
		return this.child.pid;
	}

	start(events: ChannelEvents): void {
		this.events = events;
		for (const value of this.backlog.splice(0)) events.frame(value);
		if (this.closedReason !== undefined) events.closed(this.closedReason);
	}

	send(frame: Parameters<Channel["send"]>[0]): void {
		if (this.closedReason !== undefined || !this.child.stdin!.writable) {
			throw new Error(`extension channel is closed${this.closedReason ? ` (${this.closedReason})` : ""}`);
		}
		const line = encodeFrameText(frame, this.maxFrameBytes);
		// A lone frame leaves at once; frames sent after it in the same turn of the event loop
		// leave together in one write, so pipelined calls do not cost a syscall each.
		if (this.outbox !== undefined) {
			this.outbox += line;
			return;
		}
		this.child.stdin!.write(line);
		this.outbox = "";
		setImmediate(this.flush);
	}

	private readonly flush = (): void => {
		const lines = this.outbox!;
		this.outbox = undefined;
		if (lines.length > 0 && this.closedReason === undefined) this.child.stdin!.write(lines);
	};

	async terminate(): Promise<void> {
		if (this.child.pid === undefined) return;
		// The group outlives its leader: descendants must die even when the child already exited.
		try {
			process.kill(-this.child.pid, "SIGKILL");
		} catch {
			// no member of the group is left
		}
		if (this.alive) this.child.kill("SIGKILL");
		await this.exited;
		liveGroups.delete(this.child.pid);
	}

	diagnostics(): string {
		return this.stderr.text();
	}

	private receive(chunk: Buffer): void {
		let frames: unknown[];
		try {
			frames = this.decoder.push(chunk);
		} catch (error) {
			this.fail(error as FrameError);
			return;
		}
		for (const frame of frames) {
			if (this.closedReason !== undefined) return;
			if (this.events) this.events.frame(frame);
			else this.backlog.push(frame);
		}
	}

	private fail(error: FrameError): void {
		this.close(`protocol violation: ${error.message}`);
		void this.terminate();
	}

	private close(reason: string): void {
		if (this.closedReason !== undefined) return;
		this.closedReason = reason;
		this.events?.closed(reason);
	}
}

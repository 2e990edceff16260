/**
 * Process extensions: the child's stdio as a protocol channel.
 *
 * The child gets a cleared environment (only what the spec declares, plus the
 * PI_EXTENSION_* variables, which nothing may override), its own process
 * group, and where the machine allows it its own cgroup (cgroup.ts), so
 * terminating it takes its descendants too — in the cgroup even those that left
 * the group with setsid().
 *
 * Ending never waits on the pipes: a descendant may hold them open long after
 * the child is gone, so once the child has exited (or been killed) the pipes are
 * destroyed after a short drain.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { adopt, ExtensionCgroup, wrapSpawn } from "./cgroup.js";
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
	/** Where the extension comes from (its manifest path), for error messages. */
	source?: string;
	/**
	 * The native plugin host's layout: the protocol on fds 3 (to the child) and 4 (from it), the child's fds 0
	 * and 1 pier's own stdin/stdout (for a plugin that owns stdio; the host hides them from any other).
	 */
	protocolFds?: boolean;
}

/** After the child exits, how long its pipes may still deliver what it wrote before they are destroyed. */
const EXIT_DRAIN_MS = 200;
/** How long terminate() waits for a SIGKILLed child to be reaped before it lets go of it anyway. */
const KILL_WAIT_MS = 2_000;

const SPAWN_HINTS: Record<string, string> = {
	E2BIG:
		"its arguments and environment are too large for the system; shorten the manifest's arguments or the granted environment",
	ENOENT:
		"the executable or its interpreter (the #! line) does not exist; check the manifest's executable and its first line",
	EACCES: "the executable is not executable by this user; chmod +x it, or check the directory permissions",
	ENOEXEC: "the executable is not a program this system can run; give it a #! line or point executable at a binary",
	EMFILE: "pier has too many open files; close sessions or raise the limit (ulimit -n)",
	EAGAIN: "the system refused another process; close sessions or raise the process limit",
};

/**
 * A spawn failure as the user can act on it: what failed and what to do; `named` adds which extension and
 * manifest (a load failure adds those itself, a spawn that throws does not reach it).
 */
export function spawnFailure(launch: ProcessLaunch, code: string, named: boolean): string {
	const hint = SPAWN_HINTS[code];
	const who = named ? `extension ${launch.id}${launch.source ? ` (${launch.source})` : ""} ` : "";
	return `${who}could not start ${launch.executable}: ${code}${hint ? `: ${hint}` : ""}`;
}

/** The shell's exit codes when the exec of a wrapped launch fails (POSIX: 127 not found, 126 not runnable). */
const WRAPPED_EXEC_FAILURE: Record<number, string> = { 127: "ENOENT", 126: "EACCES" };

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
	ExtensionCgroup.killAllSync();
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
	/** Where frames go to the child and come from it: its stdin/stdout, or fds 3/4. */
	private readonly toChild: NodeJS.WritableStream & { writable: boolean; destroy(): void };
	private readonly fromChild: NodeJS.ReadableStream & { destroy(): void };
	private readonly stderr = new StderrTail();
	private readonly decoder: FrameDecoder;
	private readonly maxFrameBytes: number;
	private events: ChannelEvents | undefined;
	private backlog: unknown[] = [];
	private outbox: string | undefined;
	private closedReason: string | undefined;
	private alive = true;
	private readonly cgroup: ExtensionCgroup | undefined;
	/** Whether the child wrote anything on stdout (it started, whatever it did next). */
	private spoke = false;

	constructor(launch: ProcessLaunch) {
		this.maxFrameBytes = launch.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
		this.decoder = new FrameDecoder(this.maxFrameBytes);
		const env = childEnvironment(launch);
		this.cgroup = ExtensionCgroup.create(launch.id);
		const wrapped = this.cgroup ? wrapSpawn(this.cgroup, launch.executable, launch.arguments) : undefined;
		try {
			this.child = spawn(wrapped?.executable ?? launch.executable, wrapped?.arguments ?? [...launch.arguments], {
				cwd: launch.cwd,
				env,
				detached: true, // its own process group: SIGKILL to -pid reaches every descendant that stays in it
				stdio: launch.protocolFds ? ["inherit", "inherit", "pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe"],
			});
		} catch (error) {
			// Node throws some spawn errors (E2BIG, EINVAL) instead of emitting them.
			void this.cgroup?.remove();
			const { code, message } = error as NodeJS.ErrnoException;
			throw new Error(spawnFailure(launch, code ?? message, true));
		}
		type Streams = [ProcessChannel["toChild"], ProcessChannel["fromChild"]];
		[this.toChild, this.fromChild] = (
			launch.protocolFds ? [this.child.stdio[3], this.child.stdio[4]] : [this.child.stdin, this.child.stdout]
		) as Streams;
		const pid = this.child.pid;
		if (pid !== undefined) liveGroups.add(pid);
		if (pid !== undefined && this.cgroup && !wrapped) adopt(this.cgroup, pid);
		this.exited = new Promise((resolve) => {
			this.child.once("close", (code, signal) => {
				this.alive = false;
				// Wrapped, a failed exec is the shell's exit code, not a spawn error: say what it means.
				const execFailure = wrapped && !this.spoke && code !== null ? WRAPPED_EXEC_FAILURE[code] : undefined;
				if (execFailure) this.close(spawnFailure(launch, execFailure, false));
				this.close(`extension process exited (${signal ? `signal ${signal}` : `code ${code}`})`);
				resolve();
			});
		});
		// "close" waits for the pipes too, and a descendant can hold them forever: once the child itself is
		// gone, what it wrote gets a moment to arrive, then its descendants are killed and the pipes let go.
		this.child.once("exit", () => {
			this.alive = false;
			setTimeout(() => this.release(), EXIT_DRAIN_MS).unref();
		});
		this.child.once("error", (error) => {
			this.alive = false;
			this.close(spawnFailure(launch, (error as NodeJS.ErrnoException).code ?? error.message, false));
			this.release();
		});
		this.toChild.on("error", () => {}); // EPIPE after the child died: reported by "close"
		this.child.stderr!.on("data", (chunk: Buffer) => this.stderr.push(chunk));
		this.fromChild.on("data", (chunk: Buffer) => this.onData(chunk));
		this.fromChild.on("end", () => {
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

	private onData(chunk: Buffer): void {
		if (!this.spoke && this.cgroup && this.child.pid !== undefined) this.cgroup.verify(this.child.pid);
		this.spoke = true;
		this.receive(chunk);
	}

	start(events: ChannelEvents): void {
		this.events = events;
		for (const value of this.backlog.splice(0)) events.frame(value);
		if (this.closedReason !== undefined) events.closed(this.closedReason);
	}

	send(frame: Parameters<Channel["send"]>[0]): void {
		if (this.closedReason !== undefined || !this.toChild.writable) {
			throw new Error(`extension channel is closed${this.closedReason ? ` (${this.closedReason})` : ""}`);
		}
		const line = encodeFrameText(frame, this.maxFrameBytes);
		// A lone frame leaves at once; frames sent after it in the same turn of the event loop
		// leave together in one write, so pipelined calls do not cost a syscall each.
		if (this.outbox !== undefined) {
			this.outbox += line;
		} else {
			this.toChild.write(line);
			this.outbox = "";
			setImmediate(this.flush);
		}
	}

	private readonly flush = (): void => {
		const lines = this.outbox;
		if (lines === undefined) return;
		this.outbox = undefined;
		if (lines.length > 0 && this.closedReason === undefined) this.toChild.write(lines);
	};

	async terminate(): Promise<void> {
		if (this.child.pid === undefined) {
			await this.cgroup?.remove();
			return;
		}
		this.killDescendants();
		if (this.alive) this.child.kill("SIGKILL");
		let timer: NodeJS.Timeout | undefined;
		await Promise.race([
			this.exited,
			// A child the kernel does not reap (stuck in uninterruptible sleep) is let go, not waited for.
			new Promise<void>((done) => {
				timer = setTimeout(done, KILL_WAIT_MS);
			}),
		]);
		clearTimeout(timer);
		this.release();
		liveGroups.delete(this.child.pid);
		await this.cgroup?.remove();
	}

	/** The process group outlives its leader, and the cgroup holds those that left the group. */
	private killDescendants(): void {
		try {
			process.kill(-this.child.pid!, "SIGKILL");
		} catch {
			// no member of the group is left
		}
		this.cgroup?.kill();
	}

	/** Kills what is left of the extension and destroys its pipes, so "close" fires whoever holds them. */
	private release(): void {
		if (this.child.pid !== undefined) this.killDescendants();
		this.child.stdin?.destroy();
		this.child.stdout?.destroy();
		this.toChild?.destroy();
		this.fromChild?.destroy();
		this.child.stderr?.destroy();
	}

	/** The extension's cgroup directory, while it has one (tests and diagnostics). */
	get cgroupDir(): string | undefined {
		return this.cgroup?.dir;
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

/**
 * pier's side of a native plugin: a ProcessChannel to the plugin host (protocol on fds 3/4), plus the two
 * frames only the plugin host sends and only this channel reads: `native_declare` (the plugin's `declare`:
 * load priority, platforms, ownsStdio; sent before the hello) and `native_finish` (StdioLifecycle finish).
 * A crash is described for what it is: which signal, what it usually means in a plugin, and the plugin
 * host's last stderr lines.
 */
import type { Channel, ChannelEvents } from "../../host/channel.js";
import type { HostFrame } from "../../protocol/frames.js";
import { ProcessChannel, type ProcessLaunch } from "../process/channel.js";
import { claimStdio, finishStdio, releaseStdio } from "./stdio-owner.js";

/** What `declare` said, as the plugin host reports it. */
export interface NativeDeclaration {
	priority: number;
	platforms: string[];
	ownsStdio: boolean;
}

/** How many of the plugin host's last stderr lines a crash message carries. */
export const STDERR_LINES = 20;

const SIGNAL_MEANING: Record<string, string> = {
	SIGSEGV: "segmentation fault in the plugin",
	SIGBUS: "bus error in the plugin",
	SIGABRT: "the plugin aborted (abort(), or a Rust panic with panic=abort)",
	SIGILL: "illegal instruction in the plugin",
	SIGFPE: "arithmetic fault in the plugin",
	SIGKILL: "killed",
};

/** The close reason as the user reads it; `running` names the invocations that were in flight. */
export function describeClose(reason: string, library: string, running: readonly string[] = []): string {
	const signal = /signal (SIG[A-Z]+)/.exec(reason)?.[1];
	if (!signal) return `native plugin host for ${library}: ${reason}`;
	const meaning = SIGNAL_MEANING[signal];
	const during = running.length > 0 ? ` while running ${running.slice(0, 3).join(", ")}` : "";
	return `native plugin ${library} crashed the plugin host (${signal}${meaning ? `: ${meaning}` : ""})${during}`;
}

/** What an invoke request is, in a crash message. */
function invocationName(invocation: {
	kind?: string;
	name?: string;
	callId?: string;
	event?: { name?: string };
}): string {
	if (invocation.kind === "tool") return `tool ${invocation.name} (call ${invocation.callId})`;
	if (invocation.kind === "command") return `command /${invocation.name}`;
	if (invocation.kind === "event") return `the ${invocation.event?.name} hook`;
	return `a ${invocation.kind} invocation`;
}

export function lastLines(text: string, count: number): string {
	const lines = text.trimEnd().split("\n");
	return lines.slice(-count).join("\n");
}

export interface NativeLaunch extends Omit<ProcessLaunch, "executable" | "arguments" | "protocolFds"> {
	library: string;
	capabilities: readonly string[];
	uiCapabilities: readonly string[];
	/** The package manifest's version, for the hello (a plugin has no version of its own). */
	version?: string | undefined;
}

export class NativeChannel implements Channel {
	private readonly inner: ProcessChannel;
	declaration: NativeDeclaration | undefined;
	private owner = false;
	/** Invocations sent and not yet answered, by request id: a crash says which call took the process down. */
	private readonly running = new Map<string, HostFrame>();

	constructor(
		private readonly launch: NativeLaunch,
		hostScript: string,
	) {
		this.inner = new ProcessChannel({
			...launch,
			executable: process.execPath,
			arguments: [
				hostScript,
				"--id",
				launch.id,
				"--library",
				launch.library,
				"--capabilities",
				launch.capabilities.join(","),
				"--ui-capabilities",
				launch.uiCapabilities.join(","),
				...(launch.maxFrameBytes ? ["--max-frame-bytes", String(launch.maxFrameBytes)] : []),
				...(launch.version ? ["--version", launch.version] : []),
			],
			protocolFds: true,
		});
	}

	get exited(): Promise<void> {
		return this.inner.exited;
	}

	get pid(): number | undefined {
		return this.inner.pid;
	}

	/** The plugin's `declare.priority` (100 until it reported one). */
	get loadPriority(): number {
		return this.declaration?.priority ?? 100;
	}

	start(events: ChannelEvents): void {
		this.inner.start({
			frame: (value) => {
				const frame = value as { type?: unknown };
				if (frame?.type === "native_declare")
					return this.declared(value as NativeDeclaration & { type: string }, events);
				if (frame?.type === "native_finish") {
					const code = Number((value as { exitCode?: unknown }).exitCode ?? 0);
					if (this.owner) finishStdio(this.launch.id, Number.isInteger(code) ? code : 0);
					return;
				}
				if (frame?.type === "response") this.running.delete((value as { id: string }).id);
				events.frame(value);
			},
			closed: (reason) => {
				this.releaseOwnership();
				const running = [...this.running.values()].map((f) =>
					invocationName((f as { request: { invocation: Parameters<typeof invocationName>[0] } }).request.invocation),
				);
				events.closed(describeClose(reason, this.launch.library, running));
			},
		});
	}

	private declared(frame: NativeDeclaration, events: ChannelEvents): void {
		this.declaration = { priority: frame.priority, platforms: frame.platforms, ownsStdio: frame.ownsStdio === true };
		if (!this.declaration.ownsStdio) return;
		const holder = claimStdio(this.launch.id, this.launch.library);
		if (holder) {
			events.closed(
				`native plugin ${this.launch.library} declares ownsStdio, but ${holder} already owns pier's stdin/stdout; only one plugin may own stdio (remove one of them)`,
			);
			void this.inner.terminate();
			return;
		}
		this.owner = true;
	}

	private releaseOwnership(): void {
		if (this.owner) releaseStdio(this.launch.id);
		this.owner = false;
	}

	send(frame: HostFrame): void {
		this.inner.send(frame);
		if (frame.type === "request" && frame.request.kind === "invoke") this.running.set(frame.id, frame);
		else if (frame.type === "cancel") this.running.delete(frame.id);
	}

	async terminate(): Promise<void> {
		this.releaseOwnership();
		await this.inner.terminate();
	}

	diagnostics(): string {
		return lastLines(this.inner.diagnostics(), STDERR_LINES);
	}
}

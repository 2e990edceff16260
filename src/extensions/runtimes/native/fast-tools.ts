/**
 * Tool calls answered by the plugin host itself, ahead of the kit: a one-line chunk that is a tool
 * invocation is executed and polled once here, and when that poll is Done (no partial on the way) the
 * response is written at once. The kit's generic dispatch (an invocation state, a context object, an
 * AsyncLocalStorage scope, a promise and a microtask per call, a deferred flush) is most of a native
 * call's cost once the plugin answers in one poll.
 *
 * Everything else is the kit's, unchanged: any other frame, a chunk of several lines, and a call whose
 * first poll is pending, failed, sent a partial or made a response too large for a frame. Such a call is
 * handed over already started: the line goes to the kit, whose `execute` (wire.ts → tools.ts `runTool`)
 * takes the started call instead of executing again, replays its partials and answers as it always does.
 *
 * Until a kit invocation has shown the session's cwd (the hello's, which `__rpi.cwd` carries), every call
 * goes to the kit.
 */
import { isUtf8 } from "node:buffer";
import type { ContextSnapshot, ExtensionFrame } from "../../protocol/frames.js";
import type { NativeTool } from "./registry.js";
import { holdFrees, releaseHeld } from "./tool-ffi.js";
import {
	closeTool,
	type Done,
	handOver,
	paramsWithHost,
	pollAgain,
	resultOf,
	type Started,
	startTool,
	type ToolResultJson,
	takeBack,
} from "./tools.js";

/** The one substring every tool invocation frame holds; a line without it is not looked at further. */
const TOOL_MARK = Buffer.from('"kind":"tool"');
const CR = 0x0d;
const LF = 0x0a;

type Flag = boolean | string | undefined;

interface ToolFrame {
	type?: unknown;
	id?: unknown;
	request?: {
		kind?: unknown;
		invocation?: { kind?: unknown; name?: unknown; callId?: unknown; arguments?: unknown };
		context?: ContextSnapshot;
	};
}

export interface FastToolsOptions {
	tools: readonly NativeTool[];
	maxFrameBytes: number;
	/** Writes frames to pier (whole lines). */
	write: (text: string) => void;
	/** Hands a chunk to the kit, now. */
	kit: (chunk: Buffer) => void;
}

export class FastTools {
	private readonly tools = new Map<string, NativeTool>();
	private cwd: string | undefined;
	/** The context of the call whose first poll is running here (a runtime_action in it reads this). */
	private current: ContextSnapshot | undefined;
	private running = false;
	/** The latest context of a call answered here, while it is newer than any the kit has seen. */
	private latest: ContextSnapshot | undefined;

	constructor(private readonly options: FastToolsOptions) {
		for (const tool of options.tools) this.tools.set(tool.name, tool);
	}

	/** A kit invocation's context: its cwd, and whether the kit now holds the latest snapshot. */
	seen(cwd: string, snapshot: ContextSnapshot | undefined): void {
		this.cwd = cwd;
		if (snapshot !== undefined) this.latest = undefined;
	}

	/**
	 * The snapshot a `pi.contextSnapshot()` would give had the kit seen every invocation: the running call's
	 * here, else the newest one answered here, else the kit's (`kitSnapshot`).
	 */
	snapshot(kitSnapshot: () => ContextSnapshot | undefined): ContextSnapshot | undefined {
		if (this.running) return this.current;
		return this.latest ?? kitSnapshot();
	}

	/** Frames (objects, or JSON text) as lines; undefined when one is over the frame limit (the kit then answers). */
	private lines(frames: readonly unknown[]): string | undefined {
		let text = "";
		for (const frame of frames) {
			const json = typeof frame === "string" ? frame : JSON.stringify(frame);
			// A UTF-16 code unit is at most 3 UTF-8 bytes: most frames need no byte count.
			const max = this.options.maxFrameBytes;
			if (json.length * 3 > max && Buffer.byteLength(json) > max) return undefined;
			text += `${json}\n`;
		}
		return text;
	}

	/** `pi.getFlag` the same way: from that snapshot's flag values (a native flag has no default of its own). */
	flag(name: string, kitFlag: (name: string) => Flag): Flag {
		if (!this.running && this.latest === undefined) return kitFlag(name);
		const values = (this.running ? this.current : this.latest)?.flagValues;
		return values && Object.hasOwn(values, name) ? (values[name] as Flag) : undefined;
	}

	/** A chunk ending in LF from pier: true when it was dealt with here (answered, or given to the kit). */
	take(chunk: Buffer): boolean {
		if (this.cwd === undefined || chunk.indexOf(LF) !== chunk.length - 1) return false;
		if (chunk.indexOf(TOOL_MARK) === -1 || (chunk.length > 1 && chunk[chunk.length - 2] === CR)) return false;
		// Text that is not UTF-8 (or not JSON) is the kit's to refuse.
		if (!isUtf8(chunk)) return false;
		let frame: ToolFrame;
		try {
			frame = JSON.parse(chunk.toString("utf8", 0, chunk.length - 1));
		} catch {
			return false; // the kit says what is wrong with it
		}
		const request = frame?.request;
		const invocation = request?.invocation;
		if (frame?.type !== "request" || typeof frame.id !== "string" || request?.kind !== "invoke") return false;
		if (invocation?.kind !== "tool" || typeof invocation.name !== "string" || typeof invocation.callId !== "string")
			return false;
		const tool = this.tools.get(invocation.name);
		if (!tool) return false;
		const context = request.context;
		const partials: ToolResultJson[] = [];
		this.current = context;
		this.running = true;
		// The plugin's strings are copied out at once but freed after the answer is written.
		holdFrees(true);
		let started: Started;
		try {
			const params = paramsWithHost(invocation.arguments ?? {}, { cwd: this.cwd, sessionId: context?.sessionId });
			started = startTool(tool, invocation.callId, params, (partial) => partials.push(partial));
			if (started.first.kind === "pending") pollAgain(started);
		} finally {
			this.running = false;
			this.current = undefined;
			holdFrees(false);
		}
		try {
			const lines = started.first.kind === "done" ? this.answer(frame.id, started.first, partials) : undefined;
			if (lines !== undefined) {
				if (context !== undefined) this.latest = context;
				// Answered first, destroyed after: pier reads the answer while the plugin frees the call.
				try {
					this.options.write(lines);
				} finally {
					closeTool(started);
				}
				return true;
			}
			handOver(tool, invocation.callId, started, partials);
			try {
				this.options.kit(chunk);
			} finally {
				const left = takeBack();
				if (left) closeTool(left);
			}
			return true;
		} finally {
			releaseHeld();
		}
	}

	/**
	 * The call's frames in one write: its updates, then its response, the plugin's own result text standing
	 * for the value when it can (tools.ts `verbatim`). Undefined when one is over the frame limit.
	 */
	private answer(id: string, done: Done, partials: readonly ToolResultJson[]): string | undefined {
		const frames: Array<ExtensionFrame | string> = partials.map((value) => ({ type: "update", id, value }));
		frames.push(done.text === undefined ? success(id, resultOf(done)) : successText(id, done.text));
		return this.lines(frames);
	}
}

/** A tool call's successful response frame (protocol frames.ts `ExtensionFrame`). */
const success = (id: string, value: unknown): ExtensionFrame => ({
	type: "response",
	id,
	result: { status: "success", value },
});

/**
 * The same frame's JSON around a value that is JSON text already: the text either side of the id and the
 * value, taken once from the typed frame, so the two forms cannot drift apart.
 */
const [RESPONSE_HEAD, RESPONSE_MIDDLE, RESPONSE_TAIL] = (() => {
	const json = JSON.stringify(success("\u0000", 0));
	const id = json.indexOf(JSON.stringify("\u0000"));
	const value = json.lastIndexOf(":0") + 1;
	return [json.slice(0, id), json.slice(id + JSON.stringify("\u0000").length, value), json.slice(value + 1)];
})();

function successText(id: string, valueJson: string): string {
	return `${RESPONSE_HEAD}${JSON.stringify(id)}${RESPONSE_MIDDLE}${valueJson}${RESPONSE_TAIL}`;
}

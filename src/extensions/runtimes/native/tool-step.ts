/**
 * The plugin host's C helper (kit/c/host/tool_step.c, built by tool-step-build.ts): a tool call's execute,
 * waker, first poll, result copy, free and destroy in one koffi crossing instead of six. Each crossing costs
 * koffi a fixed fee (arguments converted, a call frame, results converted back) that is most of what a tool
 * answering at its first poll spends outside the plugin.
 *
 * Optional by design: without the library (no gcc where pier was installed, `PIER_NATIVE_TOOL_STEP=off`, a
 * version it does not know) `loadToolStep` says why and every call takes tool-ffi.ts's one-call-at-a-time
 * path, which the helper mirrors step for step.
 */
import { koffi } from "./abi.js";

/** The helper's `PIER_TOOL_STEP_VERSION` this host binds; any other is refused (its functions may differ). */
export const TOOL_STEP_VERSION = 1;
/** `pier_tool_step`'s header before the payload's bytes (tool_step.c). */
export const STEP_HEADER_BYTES = 32;

/** `pier_tool_step`'s answers (tool_step.c). */
export const StepState = { NoMemory: -1, Refused: 0, Done: 1, Open: 2 } as const;

type Address = number | bigint;

export interface ToolStepHelper {
	/** The tool's functions and the host's callbacks, kept in C for the life of the process: its address. */
	bind(
		execute: Address,
		poll: Address,
		destroy: Address,
		free: Address,
		setWaker: Address,
		partial: Address,
		wake: Address,
		hostFree: Address,
	): Address;
	/** One first step (see tool_step.c): a `StepState`, with `buffer` holding the header and payload. */
	step(tool: Address, id: string | null, idLen: number, params: string, key: number): number;
	/** The helper's own buffer (its memory, read in place), which every step writes. */
	buffer: Buffer;
}

let helper: ToolStepHelper | undefined;

/** The loaded helper, if any. */
export function toolStepHelper(): ToolStepHelper | undefined {
	return helper;
}

/** Loads the helper library at `path`; undefined when it is in use, else why not (the host falls back). */
export function loadToolStep(path: string): string | undefined {
	let lib: ReturnType<typeof koffi.load>;
	try {
		lib = koffi.load(path);
	} catch (error) {
		return `could not load the tool-step helper ${path}: ${(error as Error).message}`;
	}
	const version = (lib.func("uint32_t pier_tool_step_version(void)") as () => number)();
	if (version !== TOOL_STEP_VERSION)
		return `the tool-step helper ${path} is version ${version}, this plugin host binds version ${TOOL_STEP_VERSION}`;
	const buffer = lib.func("void *pier_tool_step_buffer(void)") as () => unknown;
	const size = lib.func("size_t pier_tool_step_buffer_size(void)") as () => number;
	helper = {
		bind: lib.func(
			"uintptr_t pier_tool_bind(uintptr_t execute, uintptr_t poll, uintptr_t destroy, uintptr_t free, uintptr_t setWaker, uintptr_t partial, uintptr_t wake, uintptr_t hostFree)",
		) as ToolStepHelper["bind"],
		step: lib.func(
			"int32_t pier_tool_step(uintptr_t tool, const char *id, size_t idLen, const char *params, uintptr_t key)",
		) as ToolStepHelper["step"],
		buffer: Buffer.from(koffi.view(buffer(), Number(size()))),
	};
	return undefined;
}

/**
 * A minimal in-process host for the SDK's own tests: it builds a real 256-byte PluginApi with koffi
 * callbacks, calls `rpi_plugin_register`, records what the plugin registered, and drives tools, events and
 * string callbacks the way the ABI says (every plugin string reclaimed with the plugin's own free function).
 * It is not pier's host (src/extensions/runtimes/native is): it exists so the SDK, the examples and the
 * fixtures are tested against the ABI itself, without the rest of pier.
 */
import koffi from "koffi";

export const StbString = koffi.struct("SdkTestStbString", { ptr: "void *", len: "size_t" });
// StepResult and StablePluginEvent as flat structs with the same layout as their unions (ABI §2.2, §2.6).
export const StepResult = koffi.struct("SdkTestStepResult", { tag: "uint32_t", s: StbString });
export const StableToolSchema = koffi.struct("SdkTestSchema", {
	name: StbString,
	description: StbString,
	parameters: StbString,
});
export const StablePluginEvent = koffi.struct("SdkTestEvent", {
	tag: "uint32_t",
	a: StbString,
	b: StbString,
	c: StbString,
	isError: "uint8_t",
});

const FreeStringFn = koffi.proto("void SdkTestFree(SdkTestStbString s)");
const PartialCb = koffi.proto("void SdkTestPartial(SdkTestStbString partial, void *ud)");
const WakeCb = koffi.proto("void SdkTestWake(void *data)");
const ExecuteFn = koffi.proto("void *SdkTestExecute(SdkTestStbString id, SdkTestStbString params, void *free_params)");
const PollFn = koffi.proto("SdkTestStepResult SdkTestPoll(void *handle, void *partial_cb, void *ud)");
const HandleFn = koffi.proto("void SdkTestHandleFn(void *handle)");
const SetWakerFn = koffi.proto("void SdkTestSetWaker(void *handle, void *cb, void *data)");
const StringFn = koffi.proto("int32_t SdkTestStringFn(SdkTestStbString input, void *out, void *ud)");
const DiscoverFn = koffi.proto(
	"int32_t SdkTestDiscover(SdkTestStbString cwd, SdkTestStbString reason, void *out, void *ud)",
);
const EventFn = koffi.proto("int32_t SdkTestEventFn(SdkTestEvent event, void *ud)");

/** The host-side callback types, declared once per process (koffi type names are global). */
const HOST_PROTOS = new Map<string, koffi.IKoffiCType>(
	[
		"void SdkTestHostFree(SdkTestStbString s)",
		"int32_t SdkTestRegTool(void *schema, void *e, void *p, void *c, void *d, void *f)",
		"int32_t SdkTestRegCommand(SdkTestStbString n, SdkTestStbString d, void *h)",
		"int32_t SdkTestRegShortcut(SdkTestStbString k, SdkTestStbString d)",
		"int32_t SdkTestRegFlag(SdkTestStbString n, SdkTestStbString d)",
		"int32_t SdkTestRegProvider(SdkTestStbString i, SdkTestStbString b, SdkTestStbString s, void *f, void *fr, void *ud)",
		"int32_t SdkTestRegMsg(SdkTestStbString n, void *f, void *fr, void *ud)",
		"int32_t SdkTestRegMd(SdkTestStbString n, void *f, void *fr, void *ud)",
		"int32_t SdkTestRegEntry(SdkTestStbString n, void *f, void *fr, void *ud)",
		"int32_t SdkTestRegEvent(uint32_t tag, void *f, void *ud)",
		"int32_t SdkTestRegDiscover(void *f, void *fr, void *ud)",
		"int32_t SdkTestAction(uint32_t id, SdkTestStbString args, void *out, void *ud)",
		"int32_t SdkTestDeclare(SdkTestStbString json)",
		"int32_t SdkTestRegBefore(void *f, void *fr, void *ud)",
		"int32_t SdkTestRegWake(void *schema, void *e, void *p, void *c, void *d, void *f, void *w)",
	].map((decl) => [decl, koffi.pointer(koffi.proto(decl))]),
);

type Ptr = unknown;
interface RawString {
	ptr: Ptr;
	len: number | bigint;
}

/** Copies a plugin/host string out (null or empty ⇒ ""). */
export function readString(s: RawString): string {
	const len = Number(s.len);
	if (s.ptr === null || len === 0) return "";
	return Buffer.from(koffi.view(s.ptr, len)).toString("utf8");
}

/** A borrowed string for a call: the Buffer must stay referenced until the call returns. */
function ref(text: string): { ptr: Buffer | null; len: number } {
	const bytes = Buffer.from(text, "utf8");
	return { ptr: bytes.length ? bytes : null, len: bytes.length };
}

export interface ToolRecord {
	name: string;
	description: string;
	parameters: string;
	execute: Ptr;
	poll: Ptr;
	cancel: Ptr;
	destroy: Ptr;
	free: Ptr;
	setWaker?: Ptr;
}

export interface StringRecord {
	name: string;
	fn: Ptr;
	free?: Ptr;
	userData?: Ptr;
}

export type StepOutcome = { tag: "pending" | "done" | "err" | `unknown ${number}`; text: string };

export class FakeHost {
	readonly api = Buffer.alloc(256);
	readonly tools = new Map<string, ToolRecord>();
	readonly events = new Map<number, { fn: Ptr; userData: Ptr }[]>();
	readonly commands = new Map<string, StringRecord>();
	readonly flags: string[] = [];
	readonly shortcuts: string[] = [];
	readonly providers: (StringRecord & { baseUrl: string; style: string })[] = [];
	readonly renderers = { message: [] as StringRecord[], markdown: [] as StringRecord[], entry: [] as StringRecord[] };
	readonly discovers: StringRecord[] = [];
	readonly beforeAgentStart: StringRecord[] = [];
	readonly declarations: string[] = [];
	readonly actions: { id: number; args: string }[] = [];
	/** Answers runtime_action: [code, out JSON]. */
	answer: (id: number, args: string) => [number, string] = (id) => [
		2,
		JSON.stringify({ error: `unknown runtime action id ${id}` }),
	];
	hostFrees = 0;
	private readonly hostFree: unknown;
	private readonly keep: unknown[] = [];
	private readonly lib: koffi.IKoffiLib;

	constructor(readonly library: string) {
		this.lib = koffi.load(library);
		// Slot numbers are native-abi.md §1.3's field numbers: #0/#1 share the first 8 bytes, so #n sits at 8·(n−1).
		const slot = (field: number, value: unknown) => this.api.writeBigUInt64LE(koffi.address(value), 8 * (field - 1));
		const cb = (fn: (...args: never[]) => unknown, proto: string) => {
			const type = HOST_PROTOS.get(proto);
			if (!type) throw new Error(`fake host: undeclared callback type ${proto}`);
			const registered = koffi.register(fn as (...args: unknown[]) => unknown, type);
			this.keep.push(registered);
			return registered;
		};
		const str = (s: RawString) => readString(s);
		this.api.writeUInt32LE(4, 0);
		this.api.writeUInt32LE(256, 4);
		// Host-produced strings are koffi allocations kept alive in `owned` until the plugin frees them.
		this.hostFree = cb((s: RawString) => {
			this.hostFrees++;
			if (s.ptr !== null) this.owned.delete(koffi.address(s.ptr));
		}, "void SdkTestHostFree(SdkTestStbString s)");
		slot(2, this.hostFree);
		slot(
			3,
			cb(
				(schema: Ptr, execute: Ptr, poll: Ptr, cancel: Ptr, destroy: Ptr, free: Ptr) =>
					this.addTool(schema, { execute, poll, cancel, destroy, free }),
				"int32_t SdkTestRegTool(void *schema, void *e, void *p, void *c, void *d, void *f)",
			),
		);
		slot(
			4,
			cb((name: RawString, _desc: RawString, fn: Ptr) => {
				this.commands.set(str(name), { name: str(name), fn });
				return 0;
			}, "int32_t SdkTestRegCommand(SdkTestStbString n, SdkTestStbString d, void *h)"),
		);
		slot(
			5,
			cb((key: RawString) => {
				this.shortcuts.push(str(key));
				return 0;
			}, "int32_t SdkTestRegShortcut(SdkTestStbString k, SdkTestStbString d)"),
		);
		slot(
			6,
			cb((name: RawString) => {
				this.flags.push(str(name));
				return 0;
			}, "int32_t SdkTestRegFlag(SdkTestStbString n, SdkTestStbString d)"),
		);
		slot(
			7,
			cb((id: RawString, base: RawString, style: RawString, fn: Ptr, free: Ptr, userData: Ptr) => {
				this.providers.push({ name: str(id), baseUrl: str(base), style: str(style), fn, free, userData });
				return 0;
			}, "int32_t SdkTestRegProvider(SdkTestStbString i, SdkTestStbString b, SdkTestStbString s, void *f, void *fr, void *ud)"),
		);
		const renderer = (list: StringRecord[], proto: string) =>
			cb((name: RawString, fn: Ptr, free: Ptr, userData: Ptr) => {
				list.push({ name: str(name), fn, free, userData });
				return 0;
			}, proto);
		slot(8, renderer(this.renderers.message, "int32_t SdkTestRegMsg(SdkTestStbString n, void *f, void *fr, void *ud)"));
		slot(9, renderer(this.renderers.markdown, "int32_t SdkTestRegMd(SdkTestStbString n, void *f, void *fr, void *ud)"));
		slot(
			10,
			renderer(this.renderers.entry, "int32_t SdkTestRegEntry(SdkTestStbString n, void *f, void *fr, void *ud)"),
		);
		slot(
			11,
			cb((tag: number, fn: Ptr, userData: Ptr) => {
				const list = this.events.get(tag) ?? [];
				list.push({ fn, userData });
				this.events.set(tag, list);
				return 0;
			}, "int32_t SdkTestRegEvent(uint32_t tag, void *f, void *ud)"),
		);
		slot(
			12,
			cb((fn: Ptr, free: Ptr, userData: Ptr) => {
				this.discovers.push({ name: "discover", fn, free, userData });
				return 0;
			}, "int32_t SdkTestRegDiscover(void *f, void *fr, void *ud)"),
		);
		slot(
			13,
			cb((id: number, args: RawString, out: Ptr) => {
				const text = str(args);
				this.actions.push({ id, args: text });
				const [code, reply] = this.answer(id, text);
				if (out !== null) koffi.encode(out, StbString, this.hostString(reply));
				return code;
			}, "int32_t SdkTestAction(uint32_t id, SdkTestStbString args, void *out, void *ud)"),
		);
		slot(
			16,
			cb((json: RawString) => {
				this.declarations.push(str(json));
				return 0;
			}, "int32_t SdkTestDeclare(SdkTestStbString json)"),
		);
		slot(
			17,
			cb((fn: Ptr, free: Ptr, userData: Ptr) => {
				this.beforeAgentStart.push({ name: "before_agent_start", fn, free, userData });
				return 0;
			}, "int32_t SdkTestRegBefore(void *f, void *fr, void *ud)"),
		);
		slot(
			19,
			cb(
				(schema: Ptr, execute: Ptr, poll: Ptr, cancel: Ptr, destroy: Ptr, free: Ptr, setWaker: Ptr) =>
					this.addTool(schema, { execute, poll, cancel, destroy, free, setWaker }),
				"int32_t SdkTestRegWake(void *schema, void *e, void *p, void *c, void *d, void *f, void *w)",
			),
		);
	}

	private readonly owned = new Map<bigint, unknown>();

	/** A host-owned copy of `text` the plugin must give back through free_string. */
	hostString(text: string): { ptr: unknown; len: number } {
		const bytes = Buffer.from(text, "utf8");
		if (bytes.length === 0) return { ptr: null, len: 0 };
		const mem = koffi.alloc("uint8_t", bytes.length);
		koffi.encode(mem, "uint8_t", Array.from(bytes), bytes.length);
		this.owned.set(koffi.address(mem), mem);
		return { ptr: mem, len: bytes.length };
	}

	/** Host strings handed out and not yet freed by the plugin. */
	get outstandingHostStrings(): number {
		return this.owned.size;
	}

	private addTool(schemaPtr: Ptr, fns: Omit<ToolRecord, "name" | "description" | "parameters">): number {
		if (schemaPtr === null) return 1;
		const schema = koffi.decode(schemaPtr, StableToolSchema) as Record<
			"name" | "description" | "parameters",
			RawString
		>;
		const record: ToolRecord = {
			name: readString(schema.name),
			description: readString(schema.description),
			parameters: readString(schema.parameters),
			...fns,
		};
		// The host owns the schema strings from here: reclaim them with the tool's own deallocator.
		for (const s of [schema.name, schema.description, schema.parameters]) koffi.call(fns.free, FreeStringFn, s);
		this.tools.set(record.name, record);
		return 0;
	}

	/** Empties field #`field` of the table (an older host without that slot). */
	clearSlot(field: number): void {
		this.api.writeBigUInt64LE(0n, 8 * (field - 1));
	}

	/** Calls `rpi_plugin_register` with this table. */
	register(): number {
		const fn = this.lib.func("int32_t rpi_plugin_register(void *api)");
		return fn(this.api) as number;
	}

	/** A probe symbol of the library (`fn() -> usize`). */
	probe(symbol: string): number {
		return Number(this.lib.func(`size_t ${symbol}()`)());
	}

	private takePluginString(s: RawString, free: Ptr): string {
		const text = readString(s);
		if (s.ptr !== null) koffi.call(free, FreeStringFn, s);
		return text;
	}

	/** execute → poll until not Pending (or `maxPolls`) → destroy; partials and the outcome. */
	async runTool(
		name: string,
		params: unknown,
		options: { maxPolls?: number; cancelAfter?: number; waitMs?: number } = {},
	): Promise<{ handleNull: boolean; partials: string[]; outcome?: StepOutcome; polls: number }> {
		const tool = this.tools.get(name);
		if (!tool) throw new Error(`fake host: no tool ${name}`);
		const partials: string[] = [];
		const partialCb = koffi.register((s: RawString) => {
			partials.push(this.takePluginString(s, tool.free));
		}, koffi.pointer(PartialCb));
		let woken = 0;
		const wakeCb = koffi.register(() => {
			woken++;
		}, koffi.pointer(WakeCb));
		try {
			const handle = koffi.call(
				tool.execute,
				ExecuteFn,
				ref("call-1"),
				this.hostString(JSON.stringify(params)),
				this.hostFree,
			);
			if (handle === null) return { handleNull: true, partials, polls: 0 };
			if (tool.setWaker) koffi.call(tool.setWaker, SetWakerFn, handle, wakeCb, null);
			const maxPolls = options.maxPolls ?? 1000;
			let outcome: StepOutcome | undefined;
			let polls = 0;
			while (polls < maxPolls) {
				if (options.cancelAfter !== undefined && polls === options.cancelAfter)
					koffi.call(tool.cancel, HandleFn, handle);
				const result = koffi.call(tool.poll, PollFn, handle, partialCb, null) as { tag: number; s: RawString };
				polls++;
				const text = this.takePluginString(result.s, tool.free);
				const tag = (["pending", "done", "err"] as const)[result.tag] ?? (`unknown ${result.tag}` as const);
				if (tag !== "pending") {
					outcome = { tag, text };
					break;
				}
				// A wake-driven tool is polled again only after a wake; others after a short pause.
				const started = Date.now();
				const seen = woken;
				while (Date.now() - started < (options.waitMs ?? 5000)) {
					await new Promise((resolve) => setTimeout(resolve, tool.setWaker ? 5 : 1));
					if (!tool.setWaker || woken > seen) break;
				}
			}
			if (tool.setWaker) koffi.call(tool.setWaker, SetWakerFn, handle, null, null);
			koffi.call(tool.destroy, HandleFn, handle);
			return outcome ? { handleNull: false, partials, outcome, polls } : { handleNull: false, partials, polls };
		} finally {
			koffi.unregister(partialCb);
			koffi.unregister(wakeCb);
		}
	}

	/** Dispatches an event to every handler of `tag`; their codes. Strings are host-owned and stay so. */
	dispatch(tag: number, strings: [string?, string?, string?] = [], isError = false): number[] {
		const [a = "", b = "", c = ""] = strings;
		const event = { tag, a: ref(a), b: ref(b), c: ref(c), isError: isError ? 1 : 0 };
		return (this.events.get(tag) ?? []).map((h) => koffi.call(h.fn, EventFn, event, h.userData) as number);
	}

	/**
	 * `dispatch`, but each handler runs through koffi's async call (a libuv worker thread) while this thread
	 * stays in its event loop. Use it for a handler that may wait on a plugin thread — SessionShutdown joining
	 * a worker — because koffi runs a callback made from a non-JS thread (runtime_action, free_string) only
	 * when the event loop gets to it: during a synchronous `dispatch` that never happens, and a handler
	 * joining a worker that is inside such a call deadlocks (koffi's callbacks.md says so too).
	 */
	async dispatchAsync(tag: number, strings: [string?, string?, string?] = [], isError = false): Promise<number[]> {
		const [a = "", b = "", c = ""] = strings;
		// The Buffers behind the event strings stay referenced by `event` until every handler returned.
		const event = { tag, a: ref(a), b: ref(b), c: ref(c), isError: isError ? 1 : 0 };
		const codes: number[] = [];
		for (const h of this.events.get(tag) ?? []) {
			const fn = koffi.decode(h.fn, EventFn) as koffi.KoffiFunc<(event: unknown, userData: unknown) => number>;
			codes.push(
				await new Promise<number>((resolve, reject) =>
					fn.async(event, h.userData, (error: unknown, code: number) => (error ? reject(error) : resolve(code))),
				),
			);
		}
		return codes;
	}

	/** Calls a string callback `(input, out, user_data)`; its code and output (reclaimed with `free`). */
	callString(record: StringRecord, input: string, free?: Ptr): { code: number; out: string } {
		const out = Buffer.alloc(16);
		const code = koffi.call(record.fn, StringFn, ref(input), out, record.userData ?? null) as number;
		return { code, out: this.takeOut(out, record.free ?? free) };
	}

	/** Calls a resources-discover callback. */
	callDiscover(record: StringRecord, cwd: string, reason: string): { code: number; out: string } {
		const out = Buffer.alloc(16);
		const code = koffi.call(record.fn, DiscoverFn, ref(cwd), ref(reason), out, record.userData ?? null) as number;
		return { code, out: this.takeOut(out, record.free) };
	}

	private takeOut(out: Buffer, free: Ptr | undefined): string {
		const s = koffi.decode(out, StbString) as RawString;
		if (s.ptr === null) return "";
		if (!free) throw new Error("fake host: plugin output without a free function");
		return this.takePluginString(s, free);
	}

	/** The first free function the plugin registered (the rule pier uses for command output). */
	firstPluginFree(): Ptr {
		const first = [...this.tools.values()][0]?.free ?? this.discovers[0]?.free ?? this.providers[0]?.free;
		if (!first) throw new Error("fake host: the plugin registered no free function");
		return first;
	}
}

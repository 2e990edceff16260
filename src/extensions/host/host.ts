/**
 * The extension host: starts extensions as one generation, merges their
 * registrations (first registration wins; a collision is a visible
 * diagnostic naming both), routes invocations, and replaces a generation
 * only when a whole reload candidate succeeded.
 */
import type { Mode } from "../protocol/frames.js";
import type { MarkdownMessageType } from "../protocol/registrations.js";
import { ExtensionError } from "./errors.js";
import type { ExtensionInstance, ExtensionSpec, InvokeOptions, Phase, RuntimeHost } from "./instance.js";
import { ExtensionMetrics } from "./metrics.js";
import { OVERLAY_KEY_ACTIONS, type OverlayKeyAction, type OverlayRender, parseOverlayRender } from "./overlay-rows.js";
import type { Registrations } from "./registrations.js";
import { resolveTimeouts, type Timeouts } from "./timeouts.js";

export interface HostOptions {
	mode: Mode;
	timeouts?: Partial<Timeouts>;
	/** rpi loads at most this many extensions at once. */
	maxParallelLoads?: number;
	/** A diagnostic for the user: load failures, collisions, crashes. */
	onDiagnostic?: (diagnostic: HostDiagnostic) => void;
	/** `false` records no metrics (the bench compares the two in one run). */
	metrics?: boolean;
}

export interface HostDiagnostic {
	type: "error" | "warning";
	extensionId?: string;
	message: string;
}

export interface LoadFailure {
	id: string;
	source: string;
	message: string;
}

export interface LoadReport {
	generation: number;
	loaded: string[];
	failures: LoadFailure[];
	collisions: string[];
	/** For a reload: whether the candidate replaced the previous generation. */
	committed: boolean;
}

type ItemKind =
	| "command"
	| "tool"
	| "flag"
	| "shortcut"
	| "message renderer"
	| "entry renderer"
	| "provider"
	| "provider metadata"
	| "overlay";

export interface Registered<T> {
	instance: ExtensionInstance;
	descriptor: T;
}

type Descriptor<K extends keyof Registrations> = Registrations[K] extends Array<infer T> ? T : never;

export interface Registry {
	commands: Map<string, Registered<Descriptor<"commands">>>;
	tools: Map<string, Registered<Descriptor<"tools">>>;
	flags: Map<string, Registered<Descriptor<"flags">>>;
	shortcuts: Map<string, Registered<Descriptor<"shortcuts">>>;
	messageRenderers: Map<string, Registered<string>>;
	entryRenderers: Map<string, Registered<string>>;
	/** Every extension with a markdown transformer, in load order, with the surfaces it registered for. */
	markdownTransformers: Array<{ instance: ExtensionInstance; messageTypes: ReadonlySet<MarkdownMessageType> }>;
	providers: Map<string, Registered<Descriptor<"providers">>>;
	providerMetadata: Map<string, Registered<Descriptor<"providerMetadata">>>;
	overlays: Map<string, Registered<Descriptor<"overlays">>>;
	/** Every extension that hooks an event, in load order. */
	hooks: Map<string, ExtensionInstance[]>;
}

function buildRegistry(instances: readonly ExtensionInstance[]): { registry: Registry; collisions: string[] } {
	const registry: Registry = {
		commands: new Map(),
		tools: new Map(),
		flags: new Map(),
		shortcuts: new Map(),
		messageRenderers: new Map(),
		entryRenderers: new Map(),
		markdownTransformers: [],
		providers: new Map(),
		providerMetadata: new Map(),
		overlays: new Map(),
		hooks: new Map(),
	};
	const collisions: string[] = [];
	const add = <T>(
		map: Map<string, Registered<T>>,
		kind: ItemKind,
		key: string,
		instance: ExtensionInstance,
		descriptor: T,
	) => {
		const first = map.get(key);
		if (first) {
			collisions.push(
				`${kind} "${key}" of extension ${instance.id} (${instance.spec.source}) collides with extension ${first.instance.id} (${first.instance.spec.source}); the first registration wins`,
			);
			return;
		}
		map.set(key, { instance, descriptor });
	};
	for (const instance of instances) {
		const r = instance.registrations!;
		for (const d of r.commands) add(registry.commands, "command", d.name, instance, d);
		for (const d of r.tools) add(registry.tools, "tool", d.name, instance, d);
		for (const d of r.flags) add(registry.flags, "flag", d.name, instance, d);
		for (const d of r.shortcuts) add(registry.shortcuts, "shortcut", d.key, instance, d);
		for (const d of r.messageRenderers) add(registry.messageRenderers, "message renderer", d, instance, d);
		for (const d of r.entryRenderers) add(registry.entryRenderers, "entry renderer", d, instance, d);
		if (r.markdownTransformer)
			registry.markdownTransformers.push({ instance, messageTypes: new Set(r.markdownTransformer) });
		for (const d of r.providers) add(registry.providers, "provider", d.id, instance, d);
		for (const d of r.providerMetadata) add(registry.providerMetadata, "provider metadata", d.id, instance, d);
		for (const d of r.overlays) add(registry.overlays, "overlay", d.id, instance, d);
		for (const hook of r.hooks) {
			const list = registry.hooks.get(hook) ?? [];
			list.push(instance);
			registry.hooks.set(hook, list);
		}
	}
	return { registry, collisions };
}

/**
 * One id, one extension: grants, diagnostics and `permission_denied` all go by id, so a second extension
 * claiming an id already loaded would borrow the first one's name (and, before grants were bound to
 * directories, its grants). The first keeps it; the second does not start. The same manifest given twice
 * (`pier serve`'s examples and an installed copy of one) is simply loaded once.
 */
function uniqueIds(specs: readonly ExtensionSpec[]): { unique: ExtensionSpec[]; duplicates: LoadFailure[] } {
	const first = new Map<string, ExtensionSpec>();
	const duplicates: LoadFailure[] = [];
	for (const spec of specs) {
		const earlier = first.get(spec.id);
		if (!earlier) first.set(spec.id, spec);
		else if (earlier.source !== spec.source)
			duplicates.push({
				id: spec.id,
				source: spec.source,
				message: `extension id "${spec.id}" of ${spec.source} is already used by ${earlier.source}; two extensions in one session cannot share an id, so the second is not loaded (rename one, or remove it)`,
			});
	}
	return { unique: [...first.values()], duplicates };
}

/**
 * Extensions whose runtime declares a load priority (native plugins) are ordered among themselves, smaller
 * first, ties keeping their order; every other extension keeps its place. Registration order decides
 * collisions and hook order, so this is what `declare.priority` means.
 */
function byLoadPriority(instances: ExtensionInstance[]): ExtensionInstance[] {
	const slots = instances.flatMap((instance, index) => (instance.channel.loadPriority === undefined ? [] : [index]));
	const ordered = slots
		.map((index) => instances[index]!)
		.sort((a, b) => a.channel.loadPriority! - b.channel.loadPriority!);
	const result = [...instances];
	slots.forEach((index, i) => {
		result[index] = ordered[i]!;
	});
	return result;
}

export interface HookOutcome {
	instance: ExtensionInstance;
	result: { ok: true; value: unknown } | { ok: false; error: ExtensionError | Error };
}

export class ExtensionHost {
	private generationCounter = 0;
	private current: { generation: number; instances: ExtensionInstance[]; registry: Registry } = {
		generation: 0,
		instances: [],
		registry: buildRegistry([]).registry,
	};
	private runtimeHost: RuntimeHost | undefined;
	private attachedRuntimeHost: RuntimeHost | undefined;
	private readonly runtimeHostDecorators: ((inner: RuntimeHost) => RuntimeHost)[] = [];
	/** By extension id, across generations: a /reload restarts an extension, it does not forget it. */
	private readonly metricsById = new Map<string, ExtensionMetrics>();
	readonly timeouts: Timeouts;

	constructor(readonly options: HostOptions) {
		this.timeouts = resolveTimeouts(options.timeouts);
	}

	get generation(): number {
		return this.current.generation;
	}

	get instances(): readonly ExtensionInstance[] {
		return this.current.instances;
	}

	get registry(): Registry {
		return this.current.registry;
	}

	/** What the host recorded for an extension id (any generation), if it ever started. */
	metricsOf(id: string): ExtensionMetrics | undefined {
		return this.metricsById.get(id);
	}

	private metricsFor(id: string): ExtensionMetrics | undefined {
		if (this.options.metrics === false) return undefined;
		let metrics = this.metricsById.get(id);
		if (!metrics) {
			metrics = new ExtensionMetrics();
			this.metricsById.set(id, metrics);
		}
		return metrics;
	}

	/** The session side of UI requests and actions; may be attached after loading. */
	setRuntimeHost(host: RuntimeHost | undefined): void {
		this.attachedRuntimeHost = host;
		this.runtimeHost = host && this.runtimeHostDecorators.reduce((inner, decorate) => decorate(inner), host);
	}

	/**
	 * Wraps every session side attached now or later (a /reload attaches a new one). An embedder sees runtime
	 * requests on their way to the session this way: the chamber notes which extension appends an app entry.
	 */
	decorateRuntimeHost(decorate: (inner: RuntimeHost) => RuntimeHost): void {
		this.runtimeHostDecorators.push(decorate);
		this.setRuntimeHost(this.attachedRuntimeHost);
	}

	/** First load: the extensions that start become the generation; the others are reported. */
	load(specs: readonly ExtensionSpec[]): Promise<LoadReport> {
		return this.commit(specs, false);
	}

	/** Reload: all or nothing. If any extension of the candidate fails, the previous generation stays active. */
	reload(specs: readonly ExtensionSpec[]): Promise<LoadReport> {
		return this.commit(specs, true);
	}

	private async commit(specs: readonly ExtensionSpec[], allOrNothing: boolean): Promise<LoadReport> {
		const generation = ++this.generationCounter;
		const { unique, duplicates } = uniqueIds(specs);
		const started = await this.startAll(unique, generation);
		const failures = [
			...duplicates,
			...started.filter((s) => "failure" in s).map((s) => (s as { failure: LoadFailure }).failure),
		];
		const instances = byLoadPriority(
			started.filter((s) => "instance" in s).map((s) => (s as { instance: ExtensionInstance }).instance),
		);
		for (const failure of failures) this.diagnose({ type: "error", extensionId: failure.id, message: failure.message });
		if (allOrNothing && failures.length > 0) {
			await Promise.all(instances.map((i) => i.shutdown("reload candidate rejected")));
			this.diagnose({
				type: "error",
				message: `extension reload rejected (${failures.length} failed); generation ${this.current.generation} stays active`,
			});
			return { generation: this.current.generation, loaded: [], failures, collisions: [], committed: false };
		}
		const { registry, collisions } = buildRegistry(instances);
		for (const message of collisions) this.diagnose({ type: "warning", message });
		const previous = this.current.instances;
		const replaced = new Set(previous.map((i) => i.id));
		for (const { id, options } of instances) if (replaced.has(id) && options.metrics) options.metrics.restarts++;
		this.current = { generation, instances, registry };
		for (const instance of instances) instance.activate();
		await Promise.all(previous.map((i) => i.shutdown("extension generation replaced")));
		return { generation, loaded: instances.map((i) => i.id), failures, collisions, committed: true };
	}

	private async startAll(
		specs: readonly ExtensionSpec[],
		generation: number,
	): Promise<Array<{ instance: ExtensionInstance } | { failure: LoadFailure }>> {
		const results: Array<{ instance: ExtensionInstance } | { failure: LoadFailure }> = new Array(specs.length);
		if (specs.length === 0) return results;
		// The instance machinery (its state machine, codec, frame schemas, requests) loads with the first extension:
		// a session without protocol extensions never reads it (bench startup.run).
		const { ExtensionInstance: Instance } = await import("./instance.js");
		let next = 0;
		const worker = async () => {
			while (next < specs.length) {
				const index = next++;
				const spec = specs[index]!;
				try {
					const instance = await Instance.start(spec, {
						generation,
						mode: this.options.mode,
						timeouts: this.timeouts,
						runtimeHost: () => this.runtimeHost,
						onStateChange: (i, phase, reason) => this.onStateChange(i, phase, reason),
						metrics: this.metricsFor(spec.id),
					});
					results[index] = { instance };
				} catch (error) {
					results[index] = {
						failure: {
							id: spec.id,
							source: spec.source,
							message: error instanceof Error ? error.message : String(error),
						},
					};
				}
			}
		};
		const parallel = Math.max(1, Math.min(this.options.maxParallelLoads ?? 4, specs.length));
		await Promise.all(Array.from({ length: parallel }, worker));
		return results;
	}

	private onStateChange(instance: ExtensionInstance, phase: Phase, reason: string): void {
		if (phase === "crashed" && this.current.instances.includes(instance)) {
			instance.options.metrics?.crashed(reason);
			this.diagnose({
				type: "error",
				extensionId: instance.id,
				message: `extension ${instance.id} crashed: ${reason}`,
			});
		}
	}

	/** A problem for the user that the session side found (a denied hook answer), on the host's one path. */
	report(diagnostic: HostDiagnostic): void {
		this.diagnose(diagnostic);
	}

	private diagnose(diagnostic: HostDiagnostic): void {
		this.options.onDiagnostic?.(diagnostic);
	}

	// ── invocations ─────────────────────────────────────────────────────────

	invokeTool(name: string, callId: string, args: unknown, options: InvokeOptions = {}): Promise<unknown> {
		const entry = this.current.registry.tools.get(name);
		if (!entry) return Promise.reject(new ExtensionError("not_active", `no extension tool "${name}"`));
		return entry.instance.invoke({ kind: "tool", name, callId, arguments: args ?? {} }, options);
	}

	invokeCommand(name: string, args: string, options: InvokeOptions = {}): Promise<unknown> {
		const entry = this.current.registry.commands.get(name);
		if (!entry) return Promise.reject(new ExtensionError("not_active", `no extension command "${name}"`));
		return entry.instance.invoke({ kind: "command", name, arguments: args }, options);
	}

	invokeShortcut(key: string, options: InvokeOptions = {}): Promise<unknown> {
		const entry = this.current.registry.shortcuts.get(key);
		if (!entry) return Promise.reject(new ExtensionError("not_active", `no extension shortcut "${key}"`));
		return entry.instance.invoke({ kind: "shortcut", key }, options);
	}

	/** Runs the owning extension's `render` for overlay `id`; the rows come back sanitized (overlay-rows.ts). */
	async invokeOverlayRender(id: string, options: InvokeOptions = {}): Promise<OverlayRender> {
		const entry = this.overlayEntry(id);
		const value = await entry.instance.invoke({ kind: "overlay_render", id }, options);
		return parseOverlayRender(value, entry.instance.id, id);
	}

	/** The overlay's editor submitted `text`, or a key the host does not consume meant `action`. */
	async invokeOverlayEvent(
		id: string,
		event: { kind: "submit"; text: string } | { kind: "key"; action: OverlayKeyAction },
		options: InvokeOptions = {},
	): Promise<unknown> {
		if (event.kind === "key" && !OVERLAY_KEY_ACTIONS.includes(event.action))
			throw new Error(`unknown overlay key action "${event.action}"`);
		return await this.overlayEntry(id).instance.invoke({ kind: "overlay_event", id, event }, options);
	}

	private overlayEntry(id: string) {
		const entry = this.current.registry.overlays.get(id);
		if (!entry) {
			const known = [...this.current.registry.overlays.keys()].join(", ") || "none";
			throw new ExtensionError("not_active", `unknown extension overlay "${id}" (registered: ${known})`);
		}
		return entry;
	}

	/** Delivers a hook to every extension that registered it, in load order; failures are outcomes, not throws. */
	async emit(name: string, data: unknown, options: InvokeOptions = {}): Promise<HookOutcome[]> {
		const outcomes: HookOutcome[] = [];
		for (const instance of this.current.registry.hooks.get(name) ?? []) {
			if (!instance.isLive) continue;
			try {
				const value = await instance.invoke(
					{ kind: "event", event: { name, data: data ?? null } },
					{ timeoutMs: this.timeouts.hookMs, ...options },
				);
				outcomes.push({ instance, result: { ok: true, value } });
			} catch (error) {
				outcomes.push({ instance, result: { ok: false, error: error as Error } });
			}
		}
		return outcomes;
	}

	hasHook(name: string): boolean {
		return (this.current.registry.hooks.get(name)?.length ?? 0) > 0;
	}

	async shutdown(reason: string): Promise<void> {
		const instances = this.current.instances;
		this.current = { generation: this.current.generation, instances: [], registry: buildRegistry([]).registry };
		await Promise.all(instances.map((i) => i.shutdown(reason)));
	}
}

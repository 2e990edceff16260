/**
 * The bridge: a protocol ExtensionHost's registrations become one pi
 * ExtensionFactory, so process (and later QuickJS and native) extensions join a
 * real pi session next to in-process ones. Tools, commands, flags, shortcuts
 * and hooks go in; UI requests and session actions come back out through the
 * session's own ExtensionContext.
 */
import type { ExtensionAPI, ExtensionContext, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import type { ExtensionHost } from "../host/host.js";
import { PI_HOOKS } from "../host/hooks.js";
import type { ExtensionInstance } from "../host/instance.js";
import type { ToolDescriptor } from "../protocol/frames.js";
import { performAction } from "./actions.js";
import { contextSnapshot } from "./context.js";
import { eventForExtensions } from "./event-data.js";
import { bridgeProviderHeaders } from "./headers.js";
import { auditGrantUse } from "../../audit/grant-audit.js";
import { type Denial, type GrantLookup, gateFor, isSandboxed, type ToolOwnerLookup } from "./grant-gate.js";
import { type Gate, toPiHookResult } from "./hook-results.js";
import { registerEntryRenderers } from "./entry-renderers.js";
import { registerMarkdownTransformers } from "./markdown-transformers.js";
import { registerMessageRenderers } from "./message-renderers.js";
import { OverlayController } from "./overlays.js";
import { registerProviderMetadata } from "./provider-metadata.js";
import { registerProviders } from "./providers.js";
import { PartialUpdates } from "./partial-updates.js";
import { shownChars, toToolResult } from "./tool-results.js";
import { answerUi } from "./ui.js";

export interface BridgeOptions {
	/** The user's grants, looked up when an answer needs one; without it nothing is granted. */
	grants?: GrantLookup;
	/** The audit trail each grant used or refused is recorded in (the agent dir's); without it, none is. */
	auditFile?: string;
	/** `--model provider/id`: a protocol provider without a model list offers the id asked for. */
	requestedModel?: { provider: string; id: string };
}

const NOTHING_GRANTED: GrantLookup = (instance) => ({ grants: new Set(), target: instance.id });

/** The definition the bridge handed pi for each tool name: pi runs it only if it is still pi's winner. */
type Bridged = Map<
	string,
	{ parameters: unknown; instance: ExtensionInstance; capability?: ToolDescriptor["capability"] }
>;

/**
 * Who pi runs under `name`, from pi's own tool table at call time. The bridge's definition is recognised by
 * identity (the parameters object it registered), never by a name or path an extension could also claim.
 */
function piToolOwner(pi: ExtensionAPI, bridged: Bridged): ToolOwnerLookup {
	return (name) => {
		const info = pi.getAllTools().find((t) => t.name === name);
		if (!info) return { kind: "missing" };
		const source = info.sourceInfo;
		// pi marks its own tools `builtin:<name>`; a built-in extension's tools carry that extension's path.
		if (source?.source === "builtin" && source.path === `builtin:${name}`) return { kind: "builtin" };
		const ours = bridged.get(name);
		if (ours && typeof ours.parameters === "object" && ours.parameters !== null && info.parameters === ours.parameters)
			return { kind: "protocol", instance: ours.instance, ...(ours.capability ? { capability: ours.capability } : {}) };
		return { kind: "other", source: source?.path ?? "an unknown extension" };
	};
}

export function protocolBridge(host: ExtensionHost, options: BridgeOptions): ExtensionFactory {
	return (pi: ExtensionAPI) => {
		let live: ExtensionContext | undefined;
		const flagNames = [...host.registry.flags.keys()];
		const context = (ctx: ExtensionContext) => {
			live = ctx;
			return contextSnapshot(pi, ctx, flagNames);
		};
		const session = () => {
			if (!live) throw new Error("the session has not started yet");
			return live;
		};

		const liveSnapshot = () => {
			try {
				return live ? contextSnapshot(pi, live, flagNames) : undefined;
			} catch {
				return undefined; // a replaced session's context refuses use: the call goes on without one
			}
		};
		const overlays = new OverlayController(host, liveSnapshot);

		host.setRuntimeHost({
			get hasUi() {
				return live?.hasUI ?? false;
			},
			ui: (request, { signal, instance }) =>
				answerUi(session().ui, request, signal, (overlay) =>
					overlays.answer(overlay, instance, session().ui, session().hasUI),
				),
			action: (action, { signal }) => performAction(pi, session(), action, signal),
		});
		pi.on("session_start", (_event, ctx) => {
			live = ctx;
		});

		const bridged: Bridged = new Map();
		for (const { descriptor, instance } of host.registry.tools.values()) {
			registerTool(pi, host, descriptor, context);
			bridged.set(descriptor.name, {
				parameters: descriptor.parameters,
				instance,
				...(descriptor.capability ? { capability: descriptor.capability } : {}),
			});
		}
		const ownerOf = piToolOwner(pi, bridged);
		const grants = options.grants ?? NOTHING_GRANTED;
		// Each sandboxed extension's identity (directory and code digest) is taken now, as it was loaded.
		for (const instance of host.instances) if (isSandboxed(instance)) grants(instance);

		for (const [name, { descriptor }] of host.registry.commands) {
			pi.registerCommand(name, {
				...(descriptor.description ? { description: descriptor.description } : {}),
				handler: async (args, ctx) => {
					try {
						await host.invokeCommand(name, args, { context: context(ctx) });
					} catch (error) {
						ctx.ui.notify(`/${name} failed: ${(error as Error).message}`, "error");
					}
				},
			});
		}

		registerProviders(pi, host, {
			...(options.requestedModel ? { requestedModel: options.requestedModel } : {}),
			snapshot: liveSnapshot,
		});
		const repaint = () => {
			try {
				// pi's terminal renders after any status change; clearing a key never set shows nothing else.
				if (live?.hasUI) live.ui.setStatus("pier.message-renderer", undefined);
			} catch {
				// a replaced session's context refuses use: its terminal is gone anyway
			}
		};
		registerMessageRenderers(pi, host, liveSnapshot, repaint);
		registerEntryRenderers(pi, host, liveSnapshot, repaint);
		registerMarkdownTransformers(pi, host, liveSnapshot, () => live, repaint);
		registerProviderMetadata(pi, host);
		bridgeProviderHeaders(pi, host, (instance, ctx) =>
			answerGate(host, instance, "before_provider_headers", ownerOf, grants, () => context(ctx), options.auditFile),
		);

		if (host.registry.overlays.size > 0) registerOverlayCommand(pi, overlays, (ctx) => (live = ctx));

		for (const [name, { descriptor }] of host.registry.flags) {
			const description = descriptor.description ? { description: descriptor.description } : {};
			// The registry checked that a default has the flag's type.
			if (descriptor.type === "boolean") {
				const fallback = typeof descriptor.default === "boolean" ? { default: descriptor.default } : {};
				pi.registerFlag(name, { type: "boolean", ...description, ...fallback });
			} else {
				const fallback = typeof descriptor.default === "string" ? { default: descriptor.default } : {};
				pi.registerFlag(name, { type: "string", ...description, ...fallback });
			}
		}

		for (const [key, { descriptor }] of host.registry.shortcuts) {
			pi.registerShortcut(key as Parameters<ExtensionAPI["registerShortcut"]>[0], {
				...(descriptor.description ? { description: descriptor.description } : {}),
				handler: async (ctx) => {
					await host.invokeShortcut(key, { context: context(ctx) });
				},
			});
		}

		for (const [hook, instances] of host.registry.hooks) {
			if (!PI_HOOKS.has(hook)) continue; // accepted, but pi has no producer for it yet
			if (hook === "before_provider_headers") continue; // bridgeProviderHeaders: names only, changed in place
			for (const instance of instances)
				registerHook(pi, host, instance, hook, context, grants, ownerOf, options.auditFile);
		}
	};
}

/** rpi's `/overlay <id>`; with one overlay the id may be left out. */
function registerOverlayCommand(
	pi: ExtensionAPI,
	overlays: OverlayController,
	seen: (ctx: ExtensionContext) => void,
): void {
	pi.registerCommand("overlay", {
		description: "Open an extension overlay: /overlay <id>",
		// A complete id offers nothing, so Enter runs the command instead of accepting the same text.
		getArgumentCompletions: (prefix) =>
			overlays.ids.filter((id) => id.startsWith(prefix) && id !== prefix).map((id) => ({ value: id, label: id })),
		handler: async (args, ctx) => {
			seen(ctx);
			const ids = overlays.ids;
			const id = args.trim() || (ids.length === 1 ? ids[0]! : "");
			try {
				if (!id) throw new Error(`say which overlay: /overlay <id> (registered: ${ids.join(", ")})`);
				await overlays.openByUser(id, ctx);
			} catch (error) {
				ctx.ui.notify(`/overlay ${id}: ${(error as Error).message}`, "error");
			}
		},
	});
	pi.on("session_shutdown", () => overlays.close());
}

function registerTool(
	pi: ExtensionAPI,
	host: ExtensionHost,
	tool: ToolDescriptor,
	context: (ctx: ExtensionContext) => ReturnType<typeof contextSnapshot>,
): void {
	pi.registerTool({
		name: tool.name,
		label: tool.label,
		description: tool.description,
		// A JSON Schema object; pi validates arguments against it as it does TypeBox schemas.
		parameters: tool.parameters as never,
		...(tool.promptGuidelines?.length ? { promptGuidelines: tool.promptGuidelines } : {}),
		...(tool.executionMode && tool.executionMode !== "default" ? { executionMode: tool.executionMode } : {}),
		execute: async (toolCallId, params, signal, onUpdate, ctx) => {
			const instance = host.registry.tools.get(tool.name)?.instance;
			const owner = instance?.id ?? "(unknown)";
			const partials = onUpdate
				? new PartialUpdates<unknown>((value, final) => {
						try {
							const result = toToolResult(value, owner, tool.name);
							if (instance && !instance.admitToolUpdate(shownChars(result), final)) return false;
							onUpdate(result);
						} catch (error) {
							// A bad progress value is dropped, not a crash of the extension: the final result decides.
							host.report({ type: "warning", extensionId: owner, message: (error as Error).message });
						}
						return true;
					})
				: undefined;
			let value: unknown;
			try {
				value = await host.invokeTool(tool.name, toolCallId, params, {
					context: context(ctx),
					...(signal ? { signal } : {}),
					...(partials ? { onUpdate: (update: unknown) => partials.push(update) } : {}),
				});
			} finally {
				partials?.close();
			}
			return toToolResult(value, owner, tool.name);
		},
	});
}

function registerHook(
	pi: ExtensionAPI,
	host: ExtensionHost,
	instance: ExtensionInstance,
	hook: string,
	context: (ctx: ExtensionContext) => ReturnType<typeof contextSnapshot>,
	grants: GrantLookup,
	ownerOf: ToolOwnerLookup,
	auditFile: string | undefined,
): void {
	const on = pi.on.bind(pi) as unknown as (
		event: string,
		handler: (event: Record<string, unknown>, ctx: ExtensionContext) => unknown,
	) => void;
	on(hook, async (event, ctx) => {
		if (!instance.isLive) return undefined;
		let answer: unknown;
		try {
			answer = await instance.invoke(
				{ kind: "event", event: { name: hook, data: eventForExtensions(hook, event) } },
				{ timeoutMs: host.timeouts.hookMs, context: context(ctx) },
			);
		} catch (error) {
			// The session is ending and took the extension with it: there is no one left to tell.
			if ((error as { code?: string }).code === "shutdown") return undefined;
			throw error;
		}
		return toPiHookResult(
			hook,
			answer,
			event,
			answerGate(host, instance, hook, ownerOf, grants, () => context(ctx), auditFile),
		);
	});
}

/** The gate for one answer of `instance` to `hook`: the user hears of a denial, and so does the extension. */
function answerGate(
	host: ExtensionHost,
	instance: ExtensionInstance,
	hook: string,
	ownerOf: ToolOwnerLookup,
	grants: GrantLookup,
	context: () => ReturnType<typeof contextSnapshot>,
	auditFile: string | undefined,
): Gate {
	const session = () => {
		try {
			return context().sessionId;
		} catch {
			return undefined; // a replaced session's context refuses use: the decision is recorded without it
		}
	};
	return gateFor(
		ownerOf,
		instance,
		hook,
		grants,
		(denial: Denial) => {
			host.report({ type: "error", extensionId: instance.id, message: denial.message });
			tellDenied(host, instance, denial, context());
		},
		auditFile === undefined
			? undefined
			: (use, allowed) => auditGrantUse(auditFile, instance.id, session(), use, allowed),
	);
}

/** The extension hears of its denial through its `permission_denied` hook, if it has one. */
function tellDenied(
	host: ExtensionHost,
	instance: ExtensionInstance,
	denial: Denial,
	context: ReturnType<typeof contextSnapshot>,
): void {
	if (!instance.isLive || !host.registry.hooks.get("permission_denied")?.includes(instance)) return;
	void instance
		.invoke(
			{ kind: "event", event: { name: "permission_denied", data: { ...denial } } },
			{ timeoutMs: host.timeouts.hookMs, context },
		)
		.catch(() => {}); // advisory
}

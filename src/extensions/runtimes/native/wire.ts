/**
 * A loaded plugin's registrations as the kit's: tools, commands, shortcuts, flags and one `pi.on` per pier
 * hook any of its handlers needs (events.ts), resources_discover and before_agent_start folded into those
 * hooks' answers; renderers and markdown transformers as render invocations (renderers.ts). OAuth providers have
 * no surface: they are listed on stderr.
 */
import type * as Kit from "../../../../kit/node/index.mjs";
import { dispatchHook, hooksOf } from "./events.js";
import { discoverResources, runCommand, SystemPromptTransform } from "./handlers.js";
import type { LoadedPlugin } from "./loader.js";
import { registerProviders } from "./providers.js";
import { registerRenderers } from "./renderers.js";
import { runTool } from "./tools.js";

export interface WireOptions {
	id: string;
	capabilities: readonly string[];
	uiCapabilities: readonly string[];
	/** Every invocation's context, as it arrives (the plugin host reads the mode from it). */
	onContext: (ctx: Kit.ExtensionContext) => void;
	log: (line: string) => void;
}

/** The platform names rpi recognises, for this machine. */
const PLATFORM: Record<string, string> = { linux: "linux", darwin: "macos", win32: "windows", android: "android" };

function requireCapability(options: WireOptions, capability: string, what: string): void {
	if (!options.capabilities.includes(capability)) {
		throw new Error(
			`the plugin registers ${what}, but pi-extension.json of ${options.id} does not declare the "${capability}" capability; add it to "capabilities"`,
		);
	}
}

export function wirePlugin(pi: Kit.ExtensionAPI, plugin: LoadedPlugin, options: WireOptions): void {
	const { registry } = plugin;
	const { log } = options;
	const seen = (ctx: Kit.ExtensionContext) => {
		options.onContext(ctx);
		return ctx;
	};
	for (const problem of registry.problems) log(`registration: ${problem}`);

	for (const tool of registry.tools) {
		requireCapability(options, "tools", `tool "${tool.name}"`);
		pi.registerTool({
			name: tool.name,
			description: tool.description || tool.name,
			parameters: tool.parameters,
			// Declared with two parameters so the kit makes no AbortSignal per call: the signal is read from ctx
			// only when a step is pending (an immediate tool never needs one).
			execute: (
				callId: string,
				params: unknown,
				...rest: [unknown, (p: Kit.AgentToolResult) => void, Kit.ExtensionContext]
			) => {
				const [, onUpdate, ctx] = rest;
				seen(ctx);
				return runTool(tool, {
					callId,
					params,
					host: { cwd: ctx.cwd, sessionId: ctx.sessionId },
					signal: () => ctx.signal,
					onUpdate: onUpdate as (partial: unknown) => void,
				}) as Kit.AgentToolResult | Promise<Kit.AgentToolResult>;
			},
		});
	}
	for (const command of registry.commands) {
		requireCapability(options, "commands", `command "/${command.name}"`);
		pi.registerCommand(command.name, {
			description: command.description,
			handler: (args, ctx) => {
				// Seen before the plugin runs: its runtime actions read the mode (a dialog needs an interactive one).
				seen(ctx);
				return runCommand(command, args, registry, {
					select: (title, items) => ctx.ui.select(title, items),
					editor: (title, prefill) => ctx.ui.editor(title, prefill),
					input: (title, placeholder) => ctx.ui.input(title, placeholder),
					notify: (text) => void ctx.ui.notify(text).catch(() => {}),
				});
			},
		});
	}
	for (const shortcut of registry.shortcuts) {
		requireCapability(options, "commands", `shortcut "${shortcut.key}"`);
		// The ABI gives a shortcut no handler of its own: pier lists it (and a press does nothing).
		pi.registerShortcut(shortcut.key, {
			description: shortcut.description,
			handler: (ctx) => {
				seen(ctx);
				return null;
			},
		});
	}
	for (const flag of registry.flags) {
		requireCapability(options, "commands", `flag "--${flag.name}"`);
		pi.registerFlag(flag.name, { type: "boolean", description: flag.description });
	}
	registerProviders(pi, registry, { ...options, seen });
	registerRenderers(pi, registry, { ...options, seen });
	const unsurfaced = registry.oauth.map(() => "an OAuth provider");
	if (unsurfaced.length > 0) log(`registered, not applied by pier (no surface yet): ${unsurfaced.join(", ")}`);

	const platforms = registry.declaration.platforms;
	const here = PLATFORM[process.platform] ?? process.platform;
	if (platforms.length > 0 && !platforms.includes("all") && !platforms.includes(here)) {
		log(
			`PlatformSkip: the plugin declares platforms [${platforms.join(", ")}], this is ${here}: its event handlers are skipped`,
		);
		return;
	}
	const hooks = new Set(hooksOf(registry.events));
	if (registry.discover.length > 0) hooks.add("resources_discover");
	const transform =
		registry.beforeAgentStart.length > 0 ? new SystemPromptTransform(registry.beforeAgentStart, log) : undefined;
	if (transform) hooks.add("before_agent_start");
	if (hooks.size > 0) requireCapability(options, "event_hooks", `handlers for ${[...hooks].join(", ")}`);
	for (const hook of hooks) {
		pi.on(hook as "agent_start", (event, ctx) => {
			seen(ctx);
			const { type: _type, ...data } = event;
			if (hook === "before_agent_start") {
				const images = Array.isArray(data.images) ? data.images.length : 0;
				const broadcast = { prompt: data.prompt, imageCount: images, sessionId: ctx.sessionId, host: "pier" };
				const answer = dispatchHook(hook, broadcast, registry.events, { plugin: options.id, mode: ctx.mode, log });
				const systemPrompt = transform?.apply({
					prompt: String(data.prompt ?? ""),
					imageCount: images,
					...(ctx.sessionId !== undefined ? { sessionId: ctx.sessionId } : {}),
					systemPrompt: String(data.systemPrompt ?? ""),
				});
				return systemPrompt === undefined ? answer : { ...((answer as object) ?? {}), systemPrompt };
			}
			const answer = dispatchHook(hook, data, registry.events, { plugin: options.id, mode: ctx.mode, log });
			if (hook === "resources_discover" && registry.discover.length > 0) {
				const cwd = typeof data.cwd === "string" ? data.cwd : ctx.cwd;
				const reason = typeof data.reason === "string" ? data.reason : "startup";
				const found = discoverResources(registry.discover, cwd, reason, log);
				const nonEmpty = Object.entries(found).filter(([, paths]) => paths.length > 0);
				return nonEmpty.length > 0 ? Object.fromEntries(nonEmpty) : answer;
			}
			return answer;
		});
	}
}

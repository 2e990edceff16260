/**
 * Load-phase registrations: each checked against rpi's rules and the
 * extension's declared and granted capabilities, duplicates within one
 * extension refused. (Collisions *across* extensions are the registry's.)
 */
import { identifierProblem, textProblem } from "../manifest.js";
import type { Capability, PermissionSet } from "../protocol/capabilities.js";
import type { MarkdownMessageType } from "../protocol/registrations.js";
import {
	type CommandDescriptor,
	REGISTRATION_CAPABILITY,
	type Registration,
	type ToolDescriptor,
} from "../protocol/frames.js";
import { HOOK_NAMES } from "./hooks.js";
import { CapabilityCheck, type PermissionSubject } from "./permissions.js";

/** rpi refuses these by name: they were once hook names, but nothing produces them (the UI owns overlays). */
const OVERLAY_LIFECYCLE: ReadonlySet<string> = new Set(["overlay_open", "overlay_close"]);

export class RegistrationError extends Error {
	override name = "RegistrationError";
}

export interface Registrations {
	commands: CommandDescriptor[];
	tools: ToolDescriptor[];
	hooks: string[];
	messageRenderers: string[];
	/** pier addition: custom entry types the extension draws (`render_entry`). */
	entryRenderers: string[];
	/** pier addition: the surfaces of its markdown transformer (at most one, as in pi). */
	markdownTransformer?: MarkdownMessageType[];
	providerMetadata: Extract<Registration, { kind: "provider_metadata" }>["provider"][];
	providers: Extract<Registration, { kind: "provider" }>["provider"][];
	shortcuts: Extract<Registration, { kind: "shortcut" }>["shortcut"][];
	flags: Extract<Registration, { kind: "flag" }>["flag"][];
	overlays: Extract<Registration, { kind: "overlay" }>["overlay"][];
}

export function emptyRegistrations(): Registrations {
	return {
		commands: [],
		tools: [],
		hooks: [],
		messageRenderers: [],
		entryRenderers: [],
		providerMetadata: [],
		providers: [],
		shortcuts: [],
		flags: [],
		overlays: [],
	};
}

function check(problem: string | undefined, field: string): void {
	if (problem) throw new RegistrationError(`${field} ${problem}`);
}

function eventNameProblem(name: string): string | undefined {
	const text = textProblem(name, 128);
	if (text) return text;
	if (!/^[A-Za-z0-9_:.-]+$/.test(name)) return `"${name}" contains unsupported characters`;
	if (!HOOK_NAMES.has(name)) return `"${name}" is not a known hook name`;
	return undefined;
}

export class RegistrationBuilder {
	readonly registrations = emptyRegistrations();
	private readonly seen = new Map<string, Set<string>>();

	private readonly check: CapabilityCheck;

	/** `declared`: what the extension's hello declares; `subject`: what its launch spec declares and grants. */
	constructor(declared: ReadonlySet<Capability>, granted: PermissionSet, subject?: PermissionSubject) {
		this.check = new CapabilityCheck(subject ?? { source: "pi-extension.json", granted }, {
			capabilities: [...declared],
		});
	}

	register(registration: Registration): void {
		const capability = REGISTRATION_CAPABILITY[registration.kind];
		const denied = this.check.capability(capability);
		if (denied) {
			throw new RegistrationError(
				`registered ${registration.kind} without the "${capability}" capability (${denied.message})`,
			);
		}
		const r = this.registrations;
		switch (registration.kind) {
			case "command": {
				const { name, description } = registration.command;
				if (name.startsWith("/")) throw new RegistrationError("command names must not include the leading slash");
				check(identifierProblem(name), "command name");
				if (description !== undefined) check(textProblem(description, 4096), "command description");
				this.unique("command", name);
				r.commands.push(registration.command);
				return;
			}
			case "tool": {
				const tool = registration.tool;
				check(identifierProblem(tool.name), "tool name");
				check(textProblem(tool.label, 256), "tool label");
				check(textProblem(tool.description, 16 * 1024), "tool description");
				for (const guideline of tool.promptGuidelines ?? [])
					check(textProblem(guideline, 16 * 1024), "tool prompt guideline");
				if (tool.parameters === null || typeof tool.parameters !== "object" || Array.isArray(tool.parameters)) {
					throw new RegistrationError(`tool "${tool.name}" parameters must be a JSON Schema object`);
				}
				this.unique("tool", tool.name);
				r.tools.push(tool);
				return;
			}
			case "event_hook":
				if (OVERLAY_LIFECYCLE.has(registration.hook.event)) {
					throw new RegistrationError(
						`unsupported extension event ${registration.hook.event}: overlays are opened and closed by the host, which fires no such event (open one with the overlay_open UI request; hear its keys through overlay_event)`,
					);
				}
				check(eventNameProblem(registration.hook.event), "event name");
				this.unique("event hook", registration.hook.event);
				r.hooks.push(registration.hook.event);
				return;
			case "message_renderer":
				check(identifierProblem(registration.renderer.messageType), "message renderer type");
				this.unique("message renderer", registration.renderer.messageType);
				r.messageRenderers.push(registration.renderer.messageType);
				return;
			case "entry_renderer":
				check(identifierProblem(registration.renderer.entryType), "entry renderer type");
				this.unique("entry renderer", registration.renderer.entryType);
				r.entryRenderers.push(registration.renderer.entryType);
				return;
			case "markdown_transformer":
				if (r.markdownTransformer)
					throw new RegistrationError("an extension registers at most one markdown transformer");
				r.markdownTransformer = [...new Set(registration.transformer.messageTypes)];
				return;
			case "provider_metadata":
				check(identifierProblem(registration.provider.id), "provider id");
				if (registration.provider.name !== undefined)
					check(textProblem(registration.provider.name, 256), "provider name");
				this.unique("provider metadata", registration.provider.id);
				r.providerMetadata.push(registration.provider);
				return;
			case "provider": {
				const p = registration.provider;
				check(identifierProblem(p.id), "provider id");
				check(identifierProblem(p.api), "provider api");
				if (p.label !== undefined) check(textProblem(p.label, 256), "provider label");
				for (const c of p.capabilities ?? []) check(identifierProblem(c), "provider capability");
				if (p.baseUrl !== undefined) check(textProblem(p.baseUrl, 2048), `provider "${p.id}" baseUrl`);
				const modelIds = new Set<string>();
				for (const model of p.models ?? []) {
					// Model ids are free text upstream ("llama3.1:8b", "org/model"): only what pi's `provider/id` needs.
					check(textProblem(model.id, 128), `provider "${p.id}" model id`);
					if (/\s/.test(model.id))
						throw new RegistrationError(`provider "${p.id}" model id "${model.id}" contains whitespace`);
					if (modelIds.has(model.id)) throw new RegistrationError(`provider "${p.id}" lists model "${model.id}" twice`);
					modelIds.add(model.id);
					if (model.name !== undefined) check(textProblem(model.name, 256), `provider "${p.id}" model name`);
				}
				this.unique("provider", p.id);
				r.providers.push(p);
				return;
			}
			case "shortcut":
				check(textProblem(registration.shortcut.key, 128), "shortcut key");
				if (registration.shortcut.description !== undefined) {
					check(textProblem(registration.shortcut.description, 4096), "shortcut description");
				}
				this.unique("shortcut", registration.shortcut.key);
				r.shortcuts.push(registration.shortcut);
				return;
			case "flag": {
				const flag = registration.flag;
				check(identifierProblem(flag.name), "flag name");
				if (flag.description !== undefined) check(textProblem(flag.description, 4096), "flag description");
				if (flag.default !== undefined && typeof flag.default !== flag.type) {
					throw new RegistrationError(`flag "${flag.name}" default does not match its declared type ${flag.type}`);
				}
				this.unique("flag", flag.name);
				r.flags.push(flag);
				return;
			}
			case "overlay":
				check(identifierProblem(registration.overlay.id), "overlay id");
				check(textProblem(registration.overlay.title, 256), "overlay title");
				if (registration.overlay.input?.placeholder !== undefined)
					check(textProblem(registration.overlay.input.placeholder, 256), "overlay input placeholder");
				this.unique("overlay", registration.overlay.id);
				r.overlays.push(registration.overlay);
				return;
		}
	}

	/** Load-phase `pi.unregisterProvider`: only a provider registered earlier in this load phase. */
	unregisterProvider(id: string): void {
		const providers = this.seen.get("provider");
		if (!providers?.delete(id)) throw new RegistrationError(`cannot unregister unknown provider "${id}"`);
		this.registrations.providers = this.registrations.providers.filter((p) => p.id !== id);
	}

	private unique(kind: string, name: string): void {
		const names = this.seen.get(kind) ?? new Set<string>();
		this.seen.set(kind, names);
		if (names.has(name)) throw new RegistrationError(`registered duplicate ${kind} "${name}"`);
		names.add(name);
	}
}

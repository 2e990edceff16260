/**
 * The plugin's string-in/string-out functions as pier sees them: commands (with their selector, editor and
 * input follow-ups), resources_discover, before_agent_start (cached per prompt) and renderers. Each returns
 * plain values; plugin-host.ts wires them to the kit.
 */
import { ref } from "./abi.js";
import { takeString } from "./registrars.js";
import type { FreeFn, NativeCommand, NativeDiscover, NativeHandler, PluginRegistry } from "./registry.js";

/** Calls a string handler; its answer text (reclaimed with `free`, or leaked when the plugin gave none). */
export function callHandler(
	handler: NativeHandler,
	input: string,
	free: FreeFn | undefined,
): { code: number; out: string } {
	const out = { ptr: null as unknown, len: 0 as number | bigint };
	const code = handler.call(ref(input), out, handler.userData);
	return { code, out: takeString(out, handler.free ?? free) };
}

/** How many follow-up rounds (selector → editor → …) one command invocation may take. */
const MAX_FOLLOW_UPS = 16;

export interface CommandUi {
	select(
		title: string,
		options: Array<{ value: string; label: string; description?: string }>,
	): Promise<string | undefined>;
	editor(title: string, prefill: string): Promise<string | undefined>;
	input(title: string, placeholder: string | undefined): Promise<string | undefined>;
	notify(text: string): void;
}

function parseJson(text: string): Record<string, unknown> | undefined {
	try {
		const value = JSON.parse(text);
		return value && typeof value === "object" && !Array.isArray(value) ? value : undefined;
	} catch {
		return undefined;
	}
}

/**
 * One command invocation: `{args, command}` in, then as long as the plugin answers with a selector, an
 * editor or an input, that dialog is shown and the handler re-invoked with `action` and `value`. The result
 * is the last message text (also notified), or null.
 */
export async function runCommand(
	command: NativeCommand,
	args: string,
	registry: PluginRegistry,
	ui: CommandUi,
): Promise<unknown> {
	let input: Record<string, unknown> = { args, command: command.name };
	for (let round = 0; round <= MAX_FOLLOW_UPS; round++) {
		const { code, out } = callHandler(command, JSON.stringify(input), registry.firstFree);
		if (code !== 0) throw new Error(`native command /${command.name} returned code ${code}${out ? `: ${out}` : ""}`);
		const answer = parseJson(out);
		if (!answer) return out === "" ? null : out;
		const title = typeof answer.title === "string" ? answer.title : `/${command.name}`;
		let action: string;
		let value: string | undefined;
		switch (answer.kind) {
			case "selector": {
				const items = Array.isArray(answer.items) ? (answer.items as Array<Record<string, unknown>>) : [];
				action = "select";
				value = await ui.select(
					title,
					items.map((item) => ({
						value: String(item.value ?? ""),
						label: String(item.label ?? item.value ?? ""),
						...(typeof item.description === "string" ? { description: item.description } : {}),
					})),
				);
				break;
			}
			case "editor":
				action = "editor";
				value = await ui.editor(title, typeof answer.initialText === "string" ? answer.initialText : "");
				break;
			case "input":
				action = "input";
				value = await ui.input(title, typeof answer.placeholder === "string" ? answer.placeholder : undefined);
				break;
			case "message": {
				const text = typeof answer.text === "string" ? answer.text : "";
				if (text) ui.notify(text);
				return text;
			}
			default:
				return answer;
		}
		if (value === undefined) return null; // dismissed: the plugin is not re-invoked
		input = { args, command: command.name, action, value };
	}
	throw new Error(`native command /${command.name} asked for more than ${MAX_FOLLOW_UPS} follow-ups`);
}

/** Every discover handler in registration order, arrays concatenated; a failing one is logged and skipped. */
export function discoverResources(
	handlers: readonly NativeDiscover[],
	cwd: string,
	reason: string,
	log: (line: string) => void,
): { skillPaths: string[]; promptPaths: string[]; themePaths: string[] } {
	const all = { skillPaths: [] as string[], promptPaths: [] as string[], themePaths: [] as string[] };
	for (const handler of handlers) {
		const out = { ptr: null as unknown, len: 0 as number | bigint };
		const code = handler.call(ref(cwd), ref(reason), out, handler.userData);
		const text = takeString(out, handler.free);
		if (code !== 0) {
			log(`resources_discover handler returned code ${code}; skipped`);
			continue;
		}
		const answer = parseJson(text || "{}");
		for (const key of ["skillPaths", "promptPaths", "themePaths"] as const) {
			const paths = answer?.[key];
			if (Array.isArray(paths)) all[key].push(...paths.filter((p): p is string => typeof p === "string"));
		}
	}
	return all;
}

/**
 * before_agent_start transformers: each gets the prompt (with the previous one's system prompt) and may
 * replace the system prompt. Cached per (prompt, system prompt): pier may ask again for the same prompt.
 */
export class SystemPromptTransform {
	private readonly cache = new Map<string, string | undefined>();

	constructor(
		private readonly handlers: readonly NativeHandler[],
		private readonly log: (line: string) => void,
	) {}

	apply(event: { prompt: string; imageCount: number; sessionId?: string; systemPrompt: string }): string | undefined {
		const key = `${event.prompt}\u0000${event.systemPrompt}`;
		if (this.cache.has(key)) return this.cache.get(key);
		let systemPrompt = event.systemPrompt;
		let changed = false;
		for (const handler of this.handlers) {
			const { code, out } = callHandler(handler, JSON.stringify({ ...event, host: "pier", systemPrompt }), undefined);
			if (code !== 0) {
				this.log(`before_agent_start handler returned code ${code}; prompt untouched`);
				continue;
			}
			const next = parseJson(out || "{}")?.systemPrompt;
			if (typeof next === "string") {
				systemPrompt = next;
				changed = true;
			}
		}
		const result = changed ? systemPrompt : undefined;
		if (this.cache.size > 256) this.cache.clear();
		this.cache.set(key, result);
		return result;
	}
}

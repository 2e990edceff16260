/**
 * Metrics of a session's in-process pi extensions, from what pi lets a host observe without patching its
 * runner: tool executions (the session's tool_execution_start/end events, attributed to the extension that
 * registered the tool), commands the chamber runs (timed around the prompt that runs them), failures pi
 * reports (`onError`: a command or event handler that threw) and reloads. Event handlers' successful runs and
 * their latency are not visible to a host, so they are not counted.
 *
 * Protocol extensions are bridged into pi as one inline extension whose tools and commands the extension host
 * already records; they are skipped here so nothing is counted twice.
 */
import type { AgentSessionEvent, ExtensionRunner } from "@earendil-works/pi-coding-agent";
import { ExtensionMetrics } from "../extensions/host/metrics.js";

/** pi's name for an extension given as a factory (pier's protocol bridge among them). */
const isInline = (path: string) => path.startsWith("<inline:");

export class PiExtensionMetrics {
	private readonly byPath = new Map<string, ExtensionMetrics>();
	private readonly running = new Map<string, { metrics: ExtensionMetrics; start: number }>();

	constructor(private readonly runner: () => ExtensionRunner) {}

	of(path: string): ExtensionMetrics | undefined {
		return this.byPath.get(path);
	}

	private metrics(path: string): ExtensionMetrics {
		let metrics = this.byPath.get(path);
		if (!metrics) {
			metrics = new ExtensionMetrics();
			this.byPath.set(path, metrics);
		}
		return metrics;
	}

	private toolOwner(name: string): string | undefined {
		const path = this.runner()
			.getAllRegisteredTools()
			.find((t) => t.definition.name === name)?.sourceInfo.path;
		return path && !isInline(path) ? path : undefined;
	}

	private commandOwner(name: string): string | undefined {
		const path = this.runner().getCommand(name)?.sourceInfo.path;
		return path && !isInline(path) ? path : undefined;
	}

	onEvent(event: AgentSessionEvent): void {
		if (event.type === "tool_execution_start") {
			const owner = this.toolOwner(event.toolName);
			if (owner) this.running.set(event.toolCallId, { metrics: this.metrics(owner), start: performance.now() });
		} else if (event.type === "tool_execution_end") {
			const run = this.running.get(event.toolCallId);
			if (!run) return;
			this.running.delete(event.toolCallId);
			const message = event.isError ? errorText(event.result) : undefined;
			run.metrics.record(performance.now() - run.start, message === undefined ? undefined : new Error(message));
		}
	}

	/** What pi's runner reports: `command:<name>` for a command handler that threw, else the extension's path. */
	onError(error: { extensionPath: string; event: string; error: string }): void {
		const path = error.extensionPath.startsWith("command:")
			? this.commandOwner(error.extensionPath.slice("command:".length))
			: isInline(error.extensionPath)
				? undefined
				: error.extensionPath;
		if (path) this.metrics(path).failed(`${error.event}: ${error.error}`);
	}

	/** Times `run` (the prompt running `text`) when `text` runs an in-process extension's command. */
	observePrompt(text: string, run: Promise<void>): Promise<void> {
		const name = /^\/([^\s]+)/.exec(text)?.[1];
		const owner = name ? this.commandOwner(name) : undefined;
		if (!owner) return run;
		const metrics = this.metrics(owner);
		const start = performance.now();
		// pi catches a handler's throw and reports it through onError, which counts the error.
		return run.finally(() => metrics.record(performance.now() - start));
	}

	/** pi rebuilt its runner: every extension loaded again is a restart. */
	reloaded(): void {
		for (const path of this.runner().getExtensionPaths()) if (!isInline(path)) this.metrics(path).restarts++;
	}
}

function errorText(result: unknown): string {
	const content = (result as { content?: { type?: string; text?: unknown }[] })?.content;
	const text = Array.isArray(content)
		? content.filter((p) => p?.type === "text" && typeof p.text === "string").map((p) => p.text as string)
		: [];
	return (text.join("") || "the tool failed").slice(0, 2_000);
}

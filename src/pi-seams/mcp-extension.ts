/**
 * pi's MCP extension (`extensions/mcp/index.js`, not exported), built with two of its own options:
 *
 * - `loadConfig`, which also tells pier what was wrong in the `mcp.json` files. pi reports config errors (an
 *   invalid entry, a name that clashes, `sse`) through `ctx.ui.notify`, which headless runs have no UI for, so
 *   `pier run` would drop them silently. The config is loaded exactly as pi's own default does (`config.js`'s
 *   `loadMcpConfig` with pi's agent directory, the session's cwd and the session's trust decision).
 * - `createTransport`, pi's own (`runtime.js`'s `createDefaultTransport`), except that a stdio server's transport
 *   is a subclass of pi-mcp's `StdioTransport` (taken from the instance pi made, so it is pi's very class and pi's
 *   `instanceof` checks, for the stderr tail, still hold) that tells `groups` of the server's process group: when
 *   it starts, and when it ends (pi's close is done, or the server exited by itself). pi's close sends the group
 *   SIGTERM only; a member that ignores it would outlive the session. An HTTP server's entry is handed to
 *   `onRemoteEntry`, so a sign-in pier starts (mcp-signin.ts) signs in to the very server the session connects.
 *   pi calls the factory as a method of the server's connection (`this.createTransport(…)` in `runtime.js`), so
 *   the connection itself is handed to `onConnection`: MCP Apps (agent/mcp/apps.ts) read the tools' `_meta`,
 *   read `ui://` resources and call an app's tools through it, on that one server's own client.
 */
import { type ExtensionAPI, type ExtensionContext, getAgentDir } from "@earendil-works/pi-coding-agent";
import { Findings, loadForCheck, piModule, piModuleNow, type Seam } from "./seam.js";

const INDEX = "dist/extensions/mcp/index.js";
const CONFIG = "dist/extensions/mcp/config.js";
const RUNTIME = "dist/extensions/mcp/runtime.js";

interface LoadedConfig {
	errors: string[];
}

/** What pier uses of pi-mcp's `StdioTransport`: its options, the server's pid while it runs, start and close. */
interface StdioTransportLike {
	readonly options: object;
	readonly pid: number | undefined;
	start(): Promise<void>;
	close(): Promise<void>;
	onClose(listener: () => void): () => void;
}
type StdioTransportClass = new (options: object) => StdioTransportLike;

interface ServerEntry {
	name?: string;
	config: object;
}
type TransportFactory = (entry: ServerEntry, cwd: string, authProvider: unknown) => object;

interface McpIndex {
	createMcpExtension(options?: {
		loadConfig?: (ctx: ExtensionContext) => LoadedConfig;
		createTransport?: TransportFactory;
	}): (pi: ExtensionAPI) => void;
}

interface McpConfig {
	loadMcpConfig(options: { agentDir: string; cwd: string; projectTrusted: boolean }): LoadedConfig;
}

interface McpRuntime {
	createDefaultTransport: TransportFactory;
}

/**
 * What pier uses of pi's `McpServerConnection` (runtime.js): the server's name, its tools as the server listed
 * them (with `_meta`), whether it is shut down, and its own requests, which reconnect as pi's tool calls do.
 */
export interface McpConnectionLike {
	readonly name: string;
	readonly tools: readonly unknown[];
	readonly closed: boolean;
	callTool(name: string, args: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<unknown>;
	readResource(uri: string, options?: { timeoutMs?: number }): Promise<unknown>;
}

function isConnection(value: unknown): value is McpConnectionLike {
	const c = value as Partial<McpConnectionLike> | undefined;
	return (
		typeof c === "object" &&
		c !== null &&
		typeof c.name === "string" &&
		Array.isArray(c.tools) &&
		typeof c.callTool === "function" &&
		typeof c.readResource === "function"
	);
}

export interface PierMcpOptions {
	/** Hears each load's errors (`<file>: server "<name>": …`); pi's UI still shows them where there is one. */
	onConfigErrors?: (errors: readonly string[]) => void;
	/** A stdio server's process group: `started` once it runs, `ended` once pi closed its transport (and SIGTERMed it). */
	groups: McpProcessGroups;
	/** Each HTTP server's entry, as pi connects it: what a sign-in started by pier needs (mcp-signin.ts). */
	onRemoteEntry?: (entry: ServerEntry & { name: string }) => void;
	/** Each server's connection, as pi (re)connects it. */
	onConnection?: (connection: McpConnectionLike) => void;
}

export interface McpProcessGroups {
	started(pgid: number): void;
	ended(pgid: number): Promise<void>;
}

/** pi's class, subclassed once: the group of the server it started is handed on when it ends. */
const groupEnding = new WeakMap<StdioTransportClass, StdioTransportClass>();

function groupEndingClass(base: StdioTransportClass, groups: McpProcessGroups): StdioTransportClass {
	let subclass = groupEnding.get(base);
	if (!subclass) {
		subclass = class extends base {
			#group: number | undefined;
			#ending: Promise<void> | undefined;
			override async start(): Promise<void> {
				await super.start();
				// pi-mcp starts the server as the leader of its own group: its pid is the group's id.
				this.#group = this.pid;
				if (this.#group === undefined) return;
				groups.started(this.#group);
				// A server that exits by itself may leave members of its group behind, as a closed one may.
				this.onClose(() => void this.#end());
			}
			override async close(): Promise<void> {
				await super.close();
				await this.#end();
			}
			#end(): Promise<void> {
				const group = this.#group;
				this.#ending ??= group === undefined ? Promise.resolve() : groups.ended(group);
				return this.#ending;
			}
		};
		groupEnding.set(base, subclass);
	}
	return subclass;
}

/** pi's MCP extension factory, with pier's config error report and process group ending. */
export async function piMcpExtension(options: PierMcpOptions) {
	const [{ createMcpExtension }, { loadMcpConfig }] = await Promise.all([
		piModule<McpIndex>(INDEX),
		piModule<McpConfig>(CONFIG),
	]);
	return createMcpExtension({
		loadConfig: (ctx) => {
			const loaded = loadMcpConfig({ agentDir: getAgentDir(), cwd: ctx.cwd, projectTrusted: ctx.isProjectTrusted() });
			if (loaded.errors.length > 0) options.onConfigErrors?.(loaded.errors);
			return loaded;
		},
		createTransport: function (this: unknown, entry, cwd, authProvider) {
			if (isConnection(this)) options.onConnection?.(this);
			// pi loads its MCP runtime (client, OAuth) only once a server is configured, and connects through it:
			// by now it is loaded, and a session without MCP servers never reads it.
			const transport = piModuleNow<McpRuntime>(RUNTIME).createDefaultTransport(entry, cwd, authProvider);
			if ("url" in entry.config) {
				if (entry.name !== undefined) options.onRemoteEntry?.({ ...entry, name: entry.name });
				return transport;
			}
			// Made, not started: pi-mcp's constructor only keeps its options, so this one is dropped unused.
			const stdio = transport as StdioTransportLike;
			const base = stdio.constructor as StdioTransportClass;
			return new (groupEndingClass(base, options.groups))(stdio.options);
		},
	});
}

const id = { name: "mcp-extension", file: "src/pi-seams/mcp-extension.ts" };

export const seam: Seam = {
	...id,
	members: [
		"extensions/mcp/index.js (unexported): createMcpExtension({ loadConfig }), whose default loadConfig is the call below",
		"extensions/mcp/config.js (unexported): loadMcpConfig({ agentDir, cwd, projectTrusted }) → { errors, … }",
		"extensions/mcp/runtime.js (unexported): createDefaultTransport(entry, cwd, authProvider), a StdioTransport for stdio",
		"pi-mcp StdioTransport: options, pid while running, start(), close(), onClose(listener) (subclassed)",
		"extensions/mcp/runtime.js McpServerConnection: calls createTransport as its method; name, tools, closed, callTool, readResource",
	],
	async check(roots) {
		const findings = new Findings(id);
		const index = await loadForCheck<Partial<McpIndex>>(findings, roots.codingAgent, INDEX);
		findings.fn(index, "createMcpExtension", `${INDEX} export createMcpExtension`);
		const config = await loadForCheck<Partial<McpConfig>>(findings, roots.codingAgent, CONFIG);
		findings.fn(config, "loadMcpConfig", `${CONFIG} export loadMcpConfig`, 1);
		const runtime = await loadForCheck<Partial<McpRuntime>>(findings, roots.codingAgent, RUNTIME);
		findings.fn(runtime, "createDefaultTransport", `${RUNTIME} export createDefaultTransport`, 3);
		findings.calls(
			roots.codingAgent,
			INDEX,
			"createTransport: options.createTransport ?? runtime.createDefaultTransport",
		);
		if (runtime?.createDefaultTransport) {
			// A transport made and never started: what pier reads of it, and that it is a class pier can extend.
			const made = runtime.createDefaultTransport({ name: "check", config: { command: "true" } }, "/", undefined);
			const stdio = made as Partial<StdioTransportLike>;
			if (typeof stdio.options !== "object" || !("pid" in made)) findings.add("StdioTransport has no options or pid");
			for (const method of ["start", "close", "onClose"] as const)
				findings.fn(stdio, method, `StdioTransport.${method}`);
		}
		// The connection calls the factory as its own method, and offers what McpConnectionLike names.
		findings.calls(roots.codingAgent, RUNTIME, "this.createTransport(this.entry, this.cwd, this.authProvider)");
		for (const member of [
			"get name()",
			"get closed()",
			"this.tools = tools",
			"callTool(name, args, options)",
			"readResource(uri, options)",
		])
			findings.calls(roots.codingAgent, RUNTIME, member);
		// The option still replaces the default, and the default is still the load pier repeats.
		findings.calls(roots.codingAgent, INDEX, "(options.loadConfig ?? defaultLoadConfig)(ctx)");
		findings.calls(
			roots.codingAgent,
			INDEX,
			"loadMcpConfig({ agentDir: getAgentDir(), cwd: ctx.cwd, projectTrusted: ctx.isProjectTrusted() })",
		);
		findings.done();
	},
};

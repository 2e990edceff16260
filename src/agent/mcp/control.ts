/**
 * A session's view of and hold on pi's MCP extension, through what pi gives any extension: pier hands the built-in
 * `mcp` factory its pi API with two things noted on the way, the `/mcp` command it registers and the context of
 * its `session_start`. Reading and changing servers then runs pi's own `/mcp` manager, answered by a script
 * (manager-run.ts): every change is pi's, saved by pi to the file pi saves it to. The extension's warnings and
 * errors (pi reports failed servers once at start-up) can also be handed to a listener, so the chamber shows
 * them in the transcript as pi's terminal does.
 */
import type {
	ExtensionAPI,
	ExtensionCommandContext,
	ExtensionContext,
	ExtensionFactory,
	ExtensionUIContext,
} from "@earendil-works/pi-coding-agent";
import { managerViewArgs, type McpMenuItem } from "../../pi-seams/mcp-manager.js";
import type { McpServerEntry } from "../../pi-seams/mcp-signin.js";
import { McpApps } from "./apps.js";
import { ManagerClosed, ManagerRun, type Screen } from "./manager-run.js";
import { MCP_EXPOSURES, type McpExposure, type McpListView, type McpServerView, type McpToolView } from "./shapes.js";
import { serverView } from "./views.js";

export type McpAction =
	| { kind: "enable" | "disable"; project?: boolean }
	| { kind: "reconnect" }
	| { kind: "exposure"; exposure: McpExposure };

export type McpControlErrorCode = "unavailable" | "not_found" | "not_offered" | "save_failed" | "signin_failed";

export class McpControlError extends Error {
	constructor(
		readonly code: McpControlErrorCode,
		message: string,
	) {
		super(message);
		this.name = "McpControlError";
	}
}

type CommandHandler = (args: string, ctx: ExtensionCommandContext) => Promise<void> | void;
type Notify = ExtensionUIContext["notify"];

/** How long an action waits for the server to settle (connect or fail) before answering with what it has. */
const SETTLE_MS = 20_000;
const TRANSIENT = new Set(["starting", "connecting"]);
/** Reports kept for a listener that has not come yet. */
const MAX_REPORTS = 16;

export class McpControl {
	private api: ExtensionAPI | undefined;
	private handler: CommandHandler | undefined;
	private ctx: ExtensionContext | undefined;
	private queue: Promise<unknown> = Promise.resolve();
	private reports: string[] = [];
	private listener: ((message: string) => void) | undefined;
	/** The HTTP servers' entries as pi last connected them, by name: what a sign-in needs (signin.ts). */
	private remote = new Map<string, McpServerEntry>();
	/** The servers' MCP Apps: their tools' `ui://` resources and an app's own tool calls (apps.ts). */
	readonly apps = new McpApps();

	/** pi's factory, with the API it gets noted (see the top of this file). */
	watch(factory: ExtensionFactory): ExtensionFactory {
		return (pi) => factory(this.watched(pi));
	}

	/** Hands the extension's warnings and errors to `listener`, those made before it first. */
	onReport(listener: (message: string) => void): void {
		this.listener = listener;
		for (const message of this.reports.splice(0)) listener(message);
	}

	/** pi connects an HTTP server with this entry (pi-seams/mcp-extension.ts tells). */
	noteRemote(entry: McpServerEntry): void {
		this.remote.set(entry.name, entry);
	}

	/** The entry pi connected the HTTP server `name` with, if it did in this session. */
	remoteEntry(name: string): McpServerEntry | undefined {
		return this.remote.get(name);
	}

	private watched(pi: ExtensionAPI): ExtensionAPI {
		this.api = pi;
		this.remote.clear();
		// A reload runs the factory again: the old command and context belong to the session that ended.
		this.handler = undefined;
		this.ctx = undefined;
		// Without a listener (pier run, the terminal) pi's own notice is all there is; keep only the latest few.
		const report = (message: string) => {
			if (this.listener) this.listener(message);
			else this.reports = [...this.reports.slice(-(MAX_REPORTS - 1)), message];
		};
		const notifying = (ctx: ExtensionContext): ExtensionContext =>
			Object.create(ctx, {
				ui: {
					get: () => {
						const ui = ctx.ui;
						const notify: Notify = (message, type) => {
							ui.notify(message, type);
							if (type === "warning" || type === "error") report(String(message));
						};
						return { ...ui, notify };
					},
				},
			});
		type Handler = (event: unknown, ctx: ExtensionContext) => unknown;
		const on = ((event: string, handler: Handler) =>
			(pi.on as unknown as (event: string, handler: Handler) => () => void)(event, (e, ctx) => {
				if (event === "session_start") this.ctx = ctx;
				return handler(e, notifying(ctx));
			})) as ExtensionAPI["on"];
		const registerCommand: ExtensionAPI["registerCommand"] = (name, options) => {
			if (name === "mcp") this.handler = options.handler as CommandHandler;
			pi.registerCommand(name, options);
		};
		return Object.create(pi, {
			on: { value: on },
			registerCommand: { value: registerCommand },
			registerTool: { value: this.apps.watch(pi) },
		});
	}

	/** Every server with its state, tools, exposure, source file and last error. */
	list(): Promise<McpListView> {
		if (!this.ready()) return Promise.resolve({ available: false, notices: [], servers: [] });
		return this.serial(() =>
			this.withManager(async (run) => {
				let menu = await run.next();
				const first = menu.read();
				const notices = first.error ? first.error.split("\n") : [];
				const servers: McpServerView[] = [];
				for (const item of first.items) {
					menu.answer(item.value);
					const { view, screen } = await this.read(run, item.value, item.description, await run.next());
					servers.push(view);
					screen.answer(undefined);
					menu = await run.next();
				}
				return { available: true, notices, servers };
			}),
		);
	}

	/** Runs one of pi's `/mcp` actions on `name` and answers the server as it is once it settled. */
	act(name: string, action: McpAction): Promise<McpServerView> {
		if (!this.ready())
			return Promise.reject(
				new McpControlError("unavailable", "pi's MCP extension does not run in this session (--no-mcp?)"),
			);
		return this.serial(() =>
			this.withManager(async (run) => {
				const servers = await run.next();
				const listed = servers.read().items;
				const item = listed.find((candidate) => candidate.value === name);
				if (!item) {
					const known = listed.map((candidate) => candidate.value).join(", ") || "none";
					throw new McpControlError("not_found", `No MCP server named "${name}" in this session (servers: ${known}).`);
				}
				servers.answer(name);
				const screen = await run.next();
				const value =
					action.kind === "enable" || action.kind === "disable"
						? `${action.kind}${action.project ? "-project" : ""}`
						: action.kind;
				const offered = screen.read().items.map((candidate) => candidate.value);
				if (!offered.includes(value))
					throw notOffered(name, value, serverView(name, item.description, screen.read(), []));
				screen.answer(value);
				if (action.kind === "exposure") await chooseExposure(await run.next(), name, action.exposure);
				const after = await run.next();
				if (action.kind !== "exposure") await settle(after, action.kind === "reconnect");
				const { view } = await this.read(run, name, item.description, after);
				const failed = view.error?.split("\n").find((line) => line.startsWith("Could not update "));
				if (failed) throw new McpControlError("save_failed", `MCP server "${name}": ${failed}`);
				return view;
			}),
		);
	}

	private ready(): boolean {
		return this.api !== undefined && this.handler !== undefined && this.ctx !== undefined;
	}

	/**
	 * The server on its screen, with its tools from pi's tools screen (which knows each tool's MCP exposure; the
	 * session's tools only know whether they are declared). Answers the server's screen as it is afterwards.
	 */
	private async read(run: ManagerRun, name: string, listing: string | undefined, screen: Screen) {
		let tools: McpToolView[] = [];
		if (screen.read().items.some((item) => item.value === "tools")) {
			screen.answer("tools");
			const list = await run.next();
			const exposure = screen.read().items.find((item) => item.value === "exposure")?.description;
			tools = this.tools(name, list.read().items, MCP_EXPOSURES.find((e) => e === exposure) ?? "codemode");
			list.answer(undefined);
			screen = await run.next();
		}
		return { view: serverView(name, listing, screen.read(), tools), screen };
	}

	/** pi lists a tool as its description, or `[<exposure>] <description>` when it overrides the server's. */
	private tools(name: string, items: McpMenuItem[], fallback: McpExposure): McpToolView[] {
		const session = (this.api?.getAllTools() ?? []).filter((tool) => tool.namespace?.aliases?.includes(name));
		return items.flatMap((item) => {
			const own = /^\[([a-z]+)\] ?(.*)$/s.exec(item.description ?? "");
			const exposure = MCP_EXPOSURES.find((e) => e === own?.[1]) ?? fallback;
			if (exposure === "hidden") return [];
			const named = session.find((tool) => tool.name.endsWith(`__${item.value}`));
			return [
				{
					name: named?.name ?? `mcp__${name}__${item.value}`,
					tool: item.value,
					description: own ? own[2]! : (item.description ?? ""),
					exposure,
				},
			];
		});
	}

	/** One manager at a time per session: pi's manager is meant for one person. */
	private serial<T>(work: () => Promise<T>): Promise<T> {
		const next = this.queue.then(work, work);
		this.queue = next.catch(() => undefined);
		return next;
	}

	private async withManager<T>(script: (run: ManagerRun) => Promise<T>): Promise<T> {
		const run = new ManagerRun();
		const args = await managerViewArgs(run);
		const ctx = this.ctx!;
		const ui = {
			...ctx.ui,
			custom: (factory: (...a: unknown[]) => unknown) =>
				new Promise((done) => {
					factory(...args, done);
				}),
		};
		const managerCtx = Object.create(ctx, {
			mode: { value: "tui" },
			hasUI: { value: true },
			ui: { value: ui },
		}) as ExtensionCommandContext;
		const finished = Promise.resolve(this.handler!("", managerCtx)).finally(() => run.end());
		try {
			return await script(run);
		} catch (error) {
			if (error instanceof ManagerClosed) throw new McpControlError("unavailable", "pi's /mcp manager closed early");
			throw error;
		} finally {
			run.close();
			await finished.catch(() => undefined);
		}
	}
}

function notOffered(name: string, action: string, view: McpServerView): McpControlError {
	const offered = view.actions.join(", ") || "nothing";
	return new McpControlError(
		"not_offered",
		`MCP server "${name}" is ${view.stateText}: pi's /mcp offers ${offered} for it now, not ${action}.`,
	);
}

async function chooseExposure(chooser: Screen, name: string, exposure: McpExposure): Promise<void> {
	const values = chooser.read().items.map((item) => item.value);
	if (!values.includes(exposure)) {
		chooser.answer(undefined);
		throw new McpControlError(
			"not_offered",
			`MCP server "${name}": exposure "${exposure}" is not one pi offers (${values.join(", ")}).`,
		);
	}
	chooser.answer(exposure);
}

/** The server's line settles when it is neither starting nor connecting; a reconnect first has to begin. */
async function settle(screen: Screen, needsChange: boolean): Promise<void> {
	const deadline = Date.now() + SETTLE_MS;
	let changed = !needsChange;
	for (;;) {
		const state = /^State: (\S+)/m.exec(screen.read().details ?? "")?.[1]?.replace("…", "") ?? "";
		if (changed && !TRANSIENT.has(state)) return;
		const left = deadline - Date.now();
		if (left <= 0) return;
		if (await screen.changed(left)) changed = true;
	}
}

export { MCP_EXPOSURES };

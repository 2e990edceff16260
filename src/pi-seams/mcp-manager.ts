/**
 * pi's MCP extension keeps its servers' live state (connection, last error with a stdio server's stderr tail) and
 * its actions (enable or disable saved as `/mcp` saves them, reconnect, exposure) to itself. The one way in is its
 * `/mcp` manager: `manage(ui, ctx)` asks `ui.menu(build, subscribe)` for each choice, where `build()` is a plain
 * menu ({title, details, error, items}) and `subscribe` reports every change of the servers. pi draws those menus
 * in a TUI view, `McpManagerView` (extensions/mcp/ui.js, unexported), made by `showMcpManager` through
 * `ctx.ui.custom`. pier answers the same menus itself: the view's `menu`, `status` and `redirectUrl` are replaced
 * on pi's prototype and hand over to a driver when the view was made for one (its `tui` is a driver's). Every
 * other view, pi's terminal included, runs pi's own code.
 */
import { Findings, loadForCheck, piModule, type Seam } from "./seam.js";

const UI = "dist/extensions/mcp/ui.js";
const INDEX = "dist/extensions/mcp/index.js";

export interface McpMenuItem {
	value: string;
	label: string;
	description?: string;
}

/** One screen of pi's manager, as its `build()` returns it. */
export interface McpMenu {
	title: string;
	details?: string;
	error?: string;
	items: McpMenuItem[];
	empty?: string;
}

/** Answers pi's manager in place of its TUI view. */
export interface McpManagerDriver {
	menu(build: () => McpMenu, subscribe?: (listener: () => void) => () => void): Promise<string | undefined>;
	status(title: string, message: string, onCancel?: () => void): void;
	redirectUrl(title: string, url: string, signal: AbortSignal): Promise<string | undefined>;
}

type ViewMethods = Record<"menu" | "status" | "redirectUrl", (...args: never[]) => unknown>;
interface UiModule {
	McpManagerView: { prototype: ViewMethods };
}

const DRIVER = Symbol("pier.mcpManagerDriver");
let installed: Promise<void> | undefined;

function install(): Promise<void> {
	installed ??= piModule<UiModule>(UI).then(({ McpManagerView }) => {
		const proto = McpManagerView.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
		for (const method of ["menu", "status", "redirectUrl"] as const) {
			const own = proto[method]!;
			proto[method] = function (this: { tui?: { [DRIVER]?: McpManagerDriver } }, ...args: unknown[]) {
				const driver = this.tui?.[DRIVER];
				return driver ? (driver[method] as (...a: unknown[]) => unknown)(...args) : own.apply(this, args);
			};
		}
	});
	return installed;
}

/**
 * What a `ctx.ui.custom(factory)` hands pi's manager factory so the view it makes answers through `driver`:
 * a tui that only carries the driver, and a theme and keybindings good enough for the view's constructor.
 */
export async function managerViewArgs(driver: McpManagerDriver): Promise<[unknown, unknown, unknown]> {
	await install();
	const tui = { [DRIVER]: driver, requestRender() {} };
	const theme = { fg: (_color: string, text: string) => text, bold: (text: string) => text };
	const keybindings = { matches: () => false };
	return [tui, theme, keybindings];
}

/** A server's screen's `details`, as pi's `serverMenu` writes them. */
export interface McpServerDetails {
	/** The command line of a stdio server, the URL of an HTTP one. */
	transport: string;
	/** `global`, `project`, `extension`, or `config` when pi does not know. */
	scope: string;
	/** The mcp.json that defines the server, or the extension that registered it. */
	source: string;
	/** The trusted project's mcp.json that overrides a global server. */
	override?: string;
	/** pi's words for the state: `connected · 2 tools`, `failed`, `needs sign-in`, `disabled`… */
	state: string;
}

/** pi writes the transport, `<scope>: <source>`, maybe `project override: <file>`, then `State: <state>`. */
export function parseServerDetails(details: string | undefined): McpServerDetails | undefined {
	const lines = (details ?? "").split("\n");
	const stateLine = lines.findIndex((line) => line.startsWith("State: "));
	if (stateLine < 2) return undefined;
	const where = lines[1]!;
	const colon = where.indexOf(": ");
	if (colon < 0) return undefined;
	const overrideLine = lines.slice(2, stateLine).find((line) => line.startsWith("project override: "));
	return {
		transport: lines[0]!,
		scope: where.slice(0, colon),
		source: where.slice(colon + 2),
		...(overrideLine ? { override: overrideLine.slice("project override: ".length) } : {}),
		state: lines[stateLine]!.slice("State: ".length),
	};
}

const id = { name: "mcp-manager", file: "src/pi-seams/mcp-manager.ts" };

export const seam: Seam = {
	...id,
	members: [
		"extensions/mcp/ui.js (unexported): McpManagerView.prototype.menu(build, subscribe), .status(title, message, onCancel), .redirectUrl(title, url, signal) (replaced); its `tui`",
		"extensions/mcp/index.js: `/mcp` opens showMcpManager(ctx, …) when ctx.mode is tui; serverMenu's details lines `<scope>: <source>`, `project override: <file>`, `State: <state>`",
	],
	async check(roots) {
		const findings = new Findings(id);
		const ui = await loadForCheck<Partial<UiModule>>(findings, roots.codingAgent, UI);
		if (ui) {
			const proto = ui.McpManagerView?.prototype;
			if (!proto) findings.add(`${UI} export McpManagerView is missing`);
			else {
				findings.fn(proto, "menu", "McpManagerView.prototype.menu", 2);
				findings.fn(proto, "status", "McpManagerView.prototype.status", 3);
				findings.fn(proto, "redirectUrl", "McpManagerView.prototype.redirectUrl", 3);
			}
			findings.calls(roots.codingAgent, UI, "new McpManagerView(tui, theme, keybindings)");
		}
		// pi's source text, placeholders and all: these are the lines parseServerDetails reads.
		const $ = "$";
		const calls = [
			"await showMcpManager(ctx, (ui) => manage(ui, ctx))",
			`\`${$}{entry.scope ?? "config"}: ${$}{entry.source}\``,
			`\`project override: ${$}{entry.override}\``,
			`\`State: ${$}{describeState(server, false)}\``,
		];
		for (const call of calls) findings.calls(roots.codingAgent, INDEX, call);
		findings.done();
	},
};

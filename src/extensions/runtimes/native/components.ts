/**
 * Runtime action UiComponent (22): a plugin's registered text components (the seed's "Registered TUI text
 * components"), kept here with every bound and rendered as pier UI widgets.
 *
 * register / update / show / configure / hide / remove, each checked in full before anything changes, so an
 * invalid change keeps the previous state. Every visible component is one `widget` request (key
 * `native:<id>`, or `native:<extension>:<id>` when the host names the plugin), its title then its text lines,
 * cut to `maxHeight` rows and `width` columns; hidden and removed ones are cleared. pier has no sidebars or
 * overlays for widgets: `footer.after` renders below the editor, the other slots above it; the layout fields
 * are kept as given. Headless runs (print, json) store components without rendering them.
 */
import type { RuntimeRequest } from "../../protocol/frames.js";

export const COMPONENT_LIMITS = {
	minWidth: 4,
	maxWidth: 240,
	minMaxHeight: 1,
	maxMaxHeight: 80,
	lines: 64,
	lineBytes: 2048,
	titleBytes: 256,
	perPlugin: 32,
	idBytes: 128,
} as const;
export const COMPONENT_SLOTS = ["footer.after", "sidebar.left", "sidebar.right", "overlay"] as const;
export const COMPONENT_ANCHORS = [
	"top-left",
	"top-center",
	"top-right",
	"left-center",
	"center",
	"right-center",
	"bottom-left",
	"bottom-center",
	"bottom-right",
] as const;
export type ComponentSlot = (typeof COMPONENT_SLOTS)[number];
export type ComponentAnchor = (typeof COMPONENT_ANCHORS)[number];

/** What `configure` (and `register`) may set. */
const LAYOUT_KEYS = [
	"slot",
	"order",
	"width",
	"maxHeight",
	"border",
	"anchor",
	"offsetX",
	"offsetY",
	"minScreenWidth",
] as const;
type LayoutKey = (typeof LAYOUT_KEYS)[number];

export interface ComponentLayout {
	slot: ComponentSlot;
	order: number;
	width?: number;
	maxHeight?: number;
	border: boolean;
	anchor?: ComponentAnchor;
	offsetX?: number;
	offsetY?: number;
	minScreenWidth?: number;
}

export interface NativeComponent extends ComponentLayout {
	id: string;
	type: "text";
	visible: boolean;
	text: string;
	title?: string;
}

export class ComponentError extends Error {
	override name = "ComponentError";
}

export interface ComponentHost {
	requestAsync(request: RuntimeRequest, options?: { signal?: AbortSignal }): Promise<unknown>;
	mode: "tui" | "rpc" | "json" | "print";
	/** Names the plugin in widget keys, so two plugins' `monitor` components do not meet. */
	extensionId?: string;
}

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

function integer(args: Record<string, unknown>, key: string, min: number, max: number): number {
	const value = args[key];
	if (typeof value !== "number" || !Number.isInteger(value)) {
		throw new ComponentError(`UiComponent \`${key}\` must be an integer`);
	}
	if (value < min || value > max)
		throw new ComponentError(`UiComponent \`${key}\` must be ${min}–${max}, got ${value}`);
	return value;
}

/** The layout `args` asks for, over `base`; throws on any bad field. */
function layoutOf(args: Record<string, unknown>, base: ComponentLayout): ComponentLayout {
	const layout: ComponentLayout = { ...base };
	for (const key of LAYOUT_KEYS) {
		if (args[key] === undefined) continue;
		setLayout(layout, key, args);
	}
	return layout;
}

function setLayout(layout: ComponentLayout, key: LayoutKey, args: Record<string, unknown>): void {
	const value = args[key];
	const { minWidth, maxWidth, minMaxHeight, maxMaxHeight } = COMPONENT_LIMITS;
	switch (key) {
		case "slot":
			if (!COMPONENT_SLOTS.includes(value as ComponentSlot)) {
				throw new ComponentError(
					`UiComponent \`slot\` must be one of ${COMPONENT_SLOTS.join(", ")}, got ${JSON.stringify(value)}`,
				);
			}
			layout.slot = value as ComponentSlot;
			return;
		case "anchor":
			if (!COMPONENT_ANCHORS.includes(value as ComponentAnchor)) {
				throw new ComponentError(
					`UiComponent \`anchor\` must be one of ${COMPONENT_ANCHORS.join(", ")}, got ${JSON.stringify(value)}`,
				);
			}
			layout.anchor = value as ComponentAnchor;
			return;
		case "border":
			if (typeof value !== "boolean") throw new ComponentError("UiComponent `border` must be a boolean");
			layout.border = value;
			return;
		case "width":
			layout.width = integer(args, key, minWidth, maxWidth);
			return;
		case "maxHeight":
			layout.maxHeight = integer(args, key, minMaxHeight, maxMaxHeight);
			return;
		case "order":
			layout.order = integer(args, key, -1_000_000, 1_000_000);
			return;
		case "minScreenWidth":
			layout.minScreenWidth = integer(args, key, 0, 10_000);
			return;
		default:
			layout[key] = integer(args, key, -10_000, 10_000);
	}
}

/** `text` and `title` of an update, checked against the content bounds. */
function contentOf(args: Record<string, unknown>): { text: string; title?: string } {
	if (typeof args.text !== "string") throw new ComponentError("UiComponent update requires a string `text`");
	const lines = args.text.split("\n");
	if (lines.length > COMPONENT_LIMITS.lines) {
		throw new ComponentError(`UiComponent text has ${lines.length} lines; at most ${COMPONENT_LIMITS.lines}`);
	}
	const long = lines.findIndex((l) => bytes(l) > COMPONENT_LIMITS.lineBytes);
	if (long >= 0) {
		throw new ComponentError(
			`UiComponent text line ${long + 1} has ${bytes(lines[long]!)} bytes; at most ${COMPONENT_LIMITS.lineBytes}`,
		);
	}
	if (args.title === undefined || args.title === null) return { text: args.text };
	if (typeof args.title !== "string") throw new ComponentError("UiComponent `title` must be a string");
	if (bytes(args.title) > COMPONENT_LIMITS.titleBytes) {
		throw new ComponentError(
			`UiComponent title has ${bytes(args.title)} bytes; at most ${COMPONENT_LIMITS.titleBytes}`,
		);
	}
	return { text: args.text, title: args.title };
}

/** Which keys each operation accepts (a stray key is a plugin bug worth naming). */
const OP_KEYS: Record<string, readonly string[]> = {
	register: ["op", "id", "type", "visible", ...LAYOUT_KEYS],
	update: ["op", "id", "text", "title"],
	configure: ["op", "id", ...LAYOUT_KEYS],
	show: ["op", "id"],
	hide: ["op", "id"],
	remove: ["op", "id"],
};

/** One plugin's components (NativeUiState.components). */
export class NativeComponents {
	private readonly components = new Map<string, NativeComponent>();
	/** What pier shows now, in order: widget key → its lines. */
	private rendered: Array<{ key: string; placement: "above_editor" | "below_editor"; lines: string[] }> = [];

	/** Every component, in display order (order, then id). */
	list(): NativeComponent[] {
		return [...this.components.values()].sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
	}

	/** Runtime action 22. Returns the result object or throws a ComponentError. */
	handle(args: Record<string, unknown>, host: ComponentHost): Record<string, unknown> {
		const op = args.op;
		const allowed = typeof op === "string" ? OP_KEYS[op] : undefined;
		if (!allowed) {
			throw new ComponentError(
				`unknown UiComponent operation ${JSON.stringify(op)} (expected ${Object.keys(OP_KEYS).join(", ")})`,
			);
		}
		const id = args.id;
		if (typeof id !== "string" || id === "") throw new ComponentError("UiComponent requires a non-empty string `id`");
		if (bytes(id) > COMPONENT_LIMITS.idBytes) {
			throw new ComponentError(`UiComponent \`id\` exceeds ${COMPONENT_LIMITS.idBytes} bytes`);
		}
		for (const key of Object.keys(args)) {
			if (allowed.includes(key)) continue;
			if (op === "update" && (LAYOUT_KEYS as readonly string[]).includes(key)) {
				throw new ComponentError(`UiComponent update does not accept layout field \`${key}\`; use configure`);
			}
			throw new ComponentError(`UiComponent ${op} does not accept \`${key}\``);
		}
		const result = this.apply(op as string, id, args);
		this.render(host);
		return result;
	}

	private apply(op: string, id: string, args: Record<string, unknown>): Record<string, unknown> {
		const existing = this.components.get(id);
		if (op === "register") {
			if (args.type !== undefined && args.type !== "text") {
				throw new ComponentError(`UiComponent \`type\` must be "text", got ${JSON.stringify(args.type)}`);
			}
			if (args.visible !== undefined && typeof args.visible !== "boolean") {
				throw new ComponentError("UiComponent `visible` must be a boolean");
			}
			const layout = layoutOf(args, { slot: "footer.after", order: 0, border: false });
			// Idempotent: a second register keeps what the component has (content, visibility, layout).
			if (existing) return { ok: true, id, registered: false };
			if (this.components.size >= COMPONENT_LIMITS.perPlugin) {
				throw new ComponentError(`a plugin may register at most ${COMPONENT_LIMITS.perPlugin} UI components`);
			}
			this.components.set(id, { id, type: "text", ...layout, visible: args.visible !== false, text: "" });
			return { ok: true, id, registered: true };
		}
		if (!existing) throw new ComponentError(`unknown UI component \`${id}\`; register it first`);
		switch (op) {
			case "update": {
				const content = contentOf(args);
				existing.text = content.text;
				if (content.title !== undefined) existing.title = content.title;
				break;
			}
			case "configure":
				Object.assign(existing, layoutOf(args, existing));
				break;
			case "show":
			case "hide":
				existing.visible = op === "show";
				break;
			case "remove":
				this.components.delete(id);
				break;
		}
		return { ok: true, id };
	}

	/**
	 * Brings pier's widgets in line with the components. pi shows widgets in the order they were first set, so a
	 * change of which are shown, or of their order, clears them and sets them again in display order; otherwise
	 * only the widgets whose lines changed are sent.
	 */
	private render(host: ComponentHost): void {
		if (host.mode !== "tui" && host.mode !== "rpc") return; // headless: stored only
		const wanted = this.list()
			.filter((c) => c.visible)
			.map((c) => ({ key: widgetKey(host, c.id), placement: placementOf(c.slot), lines: renderLines(c) }));
		const sameOrder =
			wanted.length === this.rendered.length &&
			wanted.every((w, i) => w.key === this.rendered[i]!.key && w.placement === this.rendered[i]!.placement);
		const send = (key: string, placement: "above_editor" | "below_editor", lines?: string[]) => {
			const request: RuntimeRequest = {
				kind: "ui",
				ui: { request: { type: "widget", key, placement, ...(lines ? { lines } : {}) } },
			};
			// Fire and forget: a refused widget (no "widget" capability, the UI budget) costs the plugin nothing.
			host.requestAsync(request).catch(() => {});
		};
		if (sameOrder) {
			wanted.forEach((w, i) => {
				if (!sameLines(w.lines, this.rendered[i]!.lines)) send(w.key, w.placement, w.lines);
			});
		} else {
			for (const r of this.rendered) send(r.key, r.placement);
			for (const w of wanted) send(w.key, w.placement, w.lines);
		}
		this.rendered = wanted;
	}

	/** The plugin is going: its widgets are cleared and its components forgotten. */
	detach(host: ComponentHost): void {
		this.components.clear();
		this.render(host);
	}
}

const sameLines = (a: string[], b: string[]) => a.length === b.length && a.every((l, i) => l === b[i]);
const widgetKey = (host: ComponentHost, id: string) =>
	host.extensionId ? `native:${host.extensionId}:${id}` : `native:${id}`;
const placementOf = (slot: ComponentSlot): "above_editor" | "below_editor" =>
	slot === "footer.after" ? "below_editor" : "above_editor";

/** A component's rows: title then text, controls stripped, cut to width columns and maxHeight rows. */
export function renderLines(component: NativeComponent): string[] {
	let lines = component.text === "" ? [] : component.text.split("\n");
	if (component.title !== undefined && component.title !== "") lines = [component.title, ...lines];
	lines = lines.map(stripControls);
	const inner = component.width !== undefined ? component.width - (component.border ? 4 : 0) : undefined;
	if (inner !== undefined) lines = lines.map((l) => fitWidth(l, inner));
	if (component.border) {
		const width = inner ?? Math.max(0, ...lines.map(displayWidth));
		const rows = Math.max(0, (component.maxHeight ?? Number.POSITIVE_INFINITY) - 2);
		const body = lines.slice(0, rows).map((l) => `│ ${l}${" ".repeat(width - displayWidth(l))} │`);
		return [`┌${"─".repeat(width + 2)}┐`, ...body, `└${"─".repeat(width + 2)}┘`];
	}
	return component.maxHeight !== undefined ? lines.slice(0, component.maxHeight) : lines;
}

/** Terminal escape sequences (CSI, OSC) and every other control character go: the text is shown, never obeyed. */
export function stripControls(line: string): string {
	return (
		line
			// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed
			.replace(/\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]/g, "")
			// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
			.replace(/[\u0000-\u001f\u007f-\u009f]/g, "")
	);
}

const segmenter = new Intl.Segmenter();
/** Zero-width: combining marks, format characters, variation selectors. */
const ZERO_WIDTH = /^(?:\p{Mn}|\p{Me}|\p{Cf}|[\uFE00-\uFE0F])+$/u;
/** East Asian wide and fullwidth ranges, and emoji presentation. */
const WIDE =
	/[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1F64F}\u{1F900}-\u{1F9FF}\u{20000}-\u{3FFFD}]|\p{Extended_Pictographic}\uFE0F?/u;

function graphemeWidth(grapheme: string): number {
	if (ZERO_WIDTH.test(grapheme)) return 0;
	return WIDE.test(grapheme) ? 2 : 1;
}

export function displayWidth(text: string): number {
	let width = 0;
	for (const { segment } of segmenter.segment(text)) width += graphemeWidth(segment);
	return width;
}

/** The longest prefix of whole graphemes within `columns`. */
export function fitWidth(text: string, columns: number): string {
	let width = 0;
	let out = "";
	for (const { segment } of segmenter.segment(text)) {
		const w = graphemeWidth(segment);
		if (width + w > columns) break;
		width += w;
		out += segment;
	}
	return out;
}

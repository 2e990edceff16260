/**
 * Drawing pi's TUI components away from a terminal: the chamber runs extension renderers and `ctx.ui.custom`
 * components on the daemon and sends their lines to the browser.
 *
 * The daemon draws with a *token theme*: every theme token gets its own colour code, so the lines say which token
 * coloured each span rather than which colour, and the browser maps tokens to pi's dark or light palette
 * (`tuiPalettes`). One drawing then serves both palettes. pi's components read the process-wide theme, so the daemon
 * installs the token theme once (`installTokenTheme`) and never draws for a real terminal.
 */
import type { EntryRenderer, KeybindingsManager, Theme, ToolRenderers } from "@earendil-works/pi-coding-agent";
import type { Component } from "@earendil-works/pi-tui";
import { Findings, loadForCheck, type PiRoots, piModule, type Seam } from "./seam.js";

/** pi's theme tokens (`THEME_TOKENS`), foreground and background, in pi's order. */
export interface ThemeTokenNames {
	foreground: readonly string[];
	background: readonly string[];
}

/**
 * How a token theme writes token `i`: 24-bit colour (1, i, 254) for a foreground and (1, i, 253) for a background.
 * Colours that close to black are not what a theme or an extension picks; `tokenOfRgb` reads them back.
 */
export const TOKEN_MARK = { red: 1, foreground: 254, background: 253 } as const;

interface ThemeModule {
	Theme: new (
		fg: Record<string, string>,
		bg: Record<string, string>,
		mode: "truecolor",
		options?: { name?: string; appearance?: "dark" | "light" },
	) => Theme;
	setThemeInstance(theme: Theme): void;
	getResolvedThemeColors(name?: string): Record<string, string>;
}
interface TokensModule {
	THEME_TOKENS: Record<string, { slot: "foreground" | "background" }>;
}
interface CustomEntryModule {
	CustomEntryComponent: new (
		entry: unknown,
		renderer: EntryRenderer,
		outputPad?: number,
	) => Component & { hasContent(): boolean; setExpanded(expanded: boolean): void };
}
interface RenderersModule {
	withBuiltInRenderers(name: string, definition: ToolRenderers | undefined): ToolRenderers | undefined;
}
interface KeybindingsModule {
	KeybindingsManager: { create(agentDir?: string): KeybindingsManager };
}

const PATHS = {
	theme: "dist/modes/interactive/theme/theme.js",
	tokens: "dist/modes/interactive/theme/theme-tokens.js",
	customEntry: "dist/modes/interactive/components/custom-entry.js",
	renderers: "dist/core/tools/renderers/index.js",
	keybindings: "dist/core/keybindings.js",
} as const;

function hex(n: number): string {
	return n.toString(16).padStart(2, "0");
}

/** The token names of pi's theme, by slot. */
export async function themeTokenNames(): Promise<ThemeTokenNames> {
	const { THEME_TOKENS } = await piModule<TokensModule>(PATHS.tokens);
	const entries = Object.entries(THEME_TOKENS);
	return {
		foreground: entries.filter(([, d]) => d.slot === "foreground").map(([name]) => name),
		background: entries.filter(([, d]) => d.slot === "background").map(([name]) => name),
	};
}

/** The token theme and the names it encodes, by slot. */
export interface TokenTheme {
	theme: Theme;
	tokens: ThemeTokenNames;
}

let installed: Promise<TokenTheme> | undefined;

/** Makes the process's theme the token theme (once), and gives it with the token names it encodes. */
export function installTokenTheme(): Promise<TokenTheme> {
	installed ??= (async () => {
		const names = await themeTokenNames();
		const { Theme, setThemeInstance } = await piModule<ThemeModule>(PATHS.theme);
		const code = (i: number, slot: number) => `#${hex(TOKEN_MARK.red)}${hex(i)}${hex(slot)}`;
		const fg = Object.fromEntries(names.foreground.map((name, i) => [name, code(i, TOKEN_MARK.foreground)]));
		const bg = Object.fromEntries(names.background.map((name, i) => [name, code(i, TOKEN_MARK.background)]));
		const theme = new Theme(fg, bg, "truecolor", { name: "pier-tokens", appearance: "dark" });
		setThemeInstance(theme);
		return { theme, tokens: names };
	})();
	return installed;
}

/** pi's own dark and light themes, token by token (`#rrggbb`), for the browser to colour the token theme's lines. */
export async function tuiPalettes(): Promise<{ dark: Record<string, string>; light: Record<string, string> }> {
	const { getResolvedThemeColors } = await piModule<ThemeModule>(PATHS.theme);
	return { dark: getResolvedThemeColors("dark"), light: getResolvedThemeColors("light") };
}

/** pi's component for a custom entry its extension renders (pi exports it only to its own interactive mode). */
export async function customEntryComponent(
	entry: unknown,
	renderer: EntryRenderer,
	outputPad: number,
): Promise<Component & { hasContent(): boolean; setExpanded(expanded: boolean): void }> {
	const { CustomEntryComponent } = await piModule<CustomEntryModule>(PATHS.customEntry);
	return new CustomEntryComponent(entry, renderer, outputPad);
}

/** A tool's renderers with pi's built-in ones filled in where the definition has none, as pi's terminal does. */
export async function withBuiltInToolRenderers(
	name: string,
	definition: ToolRenderers | undefined,
): Promise<ToolRenderers | undefined> {
	const { withBuiltInRenderers } = await piModule<RenderersModule>(PATHS.renderers);
	return withBuiltInRenderers(name, definition);
}

/** The user's keybindings (`keybindings.json` in the agent directory), as `ctx.ui.custom` factories receive them. */
export async function keybindingsFor(agentDir: string): Promise<KeybindingsManager> {
	const { KeybindingsManager } = await piModule<KeybindingsModule>(PATHS.keybindings);
	return KeybindingsManager.create(agentDir);
}

const id = { name: "tui-render", file: "src/pi-seams/tui-render.ts" };

export const seam: Seam = {
	...id,
	members: [
		"theme.js: Theme(fg, bg, 'truecolor'), setThemeInstance, getResolvedThemeColors('dark'|'light')",
		"theme-tokens.js: THEME_TOKENS (token → slot)",
		"components/custom-entry.js: CustomEntryComponent(entry, renderer, outputPad)",
		"core/tools/renderers/index.js: withBuiltInRenderers(name, definition)",
		"core/keybindings.js: KeybindingsManager.create(agentDir)",
	],
	async check(roots: PiRoots) {
		const findings = new Findings(id);
		const root = roots.codingAgent;
		const theme = await loadForCheck<ThemeModule>(findings, root, PATHS.theme);
		const tokens = await loadForCheck<TokensModule>(findings, root, PATHS.tokens);
		if (theme && tokens) {
			findings.fn(theme, "setThemeInstance", "theme.js export setThemeInstance", 1);
			findings.fn(theme, "getResolvedThemeColors", "theme.js export getResolvedThemeColors", 1);
			const entries = Object.entries(tokens.THEME_TOKENS ?? {});
			if (entries.length === 0) findings.add("theme-tokens.js THEME_TOKENS is missing or empty");
			else if (typeof theme.Theme === "function") {
				// A token theme must write each token as the 24-bit colour it was given.
				const fg = Object.fromEntries(
					entries.filter(([, d]) => d.slot === "foreground").map(([n], i) => [n, `#01${hex(i)}fe`]),
				);
				const bg = Object.fromEntries(
					entries.filter(([, d]) => d.slot === "background").map(([n], i) => [n, `#01${hex(i)}fd`]),
				);
				const t = new theme.Theme(fg, bg, "truecolor");
				const accent = Object.keys(fg).indexOf("accent");
				if (t.fg("accent" as never, "x") !== `\x1b[38;2;1;${accent};254mx\x1b[39m`)
					findings.add("Theme.fg no longer writes a token as its 24-bit colour (\\x1b[38;2;r;g;bm)");
				if (!theme.getResolvedThemeColors("light").accent)
					findings.add("getResolvedThemeColors('light') has no accent colour");
			} else findings.add("theme.js exports no Theme class");
		}
		const entry = await loadForCheck<CustomEntryModule>(findings, root, PATHS.customEntry);
		if (entry && typeof entry.CustomEntryComponent !== "function")
			findings.add("custom-entry.js exports no CustomEntryComponent");
		const renderers = await loadForCheck<RenderersModule>(findings, root, PATHS.renderers);
		if (renderers) findings.fn(renderers, "withBuiltInRenderers", "renderers/index.js export withBuiltInRenderers", 2);
		const keys = await loadForCheck<KeybindingsModule>(findings, root, PATHS.keybindings);
		if (keys) findings.fn(keys.KeybindingsManager, "create", "KeybindingsManager.create");
		findings.done();
	},
};

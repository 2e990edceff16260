/**
 * What an undecided project's `.pi/mcp.json` would start, shown with the trust question (terminal and chamber):
 * each server's name and its command line or URL. The file is the project's, so hostile until trusted: it is read
 * only as a regular file of bounded size, a syntax error is described without quoting it, env values, headers and
 * OAuth settings are never read out, a URL loses its user info, query and fragment, and every shown string has
 * its control and bidi characters escaped and its length bounded, so an entry cannot repaint or reorder the
 * question it is part of.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { jsonSyntaxProblem } from "./json-syntax.js";
import type { ProjectMcpPreview } from "./trust-mcp-view.js";

export type { McpServerPreview, ProjectMcpPreview } from "./trust-mcp-view.js";

export const PROJECT_MCP_FILE = ".pi/mcp.json";

/** Larger than any hand-written mcp.json; a bigger file is not read into the question. */
const MAX_BYTES = 256 * 1024;
const MAX_SERVERS = 20;
const MAX_TEXT = 240;

// C0, DEL, C1, and the invisible bidi and separator characters (as web/src/visible.ts escapes them).
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const HIDDEN = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/g;

/** A string from the project, safe to put in a terminal line or a dialog: escaped and bounded. */
function shown(text: string): string {
	const escaped = text.replace(HIDDEN, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`);
	return escaped.length > MAX_TEXT ? `${escaped.slice(0, MAX_TEXT)}…` : escaped;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
	typeof value === "object" && value !== null && !Array.isArray(value);

/** A word of a command line, quoted when a reader would otherwise misjudge where it ends. */
function word(value: unknown): string {
	const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
	return text === "" || /[\s"'\\]/.test(text) ? JSON.stringify(text) : text;
}

/** A URL without what may be a secret in it: user info, query and fragment (`?…` marks a dropped query). */
export function urlWithoutSecrets(raw: string): string {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		return "(not a valid URL)";
	}
	return `${url.protocol}//${url.host}${url.pathname}${url.search ? "?…" : ""}`;
}

/** What the entry would start, in pi's terms (pi's config.js decides; this only describes). */
function launchOf(entry: unknown): string {
	if (!isRecord(entry)) return "(not a server entry: pi reports it and starts nothing for it)";
	if (typeof entry.url === "string") return urlWithoutSecrets(entry.url);
	if (typeof entry.command === "string") {
		const args = Array.isArray(entry.args) ? entry.args : [];
		const line = [entry.command, ...args].map(word).join(" ");
		return typeof entry.cwd === "string" ? `${line} (in ${entry.cwd})` : line;
	}
	if (entry.command !== undefined || entry.url !== undefined || entry.type !== undefined)
		return "(an invalid entry: pi reports it and starts nothing for it)";
	// pi: an entry without command, url or type changes the user's own server of that name.
	return "(changes enabled/exposure of your own server of this name)";
}

/** The project's `.pi/mcp.json` as the trust question shows it; undefined when the project has none. */
export function previewProjectMcp(cwd: string): ProjectMcpPreview | undefined {
	const path = join(cwd, PROJECT_MCP_FILE);
	const stat = statSync(path, { throwIfNoEntry: false });
	if (!stat) return undefined;
	const file = PROJECT_MCP_FILE;
	const problem = (why: string): ProjectMcpPreview => ({ file, servers: [], problem: why });
	// A FIFO or device would block or never end; only a regular file is read.
	if (!stat.isFile()) return problem("it is not a regular file");
	if (stat.size > MAX_BYTES) return problem(`it is too large to show (${stat.size} bytes)`);
	let text: string;
	try {
		text = readFileSync(path, "utf8").replace(/^\uFEFF/, "");
	} catch (error) {
		return problem(`it cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch (error) {
		return problem(`it is not valid JSON (${jsonSyntaxProblem(text, error)})`);
	}
	if (!isRecord(parsed) || (parsed.mcpServers !== undefined && !isRecord(parsed.mcpServers)))
		return problem('it is not an object with an "mcpServers" object');
	const entries = Object.entries(isRecord(parsed.mcpServers) ? parsed.mcpServers : {});
	const servers = entries
		.slice(0, MAX_SERVERS)
		.map(([name, entry]) => ({ name: shown(name), launch: shown(launchOf(entry)) }));
	const more = entries.length - servers.length;
	return { file, servers, ...(more > 0 ? { more } : {}) };
}

/** The preview as lines of plain text (the terminal's question, the chamber's error message). */
export function previewLines(preview: ProjectMcpPreview): string[] {
	if (preview.problem)
		return [
			`${preview.file} is malformed: ${preview.problem}. pi would start none of its servers (it reports the file).`,
		];
	if (preview.servers.length === 0) return [`${preview.file} names no MCP servers.`];
	return [
		`${preview.file} would start these MCP servers:`,
		...preview.servers.map((s) => `  ${s.name}: ${s.launch}`),
		...(preview.more ? [`  … and ${preview.more} more`] : []),
	];
}

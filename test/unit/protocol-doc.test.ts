/**
 * docs/protocol-v1.md against the tables the code runs on: the frame schemas, the hook table the guests share,
 * the capability lists and the error codes. A name the code has and the doc lacks, or the doc lists and the
 * code does not have, fails here; so does a field, gate or answer the doc's row leaves out.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { HOOKS } from "../../kit/core/hook-table.mjs";
import { ERROR_CODES } from "../../src/extensions/host/errors.js";
import { HOOK_NAME_LIST } from "../../src/extensions/host/hooks.js";
import { CAPABILITIES, UI_CAPABILITIES } from "../../src/extensions/protocol/capabilities.js";
import {
	ContextSnapshot,
	EXTENSION_FRAMES,
	HOST_FRAMES,
	HostRequest,
	Invocation,
	REGISTRATION_CAPABILITY,
	Registration,
	RuntimeAction,
	UI_REQUESTS,
	UiRequest,
	UiResponse,
} from "../../src/extensions/protocol/frames.js";
import { REPO_ROOT } from "../helpers/pier-cli.js";

const DOC_PATH = join(REPO_ROOT, "docs", "protocol-v1.md");
const DOC = readFileSync(DOC_PATH, "utf8");

// ── reading the doc ──────────────────────────────────────────────────────────

/** The text under the heading that contains `title`, up to the next heading of the same or a higher level. */
function section(title: string): string {
	const lines = DOC.split("\n");
	const start = lines.findIndex((l) => /^#{1,6} /.test(l) && l.includes(title));
	assert.ok(start >= 0, `${DOC_PATH} has no heading "${title}"`);
	const level = lines[start]!.match(/^#+/)![0].length;
	const end = lines.findIndex((l, i) => i > start && /^#{1,6} /.test(l) && l.match(/^#+/)![0].length <= level);
	return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

/** The cells of a table row; `\|` inside a cell is not a column break. */
const cells = (line: string) =>
	line
		.trim()
		.replace(/^\||\|$/g, "")
		.split(/(?<!\\)\|/)
		.map((c) => c.trim());

/** Every table in `text`, each as its rows of cells (the header row first, the separator row left out). */
function tables(text: string): string[][][] {
	const found: string[][][] = [];
	let current: string[][] | undefined;
	for (const line of text.split("\n")) {
		if (!line.trimStart().startsWith("|")) {
			current = undefined;
			continue;
		}
		if (/^\|[\s|:-]+\|$/.test(line.trim())) continue;
		if (!current) {
			current = [];
			found.push(current);
		}
		current.push(cells(line));
	}
	return found;
}

/** The data rows of the `index`th table of `title`'s section, by the name in their first cell. */
function rows(title: string, index = 0): Map<string, string[]> {
	const table = tables(section(title))[index];
	assert.ok(table, `${DOC_PATH} "${title}" has no table #${index + 1}`);
	const byName = new Map<string, string[]>();
	for (const row of table.slice(1)) {
		const name = firstName(row[0]!);
		assert.ok(name, `${DOC_PATH} "${title}": a row names nothing in backticks: ${row.join(" | ")}`);
		byName.set(name, row);
	}
	return byName;
}

const firstName = (cell: string) => /`([^`]+)`/.exec(cell)?.[1];
/** Every name in backticks in `text` (quotes around a string value and an optional field's `?` dropped). */
const names = (text: string) =>
	[...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/^"(.*)"$/, "$1").replace(/\?$/, ""));
/** The names in backticks and the quoted keys inside JSON written in backticks (`{"block"?:bool}`). */
const namesAndKeys = (text: string) => [
	...names(text),
	...[...text.matchAll(/`([^`]+)`/g)].flatMap((m) =>
		[...m[1]!.matchAll(/"([A-Za-z_]\w*)"\??\s*[:,}]/g)].map((k) => k[1]!),
	),
];

/** The same names, either way round: what is missing from the doc and what the doc has that the code lacks. */
function sameNames(where: string, documented: Iterable<string>, actual: Iterable<string>): void {
	const doc = new Set(documented);
	const code = new Set(actual);
	assert.deepEqual(
		{ missingFromDoc: [...code].filter((n) => !doc.has(n)), notInCode: [...doc].filter((n) => !code.has(n)) },
		{ missingFromDoc: [], notInCode: [] },
		`${DOC_PATH} ${where}`,
	);
}

/** Each of `fields` appears as a name in `cell`. */
function mentions(where: string, cell: string | undefined, fields: Iterable<string>): void {
	const said = new Set(namesAndKeys(cell ?? ""));
	const missing = [...fields].filter((f) => !said.has(f));
	assert.deepEqual(missing, [], `${DOC_PATH} ${where} does not mention ${missing.join(", ")}`);
}

// ── reading the schemas ──────────────────────────────────────────────────────

type Node = { anyOf?: Node[]; properties?: Record<string, Node>; const?: unknown };
const branches = (union: Node, tag: string) =>
	new Map((union.anyOf ?? []).map((b) => [String(b.properties![tag]!.const), b]));
const fieldsOf = (node: Node | undefined, tag: string) => Object.keys(node?.properties ?? {}).filter((k) => k !== tag);

// ── the checks ───────────────────────────────────────────────────────────────

describe("docs/protocol-v1.md lists what the wire has", () => {
	for (const [title, frames] of [
		["Host → extension", HOST_FRAMES],
		["Extension → host", EXTENSION_FRAMES],
	] as const) {
		test(`frames ${title}: every type, with its fields`, () => {
			const documented = rows(title);
			sameNames(`"${title}" frame types`, documented.keys(), Object.keys(frames));
			for (const [type, schema] of Object.entries(frames)) {
				mentions(`"${title}" row ${type}`, documented.get(type)?.[1], fieldsOf(schema as Node, "type"));
			}
		});
	}

	test("host request kinds (§4.3)", () => {
		sameNames("§4.3 request kinds", rows("4.3 Host `request`", 0).keys(), branches(HostRequest as Node, "kind").keys());
	});

	test("invocation kinds (§4.3), with their fields", () => {
		const documented = rows("4.3 Host `request`", 1);
		const code = branches(Invocation as Node, "kind");
		sameNames("§4.3 invocation kinds", documented.keys(), code.keys());
		for (const [kind, node] of code)
			mentions(`§4.3 invocation ${kind}`, documented.get(kind)?.[1], fieldsOf(node, "kind"));
	});

	test("registrations (§4.4): kinds, payload keys, fields and the capability that gates each", () => {
		const documented = rows("4.4 Extension `register`");
		const code = branches(Registration as Node, "kind");
		sameNames("§4.4 registration kinds", documented.keys(), code.keys());
		for (const [kind, node] of code) {
			const row = documented.get(kind);
			const [key] = fieldsOf(node, "kind");
			assert.equal(firstName(row?.[1] ?? ""), key, `${DOC_PATH} §4.4 ${kind}: payload key`);
			mentions(`§4.4 ${kind} fields`, row?.[2], fieldsOf(node.properties![key!], ""));
			assert.equal(
				firstName(row?.[3] ?? ""),
				REGISTRATION_CAPABILITY[kind as keyof typeof REGISTRATION_CAPABILITY],
				`${DOC_PATH} §4.4 ${kind}: gate`,
			);
		}
	});

	test("UI requests (§4.7): types, fields, the UI capability each needs and the answers it may get", () => {
		const documented = rows("4.7 Extension `request`");
		const code = branches(UiRequest as Node, "type");
		sameNames("§4.7 UI requests", documented.keys(), code.keys());
		for (const [type, node] of code) {
			const row = documented.get(type);
			const spec = UI_REQUESTS[type as keyof typeof UI_REQUESTS];
			mentions(`§4.7 ${type} fields`, row?.[1], fieldsOf(node, "type"));
			assert.equal(firstName(row?.[2] ?? ""), spec.capability, `${DOC_PATH} §4.7 ${type}: UI capability`);
			mentions(`§4.7 ${type} answers`, row?.[3]?.replace(/\{[^}]*\}/g, ""), spec.answers);
		}
		const answered = new Set([...documented.values()].flatMap((r) => names(r[3]!.replace(/\{[^}]*\}/g, ""))));
		sameNames("§4.7 UI answer types", answered, branches(UiResponse as Node, "type").keys());
	});

	test("session actions (§4.8), with their fields", () => {
		const documented = rows("4.8 Session actions");
		const code = branches(RuntimeAction as Node, "kind");
		sameNames("§4.8 session actions", documented.keys(), code.keys());
		for (const [kind, node] of code) mentions(`§4.8 ${kind}`, documented.get(kind)?.[1], fieldsOf(node, "kind"));
	});

	test("capabilities (§1.3) and UI capabilities (§1.4)", () => {
		const first = (title: string) => section(title).trim().split("\n\n")[0]!.split(".")[0]!;
		sameNames("§1.3 capabilities", names(first("1.3 Capabilities")), CAPABILITIES);
		sameNames("§1.4 UI capabilities", names(first("1.4 UI capabilities")), UI_CAPABILITIES);
	});

	test("the context snapshot (§6): every field", () => {
		sameNames(
			"§6 snapshot fields",
			rows("6. Invocation context snapshot").keys(),
			fieldsOf(ContextSnapshot as Node, ""),
		);
	});

	test("error codes (§8.4)", () => {
		sameNames("§8.4 error codes", rows("8.4 Error codes").keys(), ERROR_CODES);
	});
});

describe("docs/protocol-v1.md lists what the hook table has", () => {
	test("hook names (§7.1), each with the payload fields its producer sends", () => {
		const documented = rows("7.1 Accepted names");
		sameNames("§7.1 hooks", documented.keys(), HOOK_NAME_LIST);
		const unmentioned = HOOK_NAME_LIST.flatMap((name) => {
			const said = new Set(namesAndKeys(documented.get(name)?.[2] ?? ""));
			const missing = HOOKS[name]!.payload.filter((f) => !said.has(f));
			return missing.length > 0 ? [`${name}: ${missing.join(", ")}`] : [];
		});
		assert.deepEqual(unmentioned, [], `${DOC_PATH} §7.1: payload fields the rows do not mention`);
	});

	test("answer shapes (§7.3): a row for every hook whose answer the host checks, naming its fields", () => {
		const documented = rows("7.3 Reducer return shapes");
		const answered = HOOK_NAME_LIST.filter((n) => HOOKS[n]!.answer);
		sameNames("§7.3 hooks", documented.keys(), answered);
		for (const name of answered) {
			const answer = HOOKS[name]!.answer as Node;
			const fields = [answer, ...(answer.anyOf ?? [])].flatMap((n) => Object.keys(n.properties ?? {}));
			mentions(`§7.3 ${name}`, documented.get(name)?.[1], fields);
		}
	});
});

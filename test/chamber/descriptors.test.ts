import assert from "node:assert/strict";
import { test } from "node:test";
import {
	boundedJson,
	capStatus,
	capWidgetLines,
	isCommandName,
	sanitizeArgs,
	unwrapDescriptor,
} from "../../src/chamber/ui/text.js";
import {
	type CardAction,
	type ComponentCard,
	COMMAND_NAME,
	type FormField,
	LIMITS,
	type NormalizedCard,
	UI_PROTOCOL,
	UI_VERSION,
} from "../../src/chamber/ui/descriptors.js";
import { cardRemoval, normalizeCard } from "../../src/chamber/ui/cards.js";
import { normalizeApp } from "../../src/chamber/ui/apps.js";
import { normalizeFormFields, validateFormAnswer } from "../../src/chamber/ui/forms.js";

function card(raw: unknown): ComponentCard {
	const result = normalizeCard(raw);
	assert.ok(result, "expected a card");
	assert.equal(result.kind, "card", result.kind === "generic" ? result.reason : "");
	return result as ComponentCard;
}

function generic(raw: unknown): Extract<NormalizedCard, { kind: "generic" }> {
	const result = normalizeCard(raw);
	assert.ok(result, "expected a card");
	assert.equal(result.kind, "generic");
	return result as Extract<NormalizedCard, { kind: "generic" }>;
}

function actions(list: unknown[]): CardAction[] {
	return card({ component: "markdown", props: { body: "" }, actions: list }).actions;
}

function fields(raw: unknown): FormField[] {
	const result = normalizeFormFields(raw);
	assert.ok("fields" in result, "error" in result ? result.error : "");
	return result.fields;
}

function formError(raw: unknown): string {
	const result = normalizeFormFields(raw);
	assert.ok("error" in result, "expected an error");
	return result.error;
}

const x = (n: number): string => "x".repeat(n);

test("protocol constants", () => {
	assert.equal(UI_PROTOCOL, "pichamber-extension-ui");
	assert.equal(UI_VERSION, 1);
	assert.equal(LIMITS.messageChars, 50_000);
});

test("markdown, with the protocol marker, id, title, tone and an action", () => {
	const c = card({
		protocol: UI_PROTOCOL,
		version: 1,
		id: "notes",
		title: "Notes",
		tone: "info",
		component: "markdown",
		props: { body: "**Indexed** 12 files" },
		actions: [{ label: "Focus src", command: "explore-focus", args: "src" }],
	});
	assert.deepEqual(c, {
		kind: "card",
		id: "notes",
		title: "Notes",
		component: "markdown",
		props: { body: "**Indexed** 12 files" },
		tone: "info",
		actions: [{ label: "Focus src", command: "explore-focus", args: "src" }],
	});
});

test("kv rows keep label, value and a known tone; values are coerced to strings", () => {
	const c = card({
		component: "kv",
		props: {
			rows: [{ label: "Files", value: "12", tone: "info" }, { label: "Count", value: 3 }, { value: "no label" }],
		},
	});
	assert.deepEqual(c.props, {
		rows: [
			{ label: "Files", value: "12", tone: "info" },
			{ label: "Count", value: "3" },
		],
	});
	assert.equal(c.actions.length, 0);
});

test("list items: objects and plain strings", () => {
	const c = card({ component: "list", props: { items: [{ label: "src/", value: "42 files" }, "README.md"] } });
	assert.deepEqual(c.props, { items: [{ label: "src/", value: "42 files" }, { label: "README.md" }] });
});

test("table: cells coerced to strings and cut to the column count", () => {
	const c = card({
		component: "table",
		props: {
			columns: ["File", "Status"],
			rows: [["a.ts", "done", "extra"], ["b.ts", 42], [null, true], "not a row"],
		},
	});
	assert.deepEqual(c.props, {
		columns: ["File", "Status"],
		rows: [
			["a.ts", "done"],
			["b.ts", "42"],
			["", "true"],
		],
	});
});

test("progress: defaults, clamping and non-finite numbers", () => {
	assert.deepEqual(card({ component: "progress", props: { label: "Indexing", value: 40, max: 200 } }).props, {
		label: "Indexing",
		value: 40,
		max: 200,
	});
	assert.deepEqual(card({ component: "progress", props: { value: 40 } }).props, { value: 40, max: 100 });
	assert.deepEqual(card({ component: "progress", props: { value: 500, max: -3 } }).props, { value: 100, max: 100 });
	assert.deepEqual(card({ component: "progress", props: { value: -5, max: 10 } }).props, { value: 0, max: 10 });
	assert.deepEqual(card({ component: "progress", props: { value: 5, max: Number.POSITIVE_INFINITY } }).props, {
		value: 5,
		max: 100,
	});
	assert.match(generic({ component: "progress", props: { value: Number.NaN } }).reason, /value must be a finite/);
	assert.match(generic({ component: "progress", props: { value: "40" } }).reason, /value must be a finite/);
});

test("badges: plain strings become labels, unknown tones are dropped", () => {
	const c = card({
		component: "badges",
		props: { items: [{ label: "passing", tone: "success" }, "3 skipped", { label: "odd", tone: "purple" }] },
	});
	assert.deepEqual(c.props, {
		items: [{ label: "passing", tone: "success" }, { label: "3 skipped" }, { label: "odd" }],
	});
});

test("code with and without a language", () => {
	assert.deepEqual(card({ component: "code", props: { language: "ts", code: "const x = 1;" } }).props, {
		code: "const x = 1;",
		language: "ts",
	});
	assert.deepEqual(card({ component: "code", props: { code: "" } }).props, { code: "" });
});

test("a card tone outside the five is dropped", () => {
	const c = card({ component: "markdown", props: { body: "x" }, tone: "loud" });
	assert.equal("tone" in c, false);
});

test("generic fallback: version 2, foreign protocol, unknown component, missing component", () => {
	const v2 = generic({ version: 2, id: "p", title: "T", component: "markdown", props: { body: "x" } });
	assert.equal(v2.reason, "unknown protocol version 2");
	assert.equal(v2.id, "p");
	assert.equal(v2.title, "T");
	assert.deepEqual(JSON.parse(v2.json), {
		version: 2,
		id: "p",
		title: "T",
		component: "markdown",
		props: { body: "x" },
	});
	assert.match(v2.json, /\n {2}"version": 2/);

	assert.equal(generic({ protocol: "other-ui", component: "markdown" }).reason, 'unknown protocol "other-ui"');
	assert.equal(generic({ component: "chart", props: {} }).reason, 'unknown component "chart"');
	assert.equal(
		generic({ version: "1", component: "markdown", props: { body: "x" } }).reason,
		'unknown protocol version "1"',
	);
	assert.equal(generic({ title: "nothing" }).reason, "missing component");
	assert.match(generic({ component: "table", props: { rows: [] } }).reason, /^invalid props for "table"/);
	assert.match(generic({ component: "kv", props: [] }).reason, /props must be an object/);
});

test("generic JSON is cut to messageChars", () => {
	const g = generic({ component: "chart", blob: x(LIMITS.messageChars) });
	assert.equal(g.json.length, LIMITS.messageChars);
});

test("boundedJson matches JSON.stringify on ordinary values and stops at its budget", () => {
	const value = {
		a: 1,
		b: [1, "two", null, undefined, () => 0, { c: true }],
		d: {},
		e: [],
		f: undefined,
		g: new Date(0),
		h: Number.NaN,
		'k"ey': "va\nlue",
	};
	assert.equal(boundedJson(value, 10_000, "  "), JSON.stringify(value, null, 2));
	assert.equal(boundedJson(value, 10_000), JSON.stringify(value));
	assert.equal(boundedJson(10n, 100), '"10"');
	assert.equal(boundedJson(value, 5), JSON.stringify(value).slice(0, 5));
	// Shared sub-objects would make JSON.stringify exponential; the budget keeps this instant.
	let shared: unknown = { leaf: true };
	for (let i = 0; i < 60; i++) shared = { left: shared, right: shared };
	assert.equal(boundedJson(shared, 1000, "  ").length, 1000);
});

test("a component-less descriptor with text or actions is a markdown card", () => {
	assert.deepEqual(card({ title: "Hi", text: "hello" }).props, { body: "hello" });
	const c = card({ actions: [{ label: "Go", command: "go" }] });
	assert.deepEqual(c.props, { body: "" });
	assert.equal(c.actions.length, 1);
});

test("normalizeCard is undefined only for non-objects", () => {
	for (const raw of [null, undefined, 1, "x", [], [{ component: "markdown" }], new Date(), new Map()]) {
		assert.equal(normalizeCard(raw), undefined);
	}
});

test("removal", () => {
	assert.deepEqual(cardRemoval({ id: "subagents", removed: true }), { id: "subagents" });
	assert.deepEqual(cardRemoval({ id: x(129), removed: true }), { id: x(128) });
	assert.equal(cardRemoval({ id: "subagents", removed: "yes" }), undefined);
	assert.equal(cardRemoval({ removed: true }), undefined);
	assert.equal(cardRemoval({ id: "", removed: true }), undefined);
	assert.equal(cardRemoval(null), undefined);
	assert.equal(cardRemoval({ id: "subagents", component: "markdown", props: { body: "x" } }), undefined);
});

test("unwrapDescriptor accepts data or data.ui", () => {
	const inner = { component: "markdown", props: { body: "x" } };
	assert.equal(unwrapDescriptor({ ui: inner }), inner);
	const flat = { ...inner };
	assert.equal(unwrapDescriptor(flat), flat);
	const notObject = { ui: "text" };
	assert.equal(unwrapDescriptor(notObject), notObject);
	assert.equal(unwrapDescriptor(null), null);
});

test("limit: id 128 kept, 129 cut", () => {
	assert.equal(card({ id: x(128), component: "markdown", props: { body: "" } }).id, x(128));
	assert.equal(card({ id: x(129), component: "markdown", props: { body: "" } }).id, x(128));
	assert.equal(generic({ id: x(129), component: "chart" }).id, x(128));
});

test("limit: title 256 kept, 257 cut", () => {
	assert.equal(card({ title: x(256), component: "markdown", props: { body: "" } }).title, x(256));
	assert.equal(card({ title: x(257), component: "markdown", props: { body: "" } }).title, x(256));
});

test("cutting never leaves half a surrogate pair", () => {
	const title = `${x(255)}😀`;
	assert.equal(card({ title, component: "markdown", props: { body: "" } }).title, x(255));
});

test("limit: 8 actions kept, the 9th dropped", () => {
	const make = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `A${i}`, command: `cmd-${i}` }));
	assert.equal(actions(make(8)).length, 8);
	const nine = actions(make(9));
	assert.equal(nine.length, 8);
	assert.equal(nine.at(-1)?.command, "cmd-7");
});

test("an invalid action among the first 8 does not let the 9th in", () => {
	const list: unknown[] = Array.from({ length: 9 }, (_, i) => ({ label: `A${i}`, command: `cmd-${i}` }));
	list[2] = { label: "bad", command: "../x" };
	const kept = actions(list);
	assert.equal(kept.length, 7);
	assert.equal(
		kept.some((a) => a.command === "cmd-8"),
		false,
	);
});

test("action commands must be command names", () => {
	const kept = actions([
		{ label: "ok", command: "ns:do_it-1" },
		{ label: "slash", command: "/go" },
		{ label: "path", command: "a/b" },
		{ label: "dot", command: "../x" },
		{ label: "dash", command: "-x" },
		{ label: "empty", command: "" },
		{ label: "number", command: 5 },
		{ command: "no-label" },
		{ label: "", command: "empty-label" },
		"not an object",
	]);
	assert.deepEqual(
		kept.map((a) => a.command),
		["ns:do_it-1"],
	);
});

test("limit: action label 128 kept, 129 cut", () => {
	assert.equal(actions([{ label: x(128), command: "c" }])[0]?.label, x(128));
	assert.equal(actions([{ label: x(129), command: "c" }])[0]?.label, x(128));
});

test("limit: action icon 64 kept, 65 and non-sprite names dropped", () => {
	const icon = (value: unknown) => actions([{ label: "L", command: "c", icon: value }])[0]?.icon;
	assert.equal(icon("a".repeat(64)), "a".repeat(64));
	assert.equal(icon("a".repeat(65)), undefined);
	assert.equal(icon("arrow-right-2"), "arrow-right-2");
	assert.equal(icon("Arrow"), undefined);
	assert.equal(icon("a b"), undefined);
	assert.equal(icon("<svg>"), undefined);
	assert.equal(icon(""), undefined);
});

test("limit: action confirm 500 kept, 501 cut; true gets a default text", () => {
	const confirm = (value: unknown) => actions([{ label: "L", command: "c", confirm: value }])[0]?.confirm;
	assert.equal(confirm(x(500)), x(500));
	assert.equal(confirm(x(501)), x(500));
	assert.equal(confirm(true), "Are you sure?");
	assert.equal(confirm(false), undefined);
	assert.equal(confirm(""), undefined);
});

test("limit: action args 2000 kept, 2001 cut, control characters replaced", () => {
	const args = (value: unknown) => actions([{ label: "L", command: "c", args: value }])[0]?.args;
	assert.equal(args(x(2000)), x(2000));
	assert.equal(args(x(2001)), x(2000));
	assert.equal(args("a\nb"), "a b");
	assert.equal(args(42), undefined);
	assert.equal(args("\n\t"), undefined);
});

test("action variants, flags and promptForArgs", () => {
	const [a, b, c] = actions([
		{
			label: "Go",
			command: "go",
			variant: "danger",
			disabled: true,
			loading: true,
			promptForArgs: { label: "Dir", placeholder: x(300) },
		},
		{ label: "Old", command: "old", variant: "outline", disabled: "yes", promptForArgs: true },
		{ label: "Odd", command: "odd", variant: "sparkly", promptForArgs: "no" },
	]);
	assert.deepEqual(a, {
		label: "Go",
		command: "go",
		variant: "danger",
		disabled: true,
		loading: true,
		promptForArgs: { label: "Dir", placeholder: x(256) },
	});
	assert.deepEqual(b, { label: "Old", command: "old", variant: "secondary", promptForArgs: {} });
	assert.deepEqual(c, { label: "Odd", command: "odd" });
});

test("limit: 24 badges kept, the 25th dropped", () => {
	const items = (n: number) => Array.from({ length: n }, (_, i) => `b${i}`);
	const count = (n: number) => {
		const c = card({ component: "badges", props: { items: items(n) } });
		assert.equal(c.component, "badges");
		return c.component === "badges" ? c.props.items.length : -1;
	};
	assert.equal(count(24), 24);
	assert.equal(count(25), 24);
});

test("limit: 200 table rows kept, the 201st dropped; 24 columns", () => {
	const rows = (n: number) => Array.from({ length: n }, (_, i) => [`r${i}`]);
	const table = (props: unknown) => {
		const c = card({ component: "table", props });
		assert.equal(c.component, "table");
		return c.component === "table" ? c.props : { columns: [], rows: [] };
	};
	assert.equal(table({ columns: ["A"], rows: rows(200) }).rows.length, 200);
	assert.equal(table({ columns: ["A"], rows: rows(201) }).rows.length, 200);
	const columns = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);
	assert.equal(table({ columns: columns(24), rows: [] }).columns.length, 24);
	const wide = table({ columns: columns(25), rows: [columns(25)] });
	assert.equal(wide.columns.length, 24);
	assert.equal(wide.rows[0]?.length, 24);
});

test("limit: kv rows and list items 200/201", () => {
	const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `l${i}`, value: "v" }));
	const kv = card({ component: "kv", props: { rows: rows(201) } });
	assert.equal(kv.component === "kv" && kv.props.rows.length, 200);
	const kv200 = card({ component: "kv", props: { rows: rows(200) } });
	assert.equal(kv200.component === "kv" && kv200.props.rows.length, 200);
	const list = card({ component: "list", props: { items: rows(201) } });
	assert.equal(list.component === "list" && list.props.items.length, 200);
});

test("limit: string bodies 50,000 kept, 50,001 cut", () => {
	const body = (n: number) => card({ component: "markdown", props: { body: x(n) } });
	const at = body(LIMITS.messageChars);
	assert.equal(at.component === "markdown" && at.props.body.length, LIMITS.messageChars);
	const past = body(LIMITS.messageChars + 1);
	assert.equal(past.component === "markdown" && past.props.body.length, LIMITS.messageChars);
	const code = card({ component: "code", props: { code: x(LIMITS.messageChars + 1) } });
	assert.equal(code.component === "code" && code.props.code.length, LIMITS.messageChars);
	const cell = card({ component: "table", props: { columns: ["A"], rows: [[x(LIMITS.messageChars + 1)]] } });
	assert.equal(cell.component === "table" && cell.props.rows[0]?.[0]?.length, LIMITS.messageChars);
});

test("apps: happy path, id fallback, removal", () => {
	assert.deepEqual(
		normalizeApp({ protocol: UI_PROTOCOL, version: 1, appId: "board", title: "Kanban", html: "<button>x</button>" }),
		{ app: { appId: "board", title: "Kanban", html: "<button>x</button>" } },
	);
	assert.deepEqual(normalizeApp({ id: "board.v2", html: "<p>" }), { app: { appId: "board.v2", html: "<p>" } });
	assert.deepEqual(normalizeApp({ appId: "board", removed: true }), { removed: "board" });
	assert.deepEqual(normalizeApp({ appId: "board", html: "" }), { removed: "board" });
});

test("apps: errors", () => {
	const error = (raw: unknown) => {
		const result = normalizeApp(raw);
		assert.ok("error" in result, JSON.stringify(result));
		return result.error;
	};
	assert.match(error(null), /must be an object/);
	assert.match(error({ html: "<p>" }), /needs an appId/);
	assert.match(error({ appId: "../etc", html: "<p>" }), /invalid appId/);
	assert.match(error({ appId: "a b", html: "<p>" }), /invalid appId/);
	assert.match(error({ appId: "a\nb", html: "<p>" }), /invalid appId/);
	assert.match(error({ appId: x(129), html: "<p>" }), /invalid appId/);
	assert.match(error({ appId: "board" }), /needs an html string/);
	assert.match(error({ appId: "board", html: "<p>", version: 2 }), /unknown protocol version 2/);
	assert.match(error({ appId: "board", html: "<p>", protocol: "x" }), /unknown protocol "x"/);
	assert.ok("app" in normalizeApp({ appId: x(128), html: "<p>" }));
});

test("limit: app html 200,000 kept, 200,001 refused", () => {
	const at = normalizeApp({ appId: "big", html: x(LIMITS.appHtmlChars) });
	assert.ok("app" in at);
	assert.equal(at.app.html.length, LIMITS.appHtmlChars);
	const past = normalizeApp({ appId: "big", html: x(LIMITS.appHtmlChars + 1) });
	assert.ok("error" in past);
	assert.match(past.error, /200000/);
});

test("form fields: normalized", () => {
	assert.deepEqual(
		fields([
			{ id: "name", label: "Name", type: "text", required: true },
			{ id: "task", label: "Task", type: "textarea", placeholder: "what" },
			{ id: "priority", label: "Priority", type: "select", options: ["low", "high"], initial: "normal" },
			{ id: "dryRun", label: "Dry run", type: "checkbox", initial: true },
			{ id: "n", label: "N", type: "number", min: 1, max: 5, initial: "3" },
			{ id: "plain", label: "Plain" },
		]),
		[
			{ id: "name", label: "Name", type: "text", required: true },
			{ id: "task", label: "Task", type: "textarea", placeholder: "what" },
			{ id: "priority", label: "Priority", type: "select", options: ["low", "high"] },
			{ id: "dryRun", label: "Dry run", type: "checkbox", initial: "true" },
			{ id: "n", label: "N", type: "number", min: 1, max: 5, initial: "3" },
			{ id: "plain", label: "Plain", type: "text" },
		],
	);
	assert.deepEqual(fields([]), []);
});

test("limit: 12 form fields accepted, 13 refused", () => {
	const make = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `f${i}`, label: `F${i}` }));
	assert.equal(fields(make(12)).length, 12);
	assert.match(formError(make(13)), /at most 12 fields/);
});

test("limit: 20 select options accepted, 21 refused", () => {
	const select = (n: number) => [
		{ id: "s", label: "S", type: "select", options: Array.from({ length: n }, (_, i) => `o${i}`) },
	];
	assert.equal(fields(select(20))[0]?.options?.length, 20);
	assert.match(formError(select(21)), /21 options; the limit is 20/);
});

test("form fields: errors name the problem", () => {
	assert.match(formError("nope"), /must be an array/);
	assert.match(formError([null]), /field 1 must be an object/);
	assert.match(formError([{ label: "x" }]), /field 1 needs an id/);
	assert.match(formError([{ id: "a" }]), /field "a" needs a label/);
	assert.match(formError([{ id: "a", label: "A", type: "date" }]), /field "a" has unknown type "date"/);
	assert.match(
		formError([
			{ id: "a", label: "A" },
			{ id: "a", label: "B" },
		]),
		/duplicate field id "a"/,
	);
	assert.match(formError([{ id: "s", label: "S", type: "select" }]), /needs options/);
	assert.match(formError([{ id: "s", label: "S", type: "select", options: ["a", 1] }]), /must be a string/);
	assert.match(formError([{ id: "n", label: "N", type: "number", min: 5, max: 1 }]), /min is greater than max/);
	assert.match(formError([{ id: "n", label: "N", type: "number", min: "1" }]), /min must be a finite number/);
	assert.match(formError([{ id: x(129), label: "L" }]), /longer than 128/);
	assert.equal(fields([{ id: x(128), label: "L" }])[0]?.id, x(128));
});

const FORM: FormField[] = [
	{ id: "name", label: "Name", type: "text", required: true },
	{ id: "count", label: "Count", type: "number", min: 1, max: 10 },
	{ id: "level", label: "Level", type: "select", options: ["low", "high"] },
	{ id: "dry", label: "Dry", type: "checkbox" },
];

test("form answers: valid", () => {
	assert.deepEqual(validateFormAnswer(FORM, { name: "a", count: "10", level: "high", dry: "false" }), {
		ok: true,
		values: { name: "a", count: "10", level: "high", dry: "false" },
	});
	assert.deepEqual(validateFormAnswer(FORM, { name: "a", count: "" }), { ok: true, values: { name: "a", count: "" } });
	assert.deepEqual(validateFormAnswer(FORM, { name: "a", count: "1.5e0" }), {
		ok: true,
		values: { name: "a", count: "1.5e0" },
	});
});

function answerError(values: unknown, form: FormField[] = FORM): string {
	const result = validateFormAnswer(form, values);
	assert.equal(result.ok, false);
	return result.ok ? "" : result.error;
}

test("form answers: errors name the field", () => {
	assert.match(answerError({ name: "a", extra: "x" }), /unknown field "extra"/);
	assert.match(answerError({}), /field "name" is required/);
	assert.match(answerError({ name: "" }), /field "name" is required/);
	assert.match(answerError({ name: 5 }), /field "name" must be a string/);
	assert.match(answerError({ name: "a", count: "0" }), /field "count" must be at least 1/);
	assert.match(answerError({ name: "a", count: "11" }), /field "count" must be at most 10/);
	assert.match(answerError({ name: "a", count: "NaN" }), /field "count" must be a number/);
	assert.match(answerError({ name: "a", count: "0x5" }), /field "count" must be a number/);
	assert.match(answerError({ name: "a", count: "Infinity" }), /field "count" must be a number/);
	assert.match(answerError({ name: "a", level: "medium" }), /field "level" must be one of its options/);
	assert.match(answerError({ name: "a", dry: "yes" }), /field "dry" must be "true" or "false"/);
	assert.match(answerError({ name: x(LIMITS.formValueChars + 1) }), /field "name" is longer/);
	assert.match(answerError(["a"]), /values must be an object/);
	assert.match(answerError(null), /values must be an object/);
});

test("form answers: a field named __proto__ is an ordinary key", () => {
	const form = fields([{ id: "__proto__", label: "P" }]);
	const values = JSON.parse('{"__proto__":"x"}');
	const result = validateFormAnswer(form, values);
	assert.ok(result.ok);
	assert.equal(Object.getOwnPropertyDescriptor(result.values, "__proto__")?.value, "x");
	assert.equal(Object.getPrototypeOf(result.values), Object.prototype);
	// An object without that own key has not answered it, whatever its prototype says.
	assert.deepEqual(validateFormAnswer(form, {}), { ok: true, values: {} });
});

test("command names", () => {
	assert.equal(isCommandName("explore-focus"), true);
	assert.equal(isCommandName("ns:sub_cmd-2"), true);
	assert.equal(isCommandName("9lives"), true);
	assert.equal(isCommandName(`a${x(127)}`), true);
	assert.equal(isCommandName(`a${x(128)}`), false);
	assert.equal(isCommandName("../x"), false);
	assert.equal(isCommandName("a/b"), false);
	assert.equal(isCommandName("-x"), false);
	assert.equal(isCommandName(""), false);
	assert.equal(isCommandName("a b"), false);
	assert.equal(isCommandName("a\n"), false);
	assert.equal(isCommandName(5), false);
	assert.equal(COMMAND_NAME.test("ok"), COMMAND_NAME.test("ok"), "no lastIndex state");
});

test("sanitizeArgs replaces C0, DEL and C1 characters, trims and cuts", () => {
	assert.equal(sanitizeArgs("a\u0000b\u001fc\u007fd\u0085e\u009ff"), "a b c d e f");
	assert.equal(sanitizeArgs("one\ntwo\r\nthree\tfour"), "one two  three four");
	assert.equal(sanitizeArgs("\u001b[31mred"), "[31mred");
	assert.equal(sanitizeArgs("  src  "), "src");
	assert.equal(sanitizeArgs("héllo ☃ 😀"), "héllo ☃ 😀");
	assert.equal(sanitizeArgs(x(2000)), x(2000));
	assert.equal(sanitizeArgs(x(2001)), x(2000));
	assert.equal(sanitizeArgs(undefined), undefined);
	assert.equal(sanitizeArgs(12), undefined);
	assert.equal(sanitizeArgs(""), "");
});

test("limit: status 1000 kept, 1001 cut", () => {
	assert.equal(capStatus(x(1000)), x(1000));
	assert.equal(capStatus(x(1001)), x(1000));
	assert.equal(capStatus(undefined as unknown as string), "");
});

test("limit: widget 100 lines kept, 101st dropped; lines 2000 kept, 2001 cut", () => {
	const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i}`);
	assert.equal(capWidgetLines(lines(100)).length, 100);
	assert.equal(capWidgetLines(lines(101)).length, 100);
	assert.deepEqual(capWidgetLines([x(2000), x(2001)]), [x(2000), x(2000)]);
	assert.deepEqual(capWidgetLines([1, true]), ["1", "true"]);
	assert.deepEqual(capWidgetLines("not lines"), []);
	assert.deepEqual(capWidgetLines(null), []);
});

test("hostile inputs never throw", () => {
	const cyclic: Record<string, unknown> = { component: "chart" };
	cyclic.self = cyclic;
	let deep: unknown = { component: "markdown", props: { body: "x" } };
	for (let i = 0; i < 100_000; i++) deep = { ui: deep, child: deep };
	let deepArray: unknown = [];
	for (let i = 0; i < 100_000; i++) deepArray = [deepArray];
	const throwing = {
		get component(): string {
			throw new Error("boom");
		},
	};
	const proxy = new Proxy(
		{},
		{
			get() {
				throw new Error("trap");
			},
			getOwnPropertyDescriptor() {
				throw new Error("trap");
			},
			ownKeys() {
				throw new Error("trap");
			},
		},
	);
	const inherited = { __proto__: { component: "markdown", props: { body: "inherited" } } };
	const hostile: unknown[] = [
		null,
		undefined,
		0,
		-0,
		Number.NaN,
		"",
		"x",
		[],
		[1, 2, 3],
		{},
		cyclic,
		deep,
		{ component: "chart", deep: deepArray },
		{ component: "table", props: { columns: [cyclic, 10n, Symbol("s")], rows: [[cyclic, 10n, Symbol("s")]] } },
		throwing,
		proxy,
		inherited,
		JSON.parse('{"__proto__":{"component":"markdown"},"component":"badges","props":{"items":["a"]}}'),
		{ component: "markdown", props: { body: x(5_000_000) } },
		{ component: "progress", props: { value: "40", max: "100" } },
		{ component: "table", props: { columns: "A", rows: "B" } },
		{ component: "kv", props: { rows: [null, [], "str", { label: {} }] } },
		{ component: "badges", props: { items: [null, {}, [], 5, ""] }, actions: "nope" },
		{ component: "markdown", props: { body: "x" }, actions: [null, [], { label: {}, command: {} }] },
		{ id: {}, title: [], version: {}, component: "markdown", props: { body: "x" } },
		{ protocol: null, version: null, component: "markdown", props: { body: "x" } },
		{ component: 10n, x: 10n },
	];
	for (const raw of hostile) {
		const result = normalizeCard(raw);
		if (result !== undefined) assert.ok(result.kind === "card" || result.kind === "generic");
		if (result?.kind === "generic") assert.ok(result.json.length <= LIMITS.messageChars);
		cardRemoval(raw);
		normalizeApp(raw);
		normalizeFormFields(raw);
		normalizeFormFields([raw]);
		validateFormAnswer(FORM, raw);
		validateFormAnswer(raw as FormField[], raw);
		sanitizeArgs(raw);
		capWidgetLines(raw);
		capWidgetLines([raw]);
		unwrapDescriptor(raw);
		isCommandName(raw);
	}
	assert.equal(generic(cyclic).reason, 'unknown component "chart"');
	assert.match(generic(cyclic).json, /\[Circular\]/);
	assert.equal(generic(throwing).reason, "unreadable descriptor");
	assert.equal(generic(inherited).reason, "missing component");
	assert.equal(card(hostile[17]).component, "badges");
	assert.match(generic({ protocol: "x", deep: deepArray }).json, /"\[…\]"/);
	assert.ok(generic(deep).json.length <= LIMITS.messageChars);
	assert.equal(card({ protocol: null, version: null, component: "markdown", props: { body: "x" } }).kind, "card");
});

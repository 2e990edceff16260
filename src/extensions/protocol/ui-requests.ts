/** Protocol v1 UI requests (extension → host, under a `ui` runtime request) and the host's answers. */
import { type Static, Type } from "typebox";
import { FORM_FIELD_TYPES, FORM_LIMITS } from "../../../kit/core/form.mjs";
import type { UiCapability } from "./capabilities.js";
import { OverlayInputDeclaration } from "./registrations.js";
import { closed, literals, Opt, tagged } from "./schema-kit.js";

export const SelectOption = closed({ value: Type.String(), label: Type.String(), description: Opt(Type.String()) });
export type SelectOption = Static<typeof SelectOption>;
const OverlayRow = Type.Union([Type.String(), closed({ text: Type.String(), style: Opt(Type.String()) })]);

/**
 * pier addition: one field of a `form` request, PiChamber's `FormField` (src/chamber/ui/descriptors.ts). The
 * schema fixes the shape only; the host's form normalization stays authoritative (empty ids or labels, duplicate
 * ids, select options, min/max, text lengths) and refuses a bad form with `ui_request_failed`.
 */
export { FORM_FIELD_TYPES };
/** The form rules are kit/core/form.mjs's, the guest core's own. */
export const MAX_FORM_FIELDS = FORM_LIMITS.fields;
const FormFieldSchema = closed({
	id: Type.String(),
	label: Type.String(),
	type: literals(FORM_FIELD_TYPES),
	required: Opt(Type.Boolean()),
	placeholder: Opt(Type.String()),
	options: Opt(Type.Array(Type.String())),
	initial: Opt(Type.String()),
	min: Opt(Type.Number()),
	max: Opt(Type.Number()),
});
export type FormFieldRequest = Static<typeof FormFieldSchema>;

export const UiRequest = Type.Union([
	tagged("type", "select", { title: Type.String(), options: Type.Array(SelectOption) }),
	tagged("type", "confirm", { title: Type.String(), message: Type.String() }),
	tagged("type", "input", { title: Type.String(), placeholder: Opt(Type.String()), value: Opt(Type.String()) }),
	tagged("type", "editor", { title: Type.String(), prefill: Opt(Type.String()) }),
	tagged("type", "form", {
		title: Type.String(),
		fields: Type.Array(FormFieldSchema, { maxItems: MAX_FORM_FIELDS }),
	}),
	tagged("type", "notify", { message: Type.String(), level: literals(["info", "warning", "error"]) }),
	tagged("type", "status", { key: Type.String(), text: Opt(Type.String()) }),
	tagged("type", "widget", {
		key: Type.String(),
		lines: Opt(Type.Array(Type.String())),
		placement: literals(["above_editor", "below_editor"]),
	}),
	tagged("type", "title", { title: Type.String() }),
	tagged("type", "set_editor_text", { text: Type.String() }),
	tagged("type", "get_editor_text", {}),
	tagged("type", "paste_to_editor", { text: Type.String() }),
	tagged("type", "set_working_message", { message: Opt(Type.String()) }),
	tagged("type", "set_working_visible", { visible: Type.Boolean() }),
	tagged("type", "set_working_indicator", {
		options: Opt(closed({ frames: Opt(Type.Array(Type.String())), intervalMs: Opt(Type.Integer({ minimum: 0 })) })),
	}),
	tagged("type", "set_hidden_thinking_label", { label: Opt(Type.String()) }),
	tagged("type", "get_all_themes", {}),
	tagged("type", "get_theme", { name: Type.String() }),
	tagged("type", "set_theme", { name: Type.String() }),
	tagged("type", "get_tools_expanded", {}),
	tagged("type", "set_tools_expanded", { expanded: Type.Boolean() }),
	tagged("type", "overlay_set_rows", { id: Type.String(), rows: Type.Array(OverlayRow) }),
	tagged("type", "overlay_open", {
		id: Type.String(),
		title: Opt(Type.String()),
		nonCapturing: Opt(Type.Boolean()),
		input: Opt(OverlayInputDeclaration),
	}),
]);
export type UiRequest = Static<typeof UiRequest>;

/** The host's answer to a UI request: the `value` of its success `response` (the frames do not check it). */
const Theme = closed({ name: Type.String(), path: Opt(Type.String()) });
export const UiResponse = Type.Union([
	tagged("type", "selected", { value: Opt(Type.String()) }),
	tagged("type", "confirmed", { confirmed: Type.Boolean() }),
	tagged("type", "input", { value: Opt(Type.String()) }),
	tagged("type", "edited", { value: Opt(Type.String()) }),
	tagged("type", "form", { values: Type.Record(Type.String(), Type.String()) }),
	tagged("type", "acknowledged", {}),
	tagged("type", "cancelled", {}),
	tagged("type", "editor_text", { value: Type.String() }),
	tagged("type", "themes", { themes: Type.Array(Theme) }),
	tagged("type", "theme", { theme: Opt(Theme) }),
	tagged("type", "theme_set", { success: Type.Boolean(), error: Opt(Type.String()) }),
	tagged("type", "tools_expanded", { expanded: Type.Boolean() }),
	tagged("type", "overlay_opened", {}),
]);
export type UiResponse = Static<typeof UiResponse>;

/**
 * Per UI request: the UI capability it needs, whether it is an interactive dialog (refused where the session
 * has no UI), and the answer types it may be given (rpi's `validate_for`).
 */
export const UI_REQUESTS: Readonly<
	Record<UiRequest["type"], { capability: UiCapability; interactive?: true; answers: readonly UiResponse["type"][] }>
> = {
	select: { capability: "select", interactive: true, answers: ["selected", "cancelled"] },
	confirm: { capability: "confirm", interactive: true, answers: ["confirmed", "cancelled"] },
	input: { capability: "input", interactive: true, answers: ["input", "cancelled"] },
	editor: { capability: "editor", interactive: true, answers: ["edited", "cancelled"] },
	// pier addition: a form is a structured input.
	form: { capability: "input", interactive: true, answers: ["form", "cancelled"] },
	notify: { capability: "notify", answers: ["acknowledged"] },
	status: { capability: "status", answers: ["acknowledged"] },
	widget: { capability: "widget", answers: ["acknowledged"] },
	title: { capability: "title", answers: ["acknowledged"] },
	set_editor_text: { capability: "set_editor_text", answers: ["acknowledged"] },
	get_editor_text: { capability: "editor_text", answers: ["editor_text"] },
	paste_to_editor: { capability: "editor_text", answers: ["acknowledged"] },
	set_working_message: { capability: "working", answers: ["acknowledged"] },
	set_working_visible: { capability: "working", answers: ["acknowledged"] },
	set_working_indicator: { capability: "working", answers: ["acknowledged"] },
	set_hidden_thinking_label: { capability: "hidden_thinking", answers: ["acknowledged"] },
	get_all_themes: { capability: "theme", answers: ["themes"] },
	get_theme: { capability: "theme", answers: ["theme"] },
	set_theme: { capability: "theme", answers: ["theme_set"] },
	get_tools_expanded: { capability: "tools_expanded", answers: ["tools_expanded"] },
	set_tools_expanded: { capability: "tools_expanded", answers: ["acknowledged"] },
	overlay_set_rows: { capability: "overlay", answers: ["acknowledged"] },
	overlay_open: { capability: "overlay", answers: ["overlay_opened"] },
};

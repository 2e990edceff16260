/** Protocol UI requests → the session's pi UI (terminal, RPC client, chamber, or none). */
import type { ExtensionUIContext, ExtensionUIDialogOptions } from "@earendil-works/pi-coding-agent";
import type { UiRequest, UiResponse } from "../protocol/frames.js";

const ACK: UiResponse = { type: "acknowledged" };

/** PiChamber's `ctx.ui.form`, which only the chamber's UI context has (pi's terminal, RPC and print UIs do not). */
type FormDialog = (
	title: string,
	fields: unknown,
	opts?: ExtensionUIDialogOptions,
) => Promise<Record<string, string> | undefined>;

function formOf(ui: ExtensionUIContext): FormDialog | undefined {
	const form = (ui as { form?: unknown }).form;
	return typeof form === "function" ? (form.bind(ui) as FormDialog) : undefined;
}

/** `overlay_set_rows` and `overlay_open` need the session's overlay state (bridge/overlays.ts). */
export type OverlayAnswer = (request: Extract<UiRequest, { type: "overlay_set_rows" | "overlay_open" }>) => UiResponse;

export async function answerUi(
	ui: ExtensionUIContext,
	request: UiRequest,
	signal: AbortSignal,
	overlays?: OverlayAnswer,
): Promise<UiResponse> {
	const dialog = { signal };
	switch (request.type) {
		case "select": {
			// pi selects by label; the protocol answers with the option's value.
			const labels = request.options.map((o) => o.label);
			const picked = await ui.select(request.title, labels, dialog);
			const option = request.options.find((o) => o.label === picked);
			return option ? { type: "selected", value: option.value } : { type: "cancelled" };
		}
		case "confirm":
			return { type: "confirmed", confirmed: await ui.confirm(request.title, request.message, dialog) };
		case "input": {
			const value = await ui.input(request.title, request.placeholder, dialog);
			return value === undefined ? { type: "cancelled" } : { type: "input", value };
		}
		case "editor": {
			const value = await ui.editor(request.title, request.prefill);
			return value === undefined ? { type: "cancelled" } : { type: "edited", value };
		}
		case "form": {
			const form = formOf(ui);
			if (!form) {
				throw new Error(
					"form: ctx.ui.form needs the chamber (pier's browser UI); this session's UI has no form dialog",
				);
			}
			// The chamber normalizes the fields itself and rejects a malformed form with the reason.
			const values = await form(request.title, request.fields, dialog);
			return values === undefined ? { type: "cancelled" } : { type: "form", values };
		}
		case "notify":
			ui.notify(request.message, request.level);
			return ACK;
		case "status":
			ui.setStatus(request.key, request.text);
			return ACK;
		case "widget":
			ui.setWidget(request.key, request.lines, {
				placement: request.placement === "below_editor" ? "belowEditor" : "aboveEditor",
			});
			return ACK;
		case "title":
			ui.setTitle(request.title);
			return ACK;
		case "set_editor_text":
			ui.setEditorText(request.text);
			return ACK;
		case "get_editor_text":
			return { type: "editor_text", value: ui.getEditorText() ?? "" };
		case "paste_to_editor":
			ui.pasteToEditor(request.text);
			return ACK;
		case "set_working_message":
			ui.setWorkingMessage(request.message);
			return ACK;
		case "set_working_visible":
			ui.setWorkingVisible(request.visible);
			return ACK;
		case "set_working_indicator":
			ui.setWorkingIndicator(request.options);
			return ACK;
		case "set_hidden_thinking_label":
			ui.setHiddenThinkingLabel(request.label);
			return ACK;
		case "get_all_themes":
			return {
				type: "themes",
				themes: ui.getAllThemes().map((t) => (t.path ? { name: t.name, path: t.path } : { name: t.name })),
			};
		case "get_theme": {
			const found = ui.getAllThemes().find((t) => t.name === request.name);
			return found
				? { type: "theme", theme: found.path ? { name: found.name, path: found.path } : { name: found.name } }
				: { type: "theme" };
		}
		case "set_theme": {
			const result = ui.setTheme(request.name);
			return { type: "theme_set", success: result.success, ...(result.error ? { error: result.error } : {}) };
		}
		case "get_tools_expanded":
			return { type: "tools_expanded", expanded: ui.getToolsExpanded() };
		case "set_tools_expanded":
			ui.setToolsExpanded(request.expanded);
			return ACK;
		case "overlay_set_rows":
		case "overlay_open":
			if (!overlays) throw new Error(`${request.type}: this session shows no protocol overlays`);
			return overlays(request);
	}
}

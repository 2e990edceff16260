/**
 * An extension's dialog, as the chamber sends it (`extension.dialog`), drawn with pi's own selector and input
 * components in place of the editor. The answer goes to the daemon; whichever surface answers first wins, and the
 * other learns it from `extension.dialog.dismiss`. A form is asked one field at a time.
 */
import { ExtensionInputComponent, ExtensionSelectorComponent } from "@earendil-works/pi-coding-agent";
import type { Component, TUI } from "@earendil-works/pi-tui";
import type { DialogAnswer, DialogRequest } from "../../chamber/wire.js";
import type { FormField } from "../../chamber/ui/descriptors.js";

/** Shows one component at a time in the editor's place; `undefined` gives the editor back. */
export type ShowComponent = (component: Component | undefined) => void;

/** pi's dialog components run a countdown timer for a dialog with a timeout: it stops only when disposed. */
function disposing(show: ShowComponent): ShowComponent {
	let current: (Component & { dispose?(): void }) | undefined;
	return (component) => {
		current?.dispose?.();
		current = component;
		show(component);
	};
}

const YES = "Yes";
const NO = "No";

function remainingMs(request: DialogRequest): number | undefined {
	return request.expiresAt !== undefined ? Math.max(1, request.expiresAt - Date.now()) : undefined;
}

/**
 * Asks `request` in the terminal; resolves with the answer, or `{cancelled: true}` on Escape. `closed` resolves
 * (and the question goes away) when the dialog ended elsewhere first.
 */
export function askDialog(
	tui: TUI,
	request: DialogRequest,
	show: ShowComponent,
	closed: Promise<void>,
): Promise<DialogAnswer | undefined> {
	const showOne = disposing(show);
	return new Promise((resolve) => {
		let done = false;
		const finish = (answer: DialogAnswer | undefined) => {
			if (done) return;
			done = true;
			showOne(undefined);
			resolve(answer);
		};
		void closed.then(() => finish(undefined));
		const cancel = () => finish({ cancelled: true });
		const timeout = remainingMs(request);
		const common = { tui, ...(timeout !== undefined ? { timeout } : {}) };
		const description = request.message;
		switch (request.method) {
			case "confirm":
				showOne(
					new ExtensionSelectorComponent(
						request.title,
						[YES, NO],
						(option) => finish({ confirmed: option === YES }),
						cancel,
						{ ...common, ...(description ? { description } : {}) },
					),
				);
				return;
			case "select":
				showOne(
					new ExtensionSelectorComponent(request.title, request.options ?? [], (value) => finish({ value }), cancel, {
						...common,
						...(description ? { description } : {}),
					}),
				);
				return;
			case "input":
			case "editor":
				showOne(
					new ExtensionInputComponent(request.title, request.placeholder, (value) => finish({ value }), cancel, {
						...common,
						...(request.prefill ? { initialValue: request.prefill } : {}),
						...(description ? { description } : {}),
					}),
				);
				return;
			case "form":
				void askForm(tui, request, showOne, () => done).then((values) =>
					finish(values ? { values } : { cancelled: true }),
				);
				return;
		}
	});
}

async function askForm(
	tui: TUI,
	request: DialogRequest,
	show: ShowComponent,
	isDone: () => boolean,
): Promise<Record<string, unknown> | undefined> {
	const values: Record<string, unknown> = {};
	for (const field of request.fields ?? []) {
		if (isDone()) return undefined;
		const value = await askField(tui, `${request.title}: ${field.label}`, field, show);
		if (value === undefined) return undefined;
		values[field.id] = value;
	}
	return values;
}

function askField(tui: TUI, title: string, field: FormField, show: ShowComponent): Promise<unknown> {
	return new Promise((resolve) => {
		const cancel = () => resolve(undefined);
		if (field.type === "checkbox") {
			show(new ExtensionSelectorComponent(title, [YES, NO], (o) => resolve(o === YES), cancel, { tui }));
		} else if (field.type === "select") {
			show(new ExtensionSelectorComponent(title, field.options ?? [], (o) => resolve(o), cancel, { tui }));
		} else {
			show(
				new ExtensionInputComponent(
					title,
					field.placeholder,
					(text) => resolve(field.type === "number" ? Number(text) : text),
					cancel,
					{ tui, ...(field.initial !== undefined ? { initialValue: field.initial } : {}) },
				),
			);
		}
	});
}

/** A dialog's answer from the page, checked against the request it answers (session-ui.ts). */
import type { DialogAnswer, DialogRequest } from "../wire.js";
import type { FormField } from "./descriptors.js";
import { validateFormAnswer } from "./forms.js";

/** Checks an answer against the request that was sent: its kind, and its content. */
export function checkAnswer(request: DialogRequest, answer: DialogAnswer): string | undefined {
	switch (request.method) {
		case "select":
			if (!("value" in answer)) return "a select dialog is answered with {value}";
			return request.options?.includes(answer.value) ? undefined : `"${answer.value}" is not one of the options`;
		case "input":
		case "editor":
			return "value" in answer ? undefined : `an ${request.method} dialog is answered with {value}`;
		case "confirm":
			return "confirmed" in answer ? undefined : "a confirm dialog is answered with {confirmed}";
		case "form": {
			if (!("values" in answer)) return "a form is answered with {values}";
			const checked = validateFormAnswer(request.fields as FormField[], answer.values);
			return checked.ok ? undefined : checked.error;
		}
	}
}

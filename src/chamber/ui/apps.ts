// `pichamber.app` surfaces: an app descriptor normalized, or its removal.
import { APP_ID, type AppSurface, LIMITS } from "./descriptors.js";
import { isPlainObject, own, optString, describe, protocolMismatch } from "./text.js";

/**
 * A `pichamber.app` descriptor (already unwrapped). HTML over the limit is an error rather than cut, because cut
 * HTML is broken HTML; an empty `html` unregisters the app as PiChamber does.
 */
export function normalizeApp(raw: unknown): { app: AppSurface } | { removed: string } | { error: string } {
	try {
		if (!isPlainObject(raw)) return { error: "an app descriptor must be an object" };
		const mismatch = protocolMismatch(raw);
		if (mismatch) return { error: mismatch };
		const appIdRaw = own(raw, "appId");
		const appId = typeof appIdRaw === "string" && appIdRaw.length > 0 ? appIdRaw : own(raw, "id");
		if (typeof appId !== "string" || appId.length === 0) return { error: "an app needs an appId" };
		if (!APP_ID.test(appId)) {
			return {
				error: `invalid appId ${describe(appId)}: up to ${LIMITS.idChars} letters, digits, ".", ":", "_" or "-", starting with a letter or digit`,
			};
		}
		const html = own(raw, "html");
		if (own(raw, "removed") === true || html === "") return { removed: appId };
		if (typeof html !== "string") return { error: `app "${appId}" needs an html string` };
		if (html.length > LIMITS.appHtmlChars) {
			return {
				error: `app "${appId}" html is ${html.length} characters; the limit is ${LIMITS.appHtmlChars}`,
			};
		}
		const app: AppSurface = { appId, html };
		const title = optString(own(raw, "title"), LIMITS.titleChars);
		if (title !== undefined) app.title = title;
		return { app };
	} catch {
		return { error: "unreadable app descriptor" };
	}
}

/**
 * `ctx.ui` members that need pi's terminal (a custom footer, header or editor, a component widget, raw terminal
 * input, pi's theme files): the chamber cannot honour them, and says so once per member and extension as a warning
 * notice instead of doing nothing. They do not throw: extensions call them at start-up as an optional extra
 * (`if (ctx.hasUI) ctx.ui.setFooter(…)`) and work without.
 */

const WHAT: Record<string, string> = {
	setFooter: "a custom footer is not available in the chamber; the page keeps its own",
	setHeader: "a custom header is not available in the chamber; the page keeps its own",
	setEditorComponent:
		"a custom editor component is not available in the chamber; the page's composer stays (ctx.ui.custom components are)",
	setWidget: "a component widget is not available in the chamber; only line widgets (string[]) are",
	onTerminalInput: "raw terminal input is not available in the chamber outside a ctx.ui.custom component",
	getTheme: "pi's theme files are not available in the chamber; the page's theme is the browser's",
};

export type UnavailableMember = keyof typeof WHAT;

export class Unavailable {
	private readonly told = new Set<string>();

	constructor(
		private readonly notify: (message: string) => void,
		private readonly caller: () => string | undefined,
	) {}

	/** Tells the user (once per member and extension) what the chamber cannot do. */
	tell(member: UnavailableMember): void {
		const who = this.caller();
		const key = `${member}\0${who ?? ""}`;
		if (this.told.has(key)) return;
		this.told.add(key);
		try {
			this.notify(`ctx.ui.${member}${who ? ` (${who})` : ""}: ${WHAT[member]}`);
		} catch {
			// A notice past the session's notification rate is dropped: the member still does nothing, as said.
		}
	}
}

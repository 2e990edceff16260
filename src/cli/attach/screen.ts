/**
 * `pier attach`'s terminal: pi-tui with pi's own components, drawn from the chamber's event stream and acting
 * through the chamber's API. It holds no session of its own: every prompt, steer, answer and model change is a
 * request to the daemon, which is the one writer of the session file.
 */
import { getSelectListTheme } from "@earendil-works/pi-coding-agent";
import {
	CombinedAutocompleteProvider,
	type Component,
	Container,
	Editor,
	matchesKey,
	ProcessTerminal,
	Spacer,
	Text,
	type TUI,
	TuiMainScreen,
} from "@earendil-works/pi-tui";
import type {
	DialogRequest,
	EventEnvelope,
	EventName,
	EventPayloads,
	SessionView,
	UiState,
} from "../../chamber/wire.js";
import { PierApiError, type ChamberClient } from "./client.js";
import { askDialog } from "./dialog-view.js";
import { pickModel, pickTreeEntry } from "./pickers.js";
import { sgr } from "./style.js";
import { TranscriptView } from "./transcript-view.js";

/** What the user typed that the terminal handles itself rather than send to the chamber. */
const DETACH_COMMANDS = new Set(["/detach", "/exit", "/quit"]);

export interface AttachResult {
	/** Why the terminal closed: the user detached, or the daemon refused it. */
	reason: "detached" | "refused";
	sessionId: string;
	message?: string;
}

type Envelope = EventEnvelope<EventName>;
const payloadOf = <E extends EventName>(envelope: Envelope, _name: E) => envelope.payload as EventPayloads[E];

export class AttachScreen {
	private readonly tui: TUI;
	private readonly transcript: TranscriptView;
	private readonly editor: Editor;
	private readonly editorSlot = new Container();
	private readonly aboveEditor = new Container();
	private readonly belowEditor = new Container();
	private readonly working = new Text("", 1, 0);
	private readonly footer = new Text("", 1, 0);
	private ui: UiState = { statuses: {}, widgets: {}, panels: [], apps: [], dialogs: [] };
	private streaming = false;
	private model: string | undefined;
	private title = "";
	private stream = new AbortController();
	private finished: ((result: AttachResult) => void) | undefined;
	/** The dialog on screen and what closes it when another surface answered first. */
	private dialog: { requestId: string; close(): void } | undefined;
	private picking = false;

	constructor(
		private readonly client: ChamberClient,
		private sessionId: string,
		private readonly chamberUrl: string,
	) {
		this.tui = new TuiMainScreen(new ProcessTerminal());
		this.transcript = new TranscriptView(this.tui, process.cwd());
		this.editor = new Editor(this.tui, { borderColor: sgr.dim, selectList: getSelectListTheme() });
		this.editor.onSubmit = (text) => void this.submit(text);
		this.editorSlot.addChild(this.editor);
		for (const part of [
			this.transcript.container,
			new Spacer(1),
			this.working,
			this.aboveEditor,
			this.editorSlot,
			this.belowEditor,
			this.footer,
		])
			this.tui.addChild(part);
		this.tui.addInputListener((data) => this.onKey(data));
	}

	/** Draws the session and follows it until the user detaches or the daemon refuses the credential. */
	run(view: SessionView): Promise<AttachResult> {
		this.apply(view);
		this.tui.setFocus(this.editor);
		this.tui.start();
		const result = new Promise<AttachResult>((resolve) => {
			this.finished = resolve;
		});
		this.follow();
		return result;
	}

	private follow(): void {
		this.stream = new AbortController();
		void this.client.follow(
			this.sessionId,
			{
				event: (envelope) => this.onEvent(envelope),
				reconnecting: (reason) => this.setWorking(sgr.yellow(`reconnecting to the chamber (${reason})…`)),
				refused: (error) => this.finish({ reason: "refused", sessionId: this.sessionId, message: error.message }),
			},
			this.stream.signal,
		);
	}

	private finish(result: AttachResult): void {
		this.stream.abort();
		this.dialog?.close();
		this.tui.stop();
		this.finished?.(result);
		this.finished = undefined;
	}

	private apply(view: SessionView): void {
		this.transcript.reset(view.rows, view.session.cwd);
		this.ui = view.ui;
		this.streaming = view.streaming;
		this.model = view.model;
		this.title = view.session.name ?? view.session.firstMessage ?? view.session.id;
		this.editor.setAutocompleteProvider(
			new CombinedAutocompleteProvider(
				[
					...view.commands.map((c) => ({ name: c.name, ...(c.description ? { description: c.description } : {}) })),
					{ name: "detach", description: "leave this terminal; the session keeps running in the chamber" },
				],
				view.session.cwd,
			),
		);
		this.drawUi();
		const pending = view.ui.dialogs[0];
		if (pending && !this.dialog && !this.picking) void this.showDialog(pending);
	}

	private onEvent(envelope: Envelope): void {
		const t = this.transcript;
		switch (envelope.event) {
			case "session.snapshot":
				this.apply(payloadOf(envelope, "session.snapshot"));
				break;
			case "session.branch":
				void this.client.view(this.sessionId).then(
					(view) => this.apply(view),
					() => {},
				);
				break;
			case "session.replaced":
				this.stream.abort();
				this.sessionId = payloadOf(envelope, "session.replaced").id;
				this.follow();
				break;
			case "session.state":
				this.streaming = payloadOf(envelope, "session.state").streaming;
				break;
			case "session.model":
				this.model = payloadOf(envelope, "session.model").model;
				break;
			case "session.info": {
				const session = payloadOf(envelope, "session.info").session;
				this.title = session.name ?? session.firstMessage ?? session.id;
				break;
			}
			case "agent.start":
				this.streaming = true;
				break;
			case "agent.end":
				this.streaming = false;
				break;
			case "message.start":
				t.messageStart(payloadOf(envelope, "message.start").draftId);
				break;
			case "message.delta":
				t.messageDelta(payloadOf(envelope, "message.delta"));
				break;
			case "tool.start":
				t.toolStart(payloadOf(envelope, "tool.start"));
				break;
			case "tool.update":
				t.toolUpdate(payloadOf(envelope, "tool.update"));
				break;
			case "tool.end":
				t.toolEnd(payloadOf(envelope, "tool.end"));
				break;
			case "bash.start":
				t.bashStart(payloadOf(envelope, "bash.start"));
				break;
			case "bash.update":
				t.bashUpdate(payloadOf(envelope, "bash.update"));
				break;
			case "bash.end":
				t.bashEnd(payloadOf(envelope, "bash.end"));
				break;
			case "transcript.row": {
				const { row, draftId } = payloadOf(envelope, "transcript.row");
				t.addRow(row, draftId);
				break;
			}
			case "extension.status": {
				const { key, text } = payloadOf(envelope, "extension.status");
				if (text === undefined) delete this.ui.statuses[key];
				else this.ui.statuses[key] = text;
				break;
			}
			case "extension.widget": {
				const { key, lines, placement } = payloadOf(envelope, "extension.widget");
				if (lines === undefined) delete this.ui.widgets[key];
				else this.ui.widgets[key] = { lines, placement: placement ?? "aboveEditor" };
				break;
			}
			case "extension.title":
				this.ui.title = payloadOf(envelope, "extension.title").title;
				break;
			case "extension.notify": {
				const { message, level } = payloadOf(envelope, "extension.notify");
				t.note(level === "error" ? sgr.red(message) : level === "warning" ? sgr.yellow(message) : sgr.cyan(message));
				break;
			}
			case "extension.editor":
				this.editor.setText(payloadOf(envelope, "extension.editor").text);
				break;
			case "extension.dialog":
				// One question at a time: a dialog that arrives during another, or during a picker, waits its turn.
				if (!this.dialog && !this.picking) void this.showDialog(payloadOf(envelope, "extension.dialog"));
				else this.ui.dialogs.push(payloadOf(envelope, "extension.dialog"));
				break;
			case "extension.dialog.dismiss": {
				const { requestId } = payloadOf(envelope, "extension.dialog.dismiss");
				this.ui.dialogs = this.ui.dialogs.filter((d) => d.requestId !== requestId);
				if (this.dialog?.requestId === requestId) this.dialog.close();
				break;
			}
			case "extension.overlay":
			case "extension.custom.open":
				t.note(sgr.dim("an extension opened a view this terminal cannot draw: answer it in the chamber"));
				break;
			case "extension.error": {
				const { message, source } = payloadOf(envelope, "extension.error");
				t.note(sgr.red(`${source ? `${source}: ` : ""}${message}`));
				break;
			}
			default:
				return;
		}
		this.drawUi();
	}

	/** The status line, the widgets and the footer, from the chamber's UI state. */
	private drawUi(): void {
		this.setWorking(this.streaming ? sgr.dim("Working… (Esc aborts, Enter steers, Alt+Enter follows up)") : "");
		for (const [slot, placement] of [
			[this.aboveEditor, "aboveEditor"],
			[this.belowEditor, "belowEditor"],
		] as const) {
			slot.clear();
			for (const widget of Object.values(this.ui.widgets))
				if (widget.placement === placement) for (const line of widget.lines) slot.addChild(new Text(line, 1, 0));
		}
		const statuses = Object.values(this.ui.statuses).join("  ");
		const head = `${sgr.bold(this.ui.title ?? this.title)}${this.model ? `  ${this.model}` : ""}`;
		this.footer.setText(
			[head, statuses, sgr.dim(`attached to the chamber · ${this.chamberUrl} · Ctrl+D or /detach leaves it running`)]
				.filter(Boolean)
				.join("\n"),
		);
		this.tui.requestRender();
	}

	private setWorking(text: string): void {
		this.working.setText(text);
		this.tui.requestRender();
	}

	/** Puts `component` where the editor is (a dialog, a picker), or the editor back. */
	private show(component: Component | undefined): void {
		this.editorSlot.clear();
		this.editorSlot.addChild(component ?? this.editor);
		this.tui.setFocus(component ?? this.editor);
		this.tui.requestRender();
	}

	private async showDialog(request: DialogRequest): Promise<void> {
		let close = () => {};
		const closed = new Promise<void>((done) => {
			close = done;
		});
		this.dialog = { requestId: request.requestId, close };
		const answer = await askDialog(this.tui, request, (c) => this.show(c), closed);
		this.dialog = undefined;
		this.ui.dialogs = this.ui.dialogs.filter((d) => d.requestId !== request.requestId);
		if (answer) {
			await this.client.answer(this.sessionId, request.requestId, answer).catch((error: unknown) => {
				// Not pending any more: the chamber or the extension ended it first; its dismiss closes it here too.
				if (!(error instanceof PierApiError && error.status === 404)) this.report(error);
			});
		}
		const next = this.ui.dialogs[0];
		if (next) void this.showDialog(next);
	}

	private onKey(data: string): { consume: boolean } | undefined {
		if (this.dialog || this.picking) return undefined;
		if (matchesKey(data, "ctrl+d") && this.editor.getText() === "") {
			this.finish({ reason: "detached", sessionId: this.sessionId });
			return { consume: true };
		}
		if (matchesKey(data, "escape") && this.streaming) {
			void this.client.abort(this.sessionId).catch((error: unknown) => this.report(error));
			return { consume: true };
		}
		if (matchesKey(data, "alt+enter")) {
			const text = this.editor.getText().trim();
			if (text) {
				this.editor.setText("");
				void this.client.followUp(this.sessionId, text).catch((error: unknown) => this.report(error));
			}
			return { consume: true };
		}
		if (matchesKey(data, "ctrl+c")) {
			if (this.editor.getText() === "")
				this.transcript.note(sgr.dim("Ctrl+D or /detach leaves; the session keeps running"));
			this.editor.setText("");
			this.tui.requestRender();
			return { consume: true };
		}
		return undefined;
	}

	private async submit(raw: string): Promise<void> {
		const text = raw.trim();
		if (!text) return;
		this.editor.addToHistory(text);
		this.editor.setText("");
		if (DETACH_COMMANDS.has(text)) {
			this.finish({ reason: "detached", sessionId: this.sessionId });
			return;
		}
		try {
			if (text === "/model")
				await this.pick(() => pickModel(this.client, this.sessionId, this.tui, (c) => this.show(c)));
			else if (text === "/tree")
				await this.pick(() => pickTreeEntry(this.client, this.sessionId, this.tui, (c) => this.show(c)));
			else if (this.streaming && !text.startsWith("/") && !text.startsWith("!"))
				await this.client.steer(this.sessionId, text);
			else await this.client.prompt(this.sessionId, text);
		} catch (error) {
			this.report(error);
		}
	}

	private async pick(run: () => Promise<void>): Promise<void> {
		this.picking = true;
		try {
			await run();
		} finally {
			this.picking = false;
			this.show(undefined);
		}
		const waiting = this.ui.dialogs[0];
		if (waiting && !this.dialog) void this.showDialog(waiting);
	}

	private report(error: unknown): void {
		if (error instanceof PierApiError && error.status === 401) {
			this.finish({ reason: "refused", sessionId: this.sessionId, message: error.message });
			return;
		}
		const message = error instanceof PierApiError ? `${error.message} (${error.code})` : (error as Error).message;
		this.transcript.note(sgr.red(message));
		this.tui.requestRender();
	}
}

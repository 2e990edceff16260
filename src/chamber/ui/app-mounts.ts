/**
 * Which extension is appending a `pichamber.app` or `pichamber.ui` entry (or sending a card as a message) right
 * now. An app surface's or a card's buttons run only their own extension's commands, so the daemon records the
 * extension in the entry, where no extension can set it.
 */
import type { ExtensionHost } from "../../extensions/host/host.js";
import { callerExtension, ownerKey } from "./app-owner.js";

export class AppMounts {
	/** The protocol extension whose `append_entry` or `send_message` action is being performed right now, if any. */
	private protocolActor: string | undefined;

	/**
	 * Protocol extensions append entries through the host's session side, which is told which instance asks. The
	 * bridge performs both actions synchronously (pi takes a message's details at once, even when it delivers the
	 * message later), so the entry is stamped while `protocolActor` names it.
	 */
	constructor(host: ExtensionHost) {
		host.decorateRuntimeHost((inner) => ({
			get hasUi() {
				return inner.hasUi;
			},
			ui: (request, context) => inner.ui(request, context),
			action: (action, context) => {
				if (action.kind !== "append_entry" && action.kind !== "send_message") return inner.action(action, context);
				this.protocolActor = context.instance.id;
				try {
					return inner.action(action, context);
				} finally {
					this.protocolActor = undefined;
				}
			},
		}));
	}

	/** The owner key of whoever appends now: a protocol extension's action, or an in-process extension's code. */
	mounter(extensionPaths: readonly string[]): string | undefined {
		if (this.protocolActor !== undefined) return ownerKey("protocol", this.protocolActor);
		// In-process extensions call pi directly: their file on the call stack names them.
		const limit = Error.stackTraceLimit;
		Error.stackTraceLimit = 64;
		const stack = new Error().stack ?? "";
		Error.stackTraceLimit = limit;
		const path = callerExtension(stack, extensionPaths);
		return path ? ownerKey("pi", path) : undefined;
	}
}

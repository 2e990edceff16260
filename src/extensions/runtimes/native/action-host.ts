/**
 * The plugin host's side of runtime actions (actions.ts's `NativeActionHost`): a synchronous round trip to
 * pier for a plugin's `runtime_action` (which must answer before it returns; protocol-io.ts), an
 * asynchronous one through the kit, the kit's latest invocation snapshot, flags, the mode and the stdio
 * lifecycle. A request the manifest's capabilities do not cover is refused here, before anything is sent,
 * with the kit's own text (kit/core/guest.mjs), as a JS guest's `pi.*`/`ctx.ui.*` call is.
 */
import type * as Kit from "../../../../kit/node/index.mjs";
import type { ContextSnapshot, Mode } from "../../protocol/frames.js";
import type { NativeActionHost } from "./actions.js";
import type { ProtocolPort } from "./protocol-io.js";

/** The capability each runtime request kind needs, and what the refusal calls it. */
const REQUEST_CAPABILITY: Readonly<Record<string, readonly [capability: string, what: string]>> = {
	action: ["session_actions", "session action"],
	ui: ["ui", "UI action"],
};

/** The refusal for a request `capabilities` do not cover, else undefined. */
export function undeclared(capabilities: readonly string[], request: { kind: string }): Error | undefined {
	const needed = REQUEST_CAPABILITY[request.kind];
	if (!needed || capabilities.includes(needed[0])) return undefined;
	return new Error(`${needed[1]} requires the ${needed[0]} capability (add it to the manifest's capabilities)`);
}

/** How long a plugin's synchronous request may wait for pier (pier's own longest request timeout). */
export const SYNC_REQUEST_TIMEOUT_MS = 10 * 60_000;

export interface ActionHostOptions {
	extensionId: string;
	/** The manifest's capabilities: what the plugin's requests may use. */
	capabilities: readonly string[];
	/** Whether this plugin declared ownsStdio. */
	owner: boolean;
	/** The mode pier's hello gave (the kit's ctx.mode, read at the first invocation). */
	mode: () => Mode;
}

export function actionHost(port: ProtocolPort, pi: Kit.ExtensionAPI, options: ActionHostOptions): NativeActionHost {
	return {
		request: (request) => {
			const refused = undeclared(options.capabilities, request);
			if (refused) throw refused;
			return port.request(request, SYNC_REQUEST_TIMEOUT_MS);
		},
		requestAsync: (request, requestOptions) => {
			const refused = undeclared(options.capabilities, request);
			if (refused) return Promise.reject(refused);
			return pi.runtimeRequest(request as Parameters<Kit.ExtensionAPI["runtimeRequest"]>[0], requestOptions);
		},
		snapshot: () => pi.contextSnapshot() as ContextSnapshot | undefined,
		flag: (name) => pi.getFlag(name),
		get mode() {
			return options.mode();
		},
		stdio: {
			owner: options.owner,
			// pier's native channel takes this frame (it never reaches the host instance): pier ends with the
			// code once the session has shut down.
			finish: (code) => port.send({ type: "native_finish", exitCode: code }),
		},
		extensionId: options.extensionId,
	};
}

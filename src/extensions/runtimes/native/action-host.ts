/**
 * The plugin host's side of runtime actions (CONTRACT.md's `NativeActionHost`): a synchronous round trip to
 * pier for a plugin's `runtime_action` (which must answer before it returns), an asynchronous one, the
 * latest invocation snapshot, flags, the mode and the stdio lifecycle.
 */
import type { ContextSnapshot, Mode, RuntimeRequest } from "../../protocol/frames.js";
import type { ProtocolPort } from "./protocol-io.js";

/** How long a plugin's synchronous request may wait for pier (pier's own longest request timeout). */
export const SYNC_REQUEST_TIMEOUT_MS = 10 * 60_000;

export interface NativeActionHost {
	request(request: RuntimeRequest): unknown;
	requestAsync(request: RuntimeRequest): Promise<unknown>;
	snapshot(): ContextSnapshot | undefined;
	flag(name: string): boolean | string | undefined;
	mode: Mode;
	stdio: { owner: boolean; finish(code: number): void };
}

/** What the plugin host knows of the session, updated on every invocation. */
export interface SessionView {
	snapshot: ContextSnapshot | undefined;
	mode: Mode;
	flag(name: string): boolean | string | undefined;
}

/** Refused until the kit is live: pier fails the whole load for a runtime request before that. */
export function actionHost(
	port: ProtocolPort,
	view: SessionView,
	owner: boolean,
	isLive: () => boolean,
): NativeActionHost {
	const live = () => {
		if (!isLive())
			throw new Error(
				"runtime actions are unavailable while the plugin registers (call them from a tool, command or event handler)",
			);
	};
	return {
		request(request) {
			live();
			return port.request(request, SYNC_REQUEST_TIMEOUT_MS);
		},
		requestAsync(request) {
			live();
			return port.requestAsync(request);
		},
		snapshot: () => view.snapshot,
		flag: (name) => view.flag(name),
		get mode() {
			return view.mode;
		},
		stdio: {
			owner,
			// pier's native channel takes this frame (it never reaches the host instance): pier ends with the
			// code once the session has shut down.
			finish: (code) => port.send({ type: "native_finish", exitCode: code }),
		},
	};
}

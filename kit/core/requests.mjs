/**
 * The extension's own requests to the host (docs/protocol-v1.md §6): UI and session actions, their ids, their
 * answers, and their cancellation (the invocation they belong to was cancelled, or an author's signal fired),
 * with the manifest's capability gate in front, as rpi has it. The guest (guest.mjs) owns one.
 */

/** A runtime request the host answered with a failure; `code` is the protocol error code. */
export class ExtensionRequestError extends Error {
	constructor(code, message) {
		super(`${code}: ${message}`);
		this.name = "ExtensionRequestError";
		this.code = code;
	}
}

/**
 * pi's fire-and-forget calls (notify, setStatus, sendMessage…) return void there; here they return promises an
 * author may never await. Marking them handled keeps a host refusal from becoming an unhandled rejection.
 */
export function quiet(promise) {
	promise.catch(() => {});
	return promise;
}

const cancelled = () => new ExtensionRequestError("cancelled", "the request was cancelled");

export class GuestRequests {
	/**
	 * `guest`: what requests need of it: `phase`, `scope` (which invocation a call belongs to), `manifest`
	 * (its capabilities) and `send(frame)`. Ids are `prefix` + a counter: ours to choose, the host only needs
	 * them unique.
	 */
	constructor(guest, prefix) {
		this.guest = guest;
		this.prefix = prefix;
		/** Our request id → awaiting caller. */
		this.pending = new Map();
		this.count = 0;
	}

	/**
	 * Sends a UI or action request and resolves with the host's answer. Throws synchronously outside the live
	 * phase: the host would fail the whole load for a request during it, so it is a programming error.
	 */
	send(request, options = {}) {
		const guest = this.guest;
		const invocation = "invocation" in options ? options.invocation : guest.scope.current();
		const signal = options.signal;
		if (guest.phase !== "live") {
			throw new Error(
				`runtime requests (UI, session actions) are unavailable during the ${guest.phase} phase; ` +
					"call them from tool, command or event handlers, not from the extension factory",
			);
		}
		if (invocation?.cancelled || signal?.aborted) return quiet(Promise.reject(cancelled()));
		const id = `${this.prefix}${++this.count}`;
		const promise = new Promise((resolve, reject) => {
			this.pending.set(id, { resolve, reject, invocation });
			if (invocation) {
				if (!invocation.requests) invocation.requests = new Set();
				invocation.requests.add(id);
			}
			try {
				guest.send({ type: "request", id, request });
			} catch (error) {
				this.forget(id);
				reject(error);
			}
		});
		if (signal) {
			// An author's DialogOptions.signal dismisses the dialog: cancel the request at the host.
			const onAbort = () => this.cancel(id, cancelled());
			signal.addEventListener("abort", onAbort, { once: true });
			quiet(promise.finally(() => signal.removeEventListener("abort", onAbort)));
		}
		return quiet(promise);
	}

	/** The host's response to one of ours. */
	answered(frame) {
		const waiting = this.pending.get(frame.id);
		if (!waiting) return; // answered after we gave up on it
		this.forget(frame.id);
		const { result } = frame;
		if (result.status === "success") waiting.resolve(result.value ?? null);
		else waiting.reject(new ExtensionRequestError(result.error.code, result.error.message));
	}

	/** Our side gave up: tell the host (it still answers, and that answer is ignored) and reject now. */
	cancel(id, error) {
		const waiting = this.pending.get(id);
		if (!waiting) return;
		this.forget(id);
		try {
			this.guest.send({ type: "cancel", id });
		} catch {
			// nothing to tell if the channel is gone
		}
		waiting.reject(error);
	}

	forget(id) {
		this.pending.get(id)?.invocation?.requests?.delete(id);
		this.pending.delete(id);
	}

	/**
	 * rpi's gate in the guest, with its text: a capability the manifest does not declare fails the call at once,
	 * without a request. As a rejection rather than a throw, so a fire-and-forget call stays fire-and-forget.
	 */
	undeclared(capability, what) {
		if (this.guest.manifest.capabilities.includes(capability)) return undefined;
		return quiet(
			Promise.reject(
				new Error(`${what} requires the ${capability} capability (add it to the manifest's capabilities)`),
			),
		);
	}

	/** A UI request whose answer `map` turns into what pi's ExtensionUIContext returns. */
	ui(request, map, options = {}) {
		const refused = this.undeclared("ui", "UI action");
		if (refused) return refused;
		const ui = { request, ...(options.timeout !== undefined ? { timeoutMs: options.timeout } : {}) };
		const forward = {};
		if ("invocation" in options) forward.invocation = options.invocation;
		if (options.signal) forward.signal = options.signal;
		return quiet(this.send({ kind: "ui", ui }, forward).then(map));
	}

	action(action, invocation) {
		const refused = this.undeclared("session_actions", "session action");
		if (refused) return refused;
		return this.send({ kind: "action", action }, invocation === undefined ? {} : { invocation });
	}
}

/**
 * An invocation's cancellation signal. Node has AbortController; QuickJS has none, so the core brings the part of
 * it extensions use (aborted, reason, add/removeEventListener, onabort, throwIfAborted), as rpi's QuickJS shim does.
 */

class ShimSignal {
	constructor() {
		this.aborted = false;
		this.reason = undefined;
		this.onabort = null;
		this._listeners = [];
	}

	addEventListener(type, listener) {
		if (type === "abort" && typeof listener === "function" && !this.aborted) this._listeners.push(listener);
	}

	removeEventListener(type, listener) {
		if (type !== "abort") return;
		const index = this._listeners.indexOf(listener);
		if (index >= 0) this._listeners.splice(index, 1);
	}

	dispatchEvent() {
		return false;
	}

	throwIfAborted() {
		if (this.aborted) throw this.reason;
	}
}

class ShimController {
	constructor() {
		this.signal = new ShimSignal();
	}

	abort(reason) {
		const signal = this.signal;
		if (signal.aborted) return;
		signal.aborted = true;
		signal.reason = reason === undefined ? new Error("This operation was aborted") : reason;
		const listeners = [signal.onabort, ...signal._listeners];
		signal._listeners = [];
		for (const listener of listeners) {
			if (typeof listener !== "function") continue;
			try {
				listener.call(signal, { type: "abort", target: signal });
			} catch {
				// a listener's failure is its own; the others still hear of the abort
			}
		}
	}
}

/** The runtime's own AbortController where it has one (Node), else the shim (QuickJS). */
export function newAbortController() {
	const Native = globalThis.AbortController;
	return typeof Native === "function" ? new Native() : new ShimController();
}

/** A recording NativeActionHost for the bridge's unit tests: every request pier would see, answered by script. */
import assert from "node:assert/strict";
import type { RuntimeRequest } from "../../src/extensions/protocol/frames.js";
import {
	createNativeUiState,
	type InvocationSnapshot,
	type NativeActionHost,
	type NativeUiState,
	runtimeAction,
} from "../../src/extensions/runtimes/native/actions.js";

export interface AsyncCall {
	request: RuntimeRequest;
	signal: AbortSignal | undefined;
	resolve(value: unknown): void;
	reject(error: Error): void;
}

export interface FakeHost extends NativeActionHost {
	/** Synchronous requests, in order. */
	sync: RuntimeRequest[];
	/** Asynchronous requests, in order, each settled by the test (or by `autoAnswer`). */
	async: AsyncCall[];
	finished: number[];
	/** The answer to a synchronous request (default null); throw to fail it. */
	answer: (request: RuntimeRequest) => unknown;
	/** When set, asynchronous requests settle at once with this answer. */
	autoAnswer?: (request: RuntimeRequest) => unknown;
	flags: Record<string, boolean | string>;
	current: InvocationSnapshot | undefined;
}

export function fakeHost(mode: NativeActionHost["mode"] = "tui", owner = false): FakeHost {
	const host: FakeHost = {
		sync: [],
		async: [],
		finished: [],
		answer: () => null,
		flags: {},
		current: undefined,
		mode,
		stdio: { owner, finish: (code) => host.finished.push(code) },
		request(request) {
			host.sync.push(request);
			return host.answer(request);
		},
		requestAsync(request, options) {
			return new Promise((resolve, reject) => {
				host.async.push({ request, signal: options?.signal, resolve, reject });
				if (host.autoAnswer) resolve(host.autoAnswer(request));
			});
		},
		snapshot: () => host.current,
		flag: (name) => host.flags[name],
	};
	return host;
}

/** The UI request inside a runtime request (or undefined for an action). */
export const uiOf = (request: RuntimeRequest) => (request.kind === "ui" ? request.ui.request : undefined);
export const actionOf = (request: RuntimeRequest) => (request.kind === "action" ? request.action : undefined);

/** Lets settled promises run their continuations. */
export const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Calls one runtime action with JSON arguments: `ok` asserts code 0 and returns the result, `error` code 1 and its message. */
export function actionRunner(id: number, host: NativeActionHost, state: NativeUiState = createNativeUiState()) {
	const run = (args: unknown) => {
		const answer = runtimeAction(id, JSON.stringify(args), host, state);
		return { code: answer.code, value: JSON.parse(answer.out) as Record<string, unknown> };
	};
	return {
		state,
		ok(args: unknown) {
			const { code, value } = run(args);
			assert.equal(code, 0, JSON.stringify(value));
			return value;
		},
		error(args: unknown) {
			const { code, value } = run(args);
			assert.equal(code, 1, JSON.stringify(value));
			return value.error as string;
		},
	};
}

/**
 * An extension's runtime requests to the host (UI operations and session actions, protocol v1 §6): the grant
 * check at the boundary, the UI budget, cancellation and the answer. The instance (instance.ts) decides whether
 * its phase allows a request at all; everything after that is here.
 */
import type { HostFrame, Mode, ProtocolResult, RuntimeRequest } from "../protocol/frames.js";
import { UI_REQUESTS } from "../protocol/frames.js";
import { FrameError } from "../protocol/codec.js";
import type { CapabilityCheck } from "./permissions.js";
import type { RequestPort } from "./host-requests.js";
import type { ExtensionInstance, RuntimeHost } from "./instance.js";
import { MAX_REQUEST_TIMEOUT_MS } from "./timeouts.js";
import { UiBudget } from "./ui-budget.js";
import { withTimeout } from "./promises.js";

/** What the requests need of their instance. */
export interface RequestOwner extends RequestPort {
	readonly instance: ExtensionInstance;
	readonly mode: Mode;
	/** The session side, looked up per request (a host may attach the session after loading). */
	runtimeHost(): RuntimeHost | undefined;
	/** The capability check of the accepted hello. */
	capabilities(): CapabilityCheck;
	/** Whether the instance has stopped: an answer then goes nowhere. */
	stopped(): boolean;
	crash(reason: string): void;
}

export class ExtensionRequests {
	/** The requests being served, by the extension's id, each with what cancels it. */
	private readonly serving = new Map<string, AbortController>();
	private readonly uiBudget: UiBudget;

	constructor(
		extensionId: string,
		private readonly owner: RequestOwner,
	) {
		this.uiBudget = new UiBudget(extensionId);
	}

	/** Serves one request; throws (a protocol violation) only for an id already being served. */
	serve(id: string, request: RuntimeRequest) {
		if (this.serving.has(id)) throw new Error(`duplicate extension request id "${id}"`);
		const owner = this.owner;
		const host = owner.runtimeHost();
		const check = owner.capabilities();
		if (request.kind === "ui") {
			const { capability, interactive } = UI_REQUESTS[request.ui.request.type];
			const denied = check.ui(capability);
			if (denied) {
				return refuse(
					owner,
					id,
					"permission_denied",
					`UI capability "${capability}" was not granted (${denied.message})`,
				);
			}
			if (interactive && !(host?.hasUi ?? false)) {
				return refuse(
					owner,
					id,
					"ui_unavailable",
					`interactive UI ("${request.ui.request.type}") is unavailable in ${owner.mode} mode`,
				);
			}
			if (!host) return refuse(owner, id, "ui_unavailable", "this session has no extension UI");
			const uiRequest = request.ui.request;
			const admitted = this.uiBudget.admit(uiRequest); // a flood is refused here, not queued
			if (typeof admitted === "string") return refuse(owner, id, "ui_request_failed", admitted);
			const timeoutMs =
				request.ui.timeoutMs === undefined ? undefined : Math.min(request.ui.timeoutMs, MAX_REQUEST_TIMEOUT_MS);
			return this.run(id, "ui_request_failed", timeoutMs, async (signal) => {
				const answer = await admitted(host.ui(uiRequest, { instance: owner.instance, signal }));
				if (!UI_REQUESTS[uiRequest.type].answers.includes(answer.type)) {
					throw new Error(`UI response type "${answer.type}" does not match request type "${uiRequest.type}"`);
				}
				return answer;
			});
		}
		const denied = check.capability("session_actions");
		if (denied) {
			return refuse(
				owner,
				id,
				"permission_denied",
				`session action capability "session_actions" was not granted (${denied.message})`,
			);
		}
		if (!host) return refuse(owner, id, "action_unavailable", "this session has no extension action host");
		const action = request.action;
		return this.run(id, "action_failed", undefined, (signal) =>
			host.action(action, { instance: owner.instance, signal }),
		);
	}

	/** A partial update of one of the extension's tools, under its UI budget (ui-budget.ts). */
	admitToolUpdate(chars: number, final: boolean): boolean {
		return this.uiBudget.admitToolUpdate(chars, final);
	}

	/** The extension no longer waits for request `id`. */
	cancel(id: string): void {
		this.serving.get(id)?.abort();
	}

	/** Cancels everything being served (the instance stopped). */
	cancelAll(): void {
		for (const controller of this.serving.values()) controller.abort();
		this.serving.clear();
	}

	private run(
		id: string,
		failureCode: string,
		timeoutMs: number | undefined,
		work: (signal: AbortSignal) => Promise<unknown>,
	): void {
		const controller = new AbortController();
		this.serving.set(id, controller);
		const cancelled = new Promise<never>((_, reject) => {
			controller.signal.addEventListener("abort", () => reject(new Error("the request was cancelled")), { once: true });
		});
		const attempt = Promise.race([work(controller.signal), cancelled]);
		const bounded =
			timeoutMs === undefined
				? attempt
				: withTimeout(attempt, timeoutMs, () => {
						controller.abort();
						return new Error(`UI request timed out after ${timeoutMs} ms`);
					});
		bounded.then(
			(value) => this.answer(id, { status: "success", value: value ?? null }),
			(error: unknown) =>
				this.answer(id, {
					status: "failure",
					error: { code: failureCode, message: error instanceof Error ? error.message : String(error) },
				}),
		);
	}

	private answer(id: string, result: ProtocolResult): void {
		if (!this.serving.delete(id)) return;
		const owner = this.owner;
		if (owner.stopped()) return;
		try {
			owner.send({ type: "response", id, result });
		} catch (error) {
			if (error instanceof FrameError) refuse(owner, id, "frame_too_large", error.message);
			else owner.crash(`sending a response failed: ${(error as Error).message}`);
		}
	}
}

/** A failure `response` to the extension's request `id`. */
export function failureFrame(id: string, code: string, message: string): HostFrame {
	return { type: "response", id, result: { status: "failure", error: { code, message } } };
}

function refuse(port: RequestPort, id: string, code: string, message: string): void {
	port.trySend(failureFrame(id, code, message));
}

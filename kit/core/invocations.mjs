/**
 * The invocations of providers and overlays (docs/protocol-v1.md §5): what the guest core calls for a `provider`,
 * `overlay_render` or `overlay_event` request, with rpi's shapes and messages.
 */

/**
 * rpi's provider form: `stream(sessionId, messages, options)` returns an async iterator or a sync iterable of
 * compact events; each goes to the host through `emit` (an `update` of the invocation), in order. Resolves null.
 */
export async function streamProvider(provider, invocation, emit, answered) {
	const result = await provider.stream(
		invocation.sessionId ?? null,
		invocation.messages ?? [],
		invocation.options ?? null,
	);
	const iterable =
		result != null &&
		(typeof result[Symbol.asyncIterator] === "function" || typeof result[Symbol.iterator] === "function");
	if (!iterable)
		throw new Error(`provider ${invocation.providerId} stream must return an async iterator or an iterable`);
	for await (const event of result) {
		if (answered()) break;
		emit(event);
	}
	return null;
}

/**
 * pier's provider form: `complete(request, ctx)` returns the whole assistant message (pi-ai's AssistantMessage);
 * it may stream text before that with `request.emit({type:"text_delta",delta})`.
 */
export async function completeProvider(provider, invocation, emit, ctx) {
	const request = {
		providerId: invocation.providerId,
		model: invocation.model ?? null,
		messages: invocation.messages ?? [],
		systemPrompt: invocation.systemPrompt,
		tools: invocation.tools ?? [],
		options: invocation.options ?? null,
		sessionId: invocation.sessionId,
		emit,
	};
	const message = await provider.complete(request, ctx);
	if (message === null || typeof message !== "object" || Array.isArray(message)) {
		throw new Error(
			`provider "${invocation.providerId}": complete() must return an assistant message object, got ${message === null ? "null" : typeof message}`,
		);
	}
	return message;
}

/** rpi: `render(ctx)` returns rows or `{rows, input?}`; the host always gets the object. */
export async function renderOverlay(overlays, id, ctx) {
	const overlay = overlays.get(id);
	if (!overlay) throw new Error(`unknown overlay ${id}`);
	const value = await overlay.render(ctx);
	return Array.isArray(value) ? { rows: value } : value;
}

/** A submit goes to `onSubmit(text, ctx)`, a key action to `onKey(action, ctx)`; a missing callback is an error. */
export function overlayEvent(overlays, id, event, ctx) {
	const overlay = overlays.get(id);
	if (!overlay) throw new Error(`unknown overlay ${id}`);
	if (event.kind === "submit") {
		if (!overlay.onSubmit) throw new Error(`overlay ${id} has no onSubmit callback for a submit event`);
		return overlay.onSubmit(event.text, ctx);
	}
	if (!overlay.onKey) throw new Error(`overlay ${id} has no onKey callback for a key action`);
	return overlay.onKey(event.action, ctx);
}

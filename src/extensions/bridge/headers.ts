/**
 * before_provider_headers for protocol extensions: pi fires it just before every provider request. Extensions
 * may set a header, or remove one with `null`; a QuickJS extension only with the "net" grant.
 */
import type { ProviderHeaders } from "@earendil-works/pi-ai";
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { ExtensionHost } from "../host/host.js";
import type { ExtensionInstance } from "../host/instance.js";
import type { Gate } from "./hook-results.js";

const REDACTED = "[redacted]";

/** The hook table's answer check loads with the first answer: most sessions have no such hook. */
async function applyHeaderAnswer(
	headers: ProviderHeaders,
	answer: unknown,
	extensionId: string,
	gate: Gate,
): Promise<void> {
	if (answer === null || answer === undefined) return;
	const { HookResultError, hookAnswerProblem } = await import("./hook-results.js");
	const problem = hookAnswerProblem("before_provider_headers", answer);
	if (problem) {
		throw new HookResultError(
			`invalid before_provider_headers result from extension ${extensionId}: ${problem} (expected {"headers":{"name":"value"|null}})`,
		);
	}
	const proposed = (answer as { headers: Record<string, string | null> }).headers;
	// The headers carry the user's key: another key there sends the conversation to another account, so any change
	// is a changed provider request, as a changed payload is.
	const changes = Object.entries(proposed).some(([name, value]) =>
		value === null ? Object.hasOwn(headers, name) : headers[name] !== value,
	);
	if (changes && !gate({ kind: "provider_request" })) return;
	for (const [name, value] of Object.entries(proposed)) {
		// Defined, never assigned: a name such as `__proto__` stays a header name.
		if (value === null) delete headers[name];
		else Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
	}
}

/**
 * Every protocol extension hooking before_provider_headers, as one handler of pi's own event. pi hands its
 * handlers the request's live header map to change in place; an extension sees the names only and answers with
 * the headers to set or remove, in the order the extensions loaded.
 */
export function bridgeProviderHeaders(
	pi: ExtensionAPI,
	host: ExtensionHost,
	gateOf: (instance: ExtensionInstance, ctx: ExtensionContext) => Gate,
): void {
	const hooked = host.registry.hooks.get("before_provider_headers") ?? [];
	if (hooked.length === 0) return;
	pi.on("before_provider_headers", async (event, ctx) => {
		const headers = event.headers;
		for (const instance of hooked) {
			if (!instance.isLive) continue;
			// Names only (REFERENCES decision 14): values include the API key (`Authorization: Bearer …`) and
			// models.json headers, which are credentials as often as not.
			const data = {
				type: "before_provider_headers",
				provider: ctx.model?.provider ?? "",
				modelId: ctx.model?.id ?? "",
				headers: Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED])),
			};
			let answer: unknown;
			try {
				answer = await instance.invoke(
					{ kind: "event", event: { name: "before_provider_headers", data } },
					{ timeoutMs: host.timeouts.hookMs },
				);
			} catch {
				continue; // a hook that fails or times out does not hold up the request
			}
			await applyHeaderAnswer(headers, answer, instance.id, gateOf(instance, ctx));
		}
	});
}

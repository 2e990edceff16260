/**
 * before_provider_headers: pi 0.74.2 has no such event, so pier produces it where
 * pi asks the model registry for a request's auth headers, just before every
 * provider request. Extensions may set a header, or remove one with `null`.
 */
import type { ModelRegistry } from "@earendil-works/pi-coding-agent";
import type { ExtensionHost } from "../host/host.js";

const REDACTED = "[redacted]";

/** The hook table's answer check loads with the first answer: most sessions have no such hook. */
async function applyHeaderAnswer(headers: Record<string, string>, answer: unknown, extensionId: string): Promise<void> {
	if (answer === null || answer === undefined) return;
	const { HookResultError, hookAnswerProblem } = await import("./hook-results.js");
	const problem = hookAnswerProblem("before_provider_headers", answer);
	if (problem) {
		throw new HookResultError(
			`invalid before_provider_headers result from extension ${extensionId}: ${problem} (expected {"headers":{"name":"value"|null}})`,
		);
	}
	const proposed = (answer as { headers: Record<string, string | null> }).headers;
	for (const [name, value] of Object.entries(proposed)) {
		if (value === null) delete headers[name];
		else headers[name] = value;
	}
}

export function produceProviderHeaders(registry: ModelRegistry, host: ExtensionHost): void {
	const original = registry.getApiKeyAndHeaders.bind(registry);
	registry.getApiKeyAndHeaders = async (model) => {
		const auth = await original(model);
		const hooked = host.registry.hooks.get("before_provider_headers") ?? [];
		if (!auth.ok || hooked.length === 0) return auth;
		const headers: Record<string, string> = { ...auth.headers };
		for (const instance of hooked) {
			if (!instance.isLive) continue;
			// Names only (REFERENCES decision 14): values include the API key (`Authorization: Bearer …`) and
			// models.json headers, which are credentials as often as not.
			const data = {
				type: "before_provider_headers",
				provider: model.provider,
				modelId: model.id,
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
			await applyHeaderAnswer(headers, answer, instance.id);
		}
		return { ...auth, headers: Object.keys(headers).length > 0 ? headers : undefined };
	};
}

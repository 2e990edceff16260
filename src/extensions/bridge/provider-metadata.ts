/**
 * `provider_metadata` registrations → pi's model registry: an extension describes a provider pi already knows how
 * to talk to (an OpenAI-compatible endpoint, say) and its models, and `--model <id>/<model>` or the chamber's
 * picker use them through pi's own implementation of the declared `api`.
 *
 * What an extension may not do with it: take over a provider that already exists (a built-in one, or one of
 * models.json: pi would send that provider's key to the extension's `baseUrl`), name an API pi does not have, or
 * set a key (pi reads `!command` keys as commands to run). The provider gets a literal placeholder key; the user
 * gives a real one as for any provider (`auth.json`, `--api-key`), and that one takes precedence.
 */
import type { Api } from "@earendil-works/pi-ai";
import { getBuiltinProviders } from "@earendil-works/pi-ai/providers/all";
import type { ExtensionAPI, ProviderModelConfig } from "@earendil-works/pi-coding-agent";
import { piImplementsApi } from "../../pi-seams/api-providers.js";
import type { ExtensionHost } from "../host/host.js";
import { isRecord } from "../protocol/json-object.js";
import { unregisterAtSessionEnd } from "./providers.js";

/** Stands in for a key the user has not given: a request carrying it is refused by any real endpoint. */
export const METADATA_API_KEY = "pier-provider-metadata-no-key";

type Metadata = NonNullable<ReturnType<ExtensionHost["registry"]["providerMetadata"]["get"]>>["descriptor"];

/** Why this registration cannot go into pi's registry, or undefined when it can. */
export function metadataProblem(metadata: Metadata, taken: (providerId: string) => boolean): string | undefined {
	if (taken(metadata.id)) {
		return `provider "${metadata.id}" already exists; provider_metadata may only describe a new provider`;
	}
	if (!metadata.models?.length) return `provider "${metadata.id}" lists no models`;
	if (metadata.api === undefined) return `provider "${metadata.id}" names no api`;
	if (metadata.api.startsWith("pier-extension/") || !piImplementsApi(metadata.api)) {
		return `provider "${metadata.id}" api "${metadata.api}" is not one pi implements`;
	}
	let url: URL;
	try {
		url = new URL(metadata.baseUrl ?? "");
	} catch {
		return `provider "${metadata.id}" baseUrl must be an http(s) URL`;
	}
	if (url.protocol !== "http:" && url.protocol !== "https:") {
		return `provider "${metadata.id}" baseUrl must be an http(s) URL`;
	}
	return undefined;
}

/** pi-ai Model objects → pi's model config, only the fields that describe a model (no headers, no URL). */
export function metadataModels(metadata: Metadata): ProviderModelConfig[] {
	return (metadata.models ?? []).map((value, i) => {
		const at = `provider "${metadata.id}" models[${i}]`;
		if (!isRecord(value) || typeof value.id !== "string" || value.id === "" || /\s/.test(value.id)) {
			throw new Error(`${at} needs an id without whitespace`);
		}
		const number = (key: string, fallback: number) => {
			const n = value[key];
			if (n === undefined) return fallback;
			if (typeof n !== "number" || !Number.isInteger(n) || n < 1)
				throw new Error(`${at}.${key} must be a positive integer`);
			return n;
		};
		const input = Array.isArray(value.input) ? value.input.filter((t) => t === "text" || t === "image") : ["text"];
		const cost = isRecord(value.cost) ? value.cost : {};
		const price = (key: string) =>
			typeof cost[key] === "number" && (cost[key] as number) >= 0 ? (cost[key] as number) : 0;
		return {
			id: value.id,
			name: typeof value.name === "string" ? value.name : `${metadata.id}/${value.id}`,
			reasoning: value.reasoning === true,
			input: input.length ? (input as ("text" | "image")[]) : ["text"],
			cost: {
				input: price("input"),
				output: price("output"),
				cacheRead: price("cacheRead"),
				cacheWrite: price("cacheWrite"),
			},
			contextWindow: number("contextWindow", 128_000),
			maxTokens: number("maxTokens", 4_096),
		};
	});
}

export function registerProviderMetadata(pi: ExtensionAPI, host: ExtensionHost): void {
	const builtIn = new Set<string>(getBuiltinProviders());
	const taken = (id: string) => builtIn.has(id) || host.registry.providers.has(id);
	const names: string[] = [];
	for (const [id, { descriptor, instance }] of host.registry.providerMetadata) {
		let models: ProviderModelConfig[];
		const problem = metadataProblem(descriptor, taken);
		try {
			if (problem) throw new Error(problem);
			models = metadataModels(descriptor);
		} catch (error) {
			host.report({
				type: "warning",
				extensionId: instance.id,
				message: `extension ${instance.id} provider_metadata not registered: ${(error as Error).message}`,
			});
			continue;
		}
		pi.registerProvider(id, {
			...(descriptor.name ? { name: descriptor.name } : {}),
			api: descriptor.api as Api,
			baseUrl: descriptor.baseUrl!,
			apiKey: METADATA_API_KEY,
			models,
		});
		names.push(id);
	}
	unregisterAtSessionEnd(pi, names);
}

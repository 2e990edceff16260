/**
 * `/api/pi/providers`: pi's providers as the browser may set them up. Keys go to pi's own `auth.json` (so
 * `pi` and `pier` both use them) and custom OpenAI-compatible providers to pi's `models.json`; both files
 * are read fresh per request, since the CLI may change them while the daemon runs. No response carries a
 * key: only where a provider's credentials come from.
 */
import { join } from "node:path";
import { getSupportedThinkingLevels } from "@earendil-works/pi-ai";
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";
import { Hono } from "hono";
import { Type } from "typebox";
import { agentDir } from "../agent/paths.js";
import { pierModelRuntime } from "../agent/session-factory.js";
import { jsonError } from "./http-errors.js";
import { jsonBody } from "./json-body.js";
import { type ModelsJson, piRefusal, readModelsJson, writeModelsJson } from "./models-json.js";
import { pierCommand } from "./pier-command.js";
import { providerBodyProblem } from "./provider-text.js";
import type { CustomProviderResult, ProviderSource, ProviderView } from "./provider-wire.js";

export type { CustomProviderResult, ProviderSource, ProviderView } from "./provider-wire.js";

const PROVIDER_ID = "^[a-z0-9][a-z0-9._-]{0,63}$";
/**
 * What a custom provider left without a key gets, as pi's docs do for Ollama: pi lists a provider's models as
 * usable only once it has some key, and a key set later (auth.json) takes precedence over this one.
 */
export const NO_KEY_PLACEHOLDER = "none";
/** The wire formats a custom provider may speak: pi-ai's OpenAI-compatible and Anthropic APIs. */
const CUSTOM_APIS = ["openai-completions", "openai-responses", "anthropic-messages"] as const;

const KeyBody = Type.Object(
	{ apiKey: Type.String({ minLength: 1, maxLength: 4096 }) },
	{ additionalProperties: false },
);
const CustomBody = Type.Object(
	{
		id: Type.String({ pattern: PROVIDER_ID }),
		baseUrl: Type.String({ pattern: "^https?://", maxLength: 2048 }),
		api: Type.Union(CUSTOM_APIS.map((api) => Type.Literal(api))),
		apiKey: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
		models: Type.Array(
			Type.Object(
				{
					id: Type.String({ minLength: 1, maxLength: 256 }),
					name: Type.Optional(Type.String({ maxLength: 256 })),
					reasoning: Type.Optional(Type.Boolean()),
				},
				{ additionalProperties: false },
			),
			{ minItems: 1, maxItems: 100 },
		),
	},
	{ additionalProperties: false },
);
function sourceOf(status: { configured: boolean; source?: string }): ProviderSource {
	if (!status.configured) return "none";
	switch (status.source) {
		case "stored":
			return "auth.json";
		case "environment":
			return "environment";
		case "runtime":
			return "runtime";
		default:
			return "models.json";
	}
}

/**
 * Stores `apiKey` in auth.json through the provider's own API-key login, as `pi auth login` does. The key answers
 * one secret question only: a choice of method, an account id, a profile or a path is not the key (given to a
 * choice, pi's error quoted it; given to an account id, pi put it in request URLs), so such a login is refused.
 */
async function storeKey(runtime: ModelRuntime, provider: string, apiKey: string): Promise<void> {
	let answered = false;
	try {
		await runtime.login(provider, "api_key", {
			prompt: async (question) => {
				if (question.type !== "secret" || answered)
					throw new Error(
						`pi's API-key login for it asks more than a key ("${question.message}"); set it up with /login in pier's terminal`,
					);
				answered = true;
				return apiKey;
			},
			notify: () => {},
		});
	} catch (error) {
		// Whatever pi says, the key is not repeated back.
		throw new Error((error as Error).message.split(apiKey).join("[key]"));
	}
}

export interface ProviderRouteOptions {
	dir?: () => string;
	/** Gives running sessions the changed providers' models; answers how many sessions it updated. */
	refreshSessions?: (providers: string[]) => Promise<number>;
}

export function providerRoutes(options: ProviderRouteOptions = {}): Hono {
	const dir = options.dir ?? agentDir;
	const refreshSessions = options.refreshSessions ?? (async () => 0);
	const app = new Hono();
	const runtimeOf = () => pierModelRuntime(dir());

	app.get("/", async (c) => {
		const runtime = await runtimeOf();
		const custom = readModelsJson(join(dir(), "models.json")).providers;
		// A models.json apiKey is resolved by the runtime, not reported by the auth status.
		const usable = new Set(runtime.getAvailableSnapshot().map((m) => m.provider));
		const credentialsOf = (id: string): ProviderSource => {
			const source = sourceOf(runtime.getProviderAuthStatus(id));
			return source === "none" && usable.has(id) ? "models.json" : source;
		};
		const byProvider = new Map<string, number>();
		for (const model of runtime.getModels()) byProvider.set(model.provider, (byProvider.get(model.provider) ?? 0) + 1);
		const providers: ProviderView[] = [...byProvider].map(([id, models]) => {
			const provider = runtime.getProvider(id);
			return {
				id,
				name: provider?.name ?? id,
				credentials: id === "pier" ? "runtime" : credentialsOf(id),
				models,
				custom: id in custom,
				oauth: provider?.auth.oauth !== undefined,
			};
		});
		// The command the page quotes for an OAuth sign-in (`… auth login <provider>`).
		return c.json({ providers: providers.sort((a, b) => a.id.localeCompare(b.id)), command: pierCommand() });
	});

	app.put("/:provider/key", jsonBody(KeyBody, "want {apiKey: a non-empty string}"), async (c) => {
		const provider = c.req.param("provider");
		if (!new RegExp(PROVIDER_ID).test(provider)) return jsonError(c, 400, "bad_request", "provider: not a provider id");
		const body = c.req.valid("json");
		const problem = providerBodyProblem(body);
		if (problem) return jsonError(c, 400, "bad_request", problem);
		const runtime = await runtimeOf();
		if (!runtime.getProvider(provider)) return jsonError(c, 404, "not_found", `pi knows no provider ${provider}`);
		try {
			await storeKey(runtime, provider, body.apiKey);
		} catch (error) {
			return jsonError(c, 409, "no_api_key_login", `${provider}: ${(error as Error).message}`);
		}
		await refreshSessions([provider]);
		return c.json({ provider, credentials: sourceOf(runtime.getProviderAuthStatus(provider)) });
	});

	app.delete("/:provider/key", async (c) => {
		const provider = c.req.param("provider");
		const runtime = await runtimeOf();
		const stored = await runtime.listCredentials();
		if (!stored.some((credential) => credential.providerId === provider))
			return jsonError(c, 404, "not_found", `auth.json holds no key for ${provider}`);
		await runtime.logout(provider);
		await refreshSessions([provider]);
		return c.json({ provider, credentials: sourceOf(runtime.getProviderAuthStatus(provider)) });
	});

	/** A custom provider in models.json; an existing one of that id is replaced (it is the user's own). */
	app.post(
		"/",
		jsonBody(
			CustomBody,
			`want {id, baseUrl, api: ${CUSTOM_APIS.join("|")}, apiKey?, models: [{id, name?, reasoning?}]}`,
		),
		async (c) => {
			const body = c.req.valid("json");
			const problem = providerBodyProblem(body);
			if (problem) return jsonError(c, 400, "bad_request", problem);
			if (body.id === "pier") return jsonError(c, 409, "reserved", "pier is pier's own provider (the demo model)");
			const file = join(dir(), "models.json");
			let current: ModelsJson;
			try {
				current = readModelsJson(file);
			} catch (error) {
				return jsonError(c, 409, "models_json_invalid", `${file}: ${(error as Error).message}; fix it first`);
			}
			// A file pi already refuses is the user's to fix: any change made on top of it would be refused too.
			const broken = await piRefusal(file);
			if (broken) return jsonError(c, 409, "models_json_invalid", `${broken}\n\nFix it first.`);
			current.providers[body.id] = {
				baseUrl: body.baseUrl,
				api: body.api,
				apiKey: body.apiKey ?? NO_KEY_PLACEHOLDER,
				models: body.models,
			};
			const refused = await writeModelsJson(file, current);
			if (refused) return jsonError(c, 422, "models_json_refused", `pi would refuse this provider: ${refused}`);
			const runtime = await runtimeOf();
			const result: CustomProviderResult = {
				provider: body.id,
				models: runtime.getModels(body.id).length,
				usable: runtime.getAvailableSnapshot().filter((m) => m.provider === body.id).length,
				sessionsUpdated: await refreshSessions([body.id]),
				placeholderKey: body.apiKey === undefined,
			};
			return c.json(result, 201);
		},
	);

	return app;
}

/** The thinking levels a model supports (pi-ai's rule), so the picker offers no level it would refuse. */
export function thinkingLevelsOf(model: Parameters<typeof getSupportedThinkingLevels>[0]): string[] {
	return getSupportedThinkingLevels(model);
}

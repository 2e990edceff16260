/**
 * Where a turn of a protocol provider's model goes: its own session's host, through a table per host that the
 * bridge fills (providers.ts). This half is installed on every session; the bridge that fills the tables, and the
 * translation of an extension's stream, load only with a protocol extension (bench startup.run).
 */
import {
	type Api,
	type AssistantMessageEventStream,
	type Context,
	createAssistantMessageEventStream,
	getApiProvider,
	type Model,
	registerApiProvider,
	type SimpleStreamOptions,
} from "@earendil-works/pi-ai";
import type { ExtensionHost } from "../host/host.js";

export const API_PREFIX = "pier-extension/";

export type Turn = (model: Model<Api>, context: Context, options?: SimpleStreamOptions) => AssistantMessageEventStream;

/** Per host: the API names its current bridge generation answers, and each one's turn. */
const routes = new WeakMap<ExtensionHost, Map<string, Turn>>();
/** Every host's current table, process-wide: what `restoreApiProviders` puts back. */
const liveTables = new Set<Map<string, Turn>>();

/** `table` becomes what `host`'s turns are routed to, in place of its previous generation's. */
export function installRoutes(host: ExtensionHost, table: Map<string, Turn>): void {
	const previous = routes.get(host);
	if (previous) liveTables.delete(previous);
	routes.set(host, table);
	liveTables.add(table);
}

/** `table`'s generation has ended (its session shut down). */
export function removeRoutes(host: ExtensionHost, table: Map<string, Turn>): void {
	liveTables.delete(table);
	if (routes.get(host) === table) routes.delete(host);
}

/**
 * pi's model registry rebuilds pi-ai's process-wide API registry from its own providers on every refresh (an
 * unregister, a /reload): one session's end or reload drops every other session's extension APIs. Their turns go
 * through `routeProviderTurns` anyway, but pi calls pi-ai directly for compaction and branch summaries, so each
 * live API is put back after a session's end, at every session start (a reload's included) and before every turn.
 * (A refresh pier does not see, such as another session's /login, is mended by the next turn.)
 */
export function restoreApiProviders(): void {
	for (const table of liveTables) {
		for (const [api, turn] of table) {
			if (getApiProvider(api as Api)) continue;
			registerApiProvider({ api: api as Api, stream: turn, streamSimple: turn }, `pier-extension:${api}`);
		}
	}
}

/** What pi's agent calls for every turn (AgentSession's `agent.streamFn`). */
type StreamFn = (
	model: Model<Api>,
	context: Context,
	options?: SimpleStreamOptions,
) => AssistantMessageEventStream | Promise<AssistantMessageEventStream>;

/**
 * A session's turns of protocol providers go straight to its own host's current generation, not through
 * pi-ai's process-wide API registry: any session's /reload or model-registry refresh resets that registry for
 * everyone (pi's resetApiProviders), which would leave the other sessions' providers unreachable.
 */
export function routeProviderTurns(agent: { streamFn: StreamFn }, host: ExtensionHost): void {
	const inner = agent.streamFn;
	agent.streamFn = (model, context, options) => {
		if (!model.api.startsWith(API_PREFIX)) return inner(model, context, options);
		restoreApiProviders();
		const turn = routes.get(host)?.get(model.api);
		if (turn) return turn(model, context, options);
		return import("./provider-stream.js").then(({ ProviderStreamTranslator }) => {
			const stream = createAssistantMessageEventStream();
			new ProviderStreamTranslator(stream, model).fail(
				`No API provider registered for api: ${model.api} (no extension of this session provides "${model.provider}" any more: a /reload removed it or its extension shut down; choose another model)`,
			);
			return stream;
		});
	};
}

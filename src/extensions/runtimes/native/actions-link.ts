/**
 * Where the plugin's `runtime_action` calls are answered: the bridge helper's `runtimeAction`
 * (actions.ts, with its dialog and component state). Until that module is merged, every id is answered
 * with code 1 and `{"error": "... not yet ..."}`; the integrator points `createActionSink` at
 * `runtimeAction(id, argsJson, host, state)` and nothing else changes.
 */
import type { ActionSink } from "./loader.js";
import type { NativeActionHost } from "./action-host.js";

export function createActionSink(_host: NativeActionHost): ActionSink {
	return (id) => ({
		code: 1,
		out: JSON.stringify({ error: `runtime action ${id} is not yet wired into this pier build` }),
	});
}

/**
 * Where the plugin's `runtime_action` calls are answered: actions.ts's `runtimeAction` with this plugin's
 * dialog, component and status state, kept for the life of the plugin host.
 */
import { createNativeUiState, type NativeActionHost, runtimeAction } from "./actions.js";
import type { ActionSink } from "./registrars.js";

export function createActionSink(host: NativeActionHost): ActionSink {
	const state = createNativeUiState();
	return (id, argsJson) => runtimeAction(id, argsJson, host, state);
}

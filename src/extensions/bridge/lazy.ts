/**
 * The bridge as pi's loader runs it: a generation without protocol extensions has nothing to register, so the
 * bridge's wiring (tools, hooks, providers, overlays, UI answers: nine modules) is read only once an extension
 * needs it (bench startup.run). pi runs every factory again at a /reload, after the protocol generation it loads.
 */
import type { ExtensionFactory } from "@earendil-works/pi-coding-agent";
import type { ExtensionHost } from "../host/host.js";
import type { BridgeOptions } from "./factory.js";

export function lazyProtocolBridge(host: ExtensionHost, options: BridgeOptions): ExtensionFactory {
	return async (pi) => {
		if (host.instances.length === 0) return;
		const { protocolBridge } = await import("./factory.js");
		await protocolBridge(host, options)(pi);
	};
}

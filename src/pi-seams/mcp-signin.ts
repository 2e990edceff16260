/**
 * pi's sign-in to an OAuth MCP server, with the chamber's own callback route as the redirect URI. pi's `/mcp` and
 * `pi mcp login` run `signInMcpServer` (extensions/mcp/oauth.js), which always listens on a loopback port of its own
 * and opens a browser on the machine pi runs on; the chamber's browser may be elsewhere and must come back to the
 * chamber. So pier runs the two halves `signInMcpServer` itself is made of, pi-mcp's `startMcpSignIn` (discovery,
 * client registration, PKCE, `state`) and `completeMcpSignIn` (checks the `state`, exchanges the code), with pi's
 * own pieces: its credential store (`McpOAuthCredentialStore`, `<agentDir>/mcp-auth.json`, exported by the
 * unexported runtime.js), the server's OAuth settings as pi's connection reads them from its entry
 * (`McpServerConnection.prototype.oauthSettings`) and pi's client name (`APP_NAME`). A running session picks the
 * stored tokens up as pi does after `pi mcp login` (a reconnect).
 */
import { completeMcpSignIn, startMcpSignIn } from "@earendil-works/pi-mcp/oauth";
import { Findings, loadForCheck, piModule, type Seam } from "./seam.js";

const RUNTIME = "dist/extensions/mcp/runtime.js";
const CONFIG = "dist/config.js";

/** A server as pi's extension hands it to `createTransport`: its name and its mcp.json entry. */
export interface McpServerEntry {
	name: string;
	config: { url?: string } & object;
}

type StoreFor = Parameters<typeof startMcpSignIn>[0]["store"];
type Settings = Parameters<typeof startMcpSignIn>[0]["settings"];

interface McpRuntime {
	McpOAuthCredentialStore: new () => { forServer(name: string, url: string): StoreFor };
	McpServerConnection: { prototype: { oauthSettings(this: { entry: McpServerEntry }): Settings } };
}

/** The browser step of a sign-in: where to send the browser, and how to finish once it comes back. */
export interface McpBrowserStep {
	kind: "redirect";
	authorizationUrl: string;
	/** The `state` pi-mcp issued for this sign-in; the callback must carry it. */
	state: string;
	/** Exchanges the code for tokens and stores them in pi's mcp-auth.json. */
	complete(response: { code: string; state: string; iss?: string }): Promise<void>;
}

/** `authorized`: the stored refresh token was enough, no browser needed. */
export type McpSignInStart = { kind: "authorized" } | McpBrowserStep;

/** Starts pi's sign-in to `entry`'s server, redirecting the browser to `redirectUrl` when it must sign in. */
export async function startMcpServerSignIn(
	entry: McpServerEntry,
	redirectUrl: string,
	signal?: AbortSignal,
): Promise<McpSignInStart> {
	const serverUrl = entry.config.url;
	if (!serverUrl) throw new Error(`MCP server "${entry.name}" has no url: only HTTP servers sign in`);
	const [{ McpOAuthCredentialStore, McpServerConnection }, { APP_NAME }] = await Promise.all([
		piModule<McpRuntime>(RUNTIME),
		piModule<{ APP_NAME: string }>(CONFIG),
	]);
	const options = {
		serverUrl,
		store: new McpOAuthCredentialStore().forServer(entry.name, serverUrl),
		settings: McpServerConnection.prototype.oauthSettings.call({ entry }),
		redirectUrl,
		clientName: APP_NAME,
		...(signal ? { signal } : {}),
	};
	const started = await startMcpSignIn(options);
	if (started.kind === "authorized") return { kind: "authorized" };
	return {
		kind: "redirect",
		authorizationUrl: started.authorizationUrl,
		state: started.state,
		complete: (response) => completeMcpSignIn({ ...options, authorization: started, response }),
	};
}

const id = { name: "mcp-signin", file: "src/pi-seams/mcp-signin.ts" };

export const seam: Seam = {
	...id,
	members: [
		"extensions/mcp/runtime.js (unexported): export McpOAuthCredentialStore (new, forServer(name, url)), McpServerConnection.prototype.oauthSettings() reading only this.entry",
		"config.js (unexported): export APP_NAME",
		"pi-mcp/oauth: startMcpSignIn(options), completeMcpSignIn(options), the halves of extensions/mcp/oauth.js's signInMcpServer",
	],
	async check(roots) {
		const findings = new Findings(id);
		const runtime = await loadForCheck<Partial<McpRuntime>>(findings, roots.codingAgent, RUNTIME);
		if (runtime) {
			if (typeof runtime.McpOAuthCredentialStore !== "function")
				findings.add(`${RUNTIME} export McpOAuthCredentialStore is missing`);
			else findings.fn(runtime.McpOAuthCredentialStore.prototype, "forServer", "McpOAuthCredentialStore.forServer", 2);
			findings.fn(runtime.McpServerConnection?.prototype, "oauthSettings", "McpServerConnection.oauthSettings", 0);
			const settings = runtime.McpServerConnection?.prototype.oauthSettings?.call({
				entry: { name: "check", config: { url: "http://127.0.0.1/mcp", oauth: { clientId: "c", scope: "s" } } },
			});
			if (settings?.clientId !== "c" || settings.scope !== "s")
				findings.add("oauthSettings no longer reads this.entry");
		}
		const config = await loadForCheck<{ APP_NAME?: unknown }>(findings, roots.codingAgent, CONFIG);
		if (config && typeof config.APP_NAME !== "string") findings.add(`${CONFIG} export APP_NAME is missing`);
		// The halves pier runs are still what pi's own sign-in runs.
		findings.calls(roots.codingAgent, "dist/extensions/mcp/oauth.js", "await startMcpSignIn(signIn)");
		findings.calls(
			roots.codingAgent,
			"dist/extensions/mcp/oauth.js",
			"await completeMcpSignIn({ ...signIn, authorization, response })",
		);
		findings.done();
	},
};

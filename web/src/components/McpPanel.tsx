/**
 * The session's MCP servers as pi's MCP extension has them (`GET /api/pi/sessions/:id/mcp`): state, tools, exposure,
 * source file and last error (a stdio server's stderr tail), with pi's `/mcp` actions on each: enable or disable
 * (saved to its mcp.json, or as a project override), reconnect, and its exposure. While a server is still starting
 * or connecting the view refreshes itself. "Sign in" opens the authorization server's page in a new tab; it comes back
 * to the daemon's callback, which finishes pi's sign-in, and the view refreshes until the server is signed in.
 */
import { useEffect, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import type { McpExposure, McpListView, McpServerView } from "../types.js";
import { visible, visibleText } from "../visible.js";

const EXPOSURES: McpExposure[] = ["codemode", "deferred", "direct", "hidden"];
const TONE: Record<string, string> = { connected: "success", failed: "error", "needs-sign-in": "warning" };
const REFRESH_MS = 1500;
/** How long the view keeps refreshing for a sign-in in another tab. */
const SIGN_IN_WAIT_MS = 5 * 60_000;

export function McpPanel({ sessionId }: { sessionId: string }) {
	const [open, setOpen] = useState(false);
	const [list, setList] = useState<McpListView | undefined>();
	const [error, setError] = useState<string | undefined>();
	const [busy, setBusy] = useState<string | undefined>();
	const load = () =>
		api.mcp(sessionId).then(
			(r) => {
				setList(r);
				setError(undefined);
			},
			(err) => setError(describeError(err)),
		);
	const [signingIn, setSigningIn] = useState<{ server: string; until: number } | undefined>();
	const waitingSignIn =
		signingIn !== undefined &&
		Date.now() < signingIn.until &&
		list?.servers.some((s) => s.name === signingIn.server && s.state === "needs-sign-in");
	const settling = waitingSignIn || list?.servers.some((s) => s.state === "starting" || s.state === "connecting");
	useEffect(() => {
		if (!open || !settling) return;
		const timer = setTimeout(() => void load(), REFRESH_MS);
		return () => clearTimeout(timer);
	}, [open, settling, list]);
	const act = async (server: McpServerView, action: string, body: Record<string, unknown> = {}) => {
		setBusy(`${server.name}:${action}`);
		try {
			const { server: next } = await api.mcpAction(sessionId, server.name, action, body);
			setList(
				(current) => current && { ...current, servers: current.servers.map((s) => (s.name === next.name ? next : s)) },
			);
			setError(undefined);
		} catch (err) {
			setError(describeError(err));
		} finally {
			setBusy(undefined);
		}
	};
	// The tab is opened on the click itself (a later one would be blocked), and cut from this page before it
	// goes anywhere: the authorization server's page is not the chamber's to script.
	const signIn = async (server: McpServerView) => {
		const tab = window.open("about:blank", "_blank");
		if (tab) tab.opener = null;
		setBusy(`${server.name}:signin`);
		try {
			const answer = await api.mcpSignIn(sessionId, server.name);
			if ("authorizationUrl" in answer && /^https?:\/\//.test(answer.authorizationUrl)) {
				if (tab) tab.location.href = answer.authorizationUrl;
				else window.location.href = answer.authorizationUrl;
				setSigningIn({ server: server.name, until: Date.now() + SIGN_IN_WAIT_MS });
			} else {
				tab?.close();
				if ("server" in answer) {
					const next = answer.server;
					setList(
						(current) =>
							current && { ...current, servers: current.servers.map((s) => (s.name === next.name ? next : s)) },
					);
				}
			}
			setError(undefined);
		} catch (err) {
			tab?.close();
			setError(describeError(err));
		} finally {
			setBusy(undefined);
		}
	};
	return (
		<details
			class="mcp-panel"
			onToggle={(e) => {
				setOpen(e.currentTarget.open);
				if (e.currentTarget.open) void load();
			}}
		>
			<summary data-testid="mcp">MCP</summary>
			<div class="extensions-body" data-testid="mcp-view">
				<div class="extensions-buttons">
					<button type="button" data-testid="mcp-refresh" onClick={() => void load()}>
						Refresh
					</button>
				</div>
				{list && !list.available && <p class="muted">pi's MCP extension does not run in this session.</p>}
				{list?.available && list.servers.length === 0 && (
					<p class="muted">No MCP servers. Add them to the agent directory's mcp.json or the project's .pi/mcp.json.</p>
				)}
				{list?.notices.map((n) => (
					<div class="inline-error" key={n} data-testid="mcp-notice">
						{visible(n)}
					</div>
				))}
				<ul>
					{list?.servers.map((s) => (
						<McpServer
							key={s.name}
							server={s}
							busy={busy}
							onAction={(a, b) => void (a === "signin" ? signIn(s) : act(s, a, b))}
						/>
					))}
				</ul>
				{error && (
					<div class="inline-error" role="alert" data-testid="mcp-error">
						{error}
					</div>
				)}
			</div>
		</details>
	);
}

function McpServer({
	server: s,
	busy,
	onAction,
}: {
	server: McpServerView;
	busy: string | undefined;
	onAction: (action: string, body?: Record<string, unknown>) => void;
}) {
	const offers = (action: string) => s.actions.includes(action);
	const button = (action: string, label: string, body?: Record<string, unknown>) =>
		offers(action) && (
			<button
				type="button"
				data-testid={`mcp-${action}`}
				disabled={busy !== undefined}
				onClick={() =>
					onAction(action.replace(/-project$/, ""), {
						...body,
						...(action.endsWith("-project") ? { project: true } : {}),
					})
				}
			>
				{busy === `${s.name}:${action.replace(/-project$/, "")}` ? `${label}…` : label}
			</button>
		);
	return (
		<li data-testid="mcp-server" data-server={s.name} data-state={s.state}>
			<div class="extension-head">
				<strong>{visible(s.name)}</strong>{" "}
				<span class={`badge tone-${TONE[s.state] ?? "info"}`} data-testid="mcp-state" title={visible(s.stateText)}>
					{visible(s.stateText)}
				</span>{" "}
				<span class="badge" data-testid="mcp-exposure">
					{s.exposure}
				</span>
			</div>
			<div class="muted" data-testid="mcp-transport">
				{visible(s.transport)}
			</div>
			<div class="muted" data-testid="mcp-source">
				{s.scope}: {visible(s.source)}
				{s.override && ` · project override: ${visible(s.override)}`}
			</div>
			{s.tools.length > 0 && (
				<div class="muted" data-testid="mcp-tools">
					tools:{" "}
					{s.tools.map((t) => `${visible(t.tool)}${t.exposure === s.exposure ? "" : ` [${t.exposure}]`}`).join(", ")}
				</div>
			)}
			{s.error && (
				<pre class="inline-error mcp-stderr" data-testid="mcp-last-error">
					{visibleText(s.error)}
				</pre>
			)}
			<div class="extensions-buttons">
				{button("enable", "Enable")}
				{button("enable-project", "Enable in this project")}
				{button("disable", "Disable")}
				{button("disable-project", "Disable in this project")}
				{button("reconnect", "Reconnect")}
				{offers("exposure") && (
					<label>
						exposure{" "}
						<select
							data-testid="mcp-exposure-select"
							value={s.exposure}
							disabled={busy !== undefined}
							onChange={(e) => onAction("exposure", { exposure: e.currentTarget.value })}
						>
							{EXPOSURES.map((x) => (
								<option key={x} value={x}>
									{x}
								</option>
							))}
						</select>
					</label>
				)}
				{button("signin", "Sign in")}
				{s.state === "needs-sign-in" && (
					<span class="muted" data-testid="mcp-sign-in">
						needs a sign-in: Sign in opens its authorization page in a new tab (or run{" "}
						<code>pier mcp login {visible(s.name)}</code>)
					</span>
				)}
			</div>
		</li>
	);
}

/**
 * An MCP App beside its tool call: the `ui://` resource the daemon read and checked, in pier's app frame (the
 * same sandbox as app surfaces), talking MCP Apps JSON-RPC with the page (mcp-app-host.ts). Torn down, with
 * `ui/resource-teardown`, when its row leaves the transcript or the session closes.
 */
import { useContext, useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api } from "../api.js";
import { APP_FRAME_URL, APP_SANDBOX, mintToken, pageActivated } from "../app-frame.js";
import {
	boundedHeight,
	gestureProblem,
	initializeResult,
	linkTarget,
	REFUSED,
	readAppMessage,
	type RpcId,
	theme,
} from "../mcp-app-host.js";
import { SessionIdContext } from "../session-context.js";
import type { McpAppRef, McpAppView } from "../types.js";
import { visible } from "../visible.js";

type Post = (message: Record<string, unknown>) => void;

function refuse(post: Post, id: RpcId, message: string, code = REFUSED): void {
	post({ jsonrpc: "2.0", id, error: { code, message } });
}

export function McpAppFrame({ entryId, app }: { entryId: string; app: McpAppRef }) {
	const sessionId = useContext(SessionIdContext);
	const [view, setView] = useState<McpAppView | undefined>(undefined);
	const [failure, setFailure] = useState<string | undefined>(undefined);
	const [height, setHeight] = useState<number | undefined>(undefined);
	const token = useMemo(() => mintToken(), [view]);
	const frame = useRef<HTMLIFrameElement>(null);
	const mounted = useRef<string | undefined>(undefined);

	useEffect(() => {
		let current = true;
		api.mcpApp(sessionId, entryId).then(
			(loaded) => current && setView(loaded),
			(error: Error) => current && setFailure(error.message),
		);
		return () => {
			current = false;
		};
	}, [sessionId, entryId]);

	useEffect(() => {
		if (!view) return;
		let lastGesture: number | undefined;
		let initialized = false;
		const post: Post = (message) => frame.current?.contentWindow?.postMessage(message, "*");
		const onMessage = (event: MessageEvent) => {
			const message = readAppMessage(event, frame.current?.contentWindow, token);
			if (!message || message.kind === "response") return;
			if (message.kind === "gesture") {
				lastGesture = performance.now();
				return;
			}
			if (message.kind === "notification") {
				if (message.method === "ui/notifications/initialized" && !initialized) {
					initialized = true;
					post({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: view.toolInput } });
					post({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: view.toolResult });
				} else if (message.method === "ui/notifications/size-changed") {
					const next = boundedHeight(message.params);
					if (next !== undefined) setHeight(next);
				}
				return;
			}
			const { id, method, params } = message;
			if (method === "ui/initialize") post({ jsonrpc: "2.0", id, result: initializeResult(view) });
			else if (method === "ping") post({ jsonrpc: "2.0", id, result: {} });
			else if (method === "tools/call") {
				const problem = gestureProblem(lastGesture, performance.now(), pageActivated());
				if (problem) return refuse(post, id, problem);
				const name = typeof params.name === "string" ? params.name : "";
				const args = params.arguments as Record<string, unknown> | undefined;
				api.mcpAppToolCall(sessionId, entryId, name, args).then(
					({ result }) => post({ jsonrpc: "2.0", id, result }),
					(error: Error) => refuse(post, id, error.message),
				);
			} else if (method === "ui/open-link") {
				const url = linkTarget(params);
				const problem = url ? gestureProblem(lastGesture, performance.now(), pageActivated()) : "not an http(s) URL";
				if (problem || !url) return refuse(post, id, `pier refused ui/open-link: ${problem}`);
				window.open(url, "_blank", "noopener,noreferrer");
				post({ jsonrpc: "2.0", id, result: {} });
			} else {
				refuse(post, id, `pier does not offer ${method.slice(0, 64)} to MCP Apps`, -32601);
			}
		};
		window.addEventListener("message", onMessage);
		// The user's colour scheme changed: an initialized app is told, as the spec's host-context-changed says.
		const scheme = matchMedia("(prefers-color-scheme: dark)");
		const onScheme = () => {
			if (initialized)
				post({ jsonrpc: "2.0", method: "ui/notifications/host-context-changed", params: { theme: theme() } });
		};
		scheme.addEventListener("change", onScheme);
		return () => {
			window.removeEventListener("message", onMessage);
			scheme.removeEventListener("change", onScheme);
			// Best effort: the frame goes with this component, so there is no answer to wait for.
			post({ jsonrpc: "2.0", id: "teardown", method: "ui/resource-teardown", params: { reason: "removed" } });
		};
	}, [view, token, sessionId, entryId]);

	const label = `${app.server} app`;
	if (failure) {
		return (
			<div class="mcp-app mcp-app-failed" data-testid="mcp-app-error" role="alert">
				{visible(`${label} not shown: ${failure}`)}
			</div>
		);
	}
	if (!view) return <div class="mcp-app mcp-app-loading muted">{visible(`${label}…`)}</div>;
	const refused = Object.values(view.csp.refused).flat();
	return (
		<div
			class={`mcp-app${view.prefersBorder === false ? " borderless" : ""}`}
			data-testid="mcp-app"
			data-entry-id={entryId}
		>
			<iframe
				key={token}
				ref={frame}
				class="app-frame mcp-app-frame"
				data-testid="mcp-app-frame"
				data-server={app.server}
				title={visible(`${app.server}: ${app.tool}`)}
				sandbox={APP_SANDBOX}
				src={APP_FRAME_URL}
				style={height === undefined ? undefined : { height: `${height}px` }}
				onLoad={() => {
					if (mounted.current === token) return;
					mounted.current = token;
					frame.current?.contentWindow?.postMessage(
						{ type: "pichamber.mount", html: view.document, token, mcpApp: true },
						"*",
					);
				}}
				referrerpolicy="no-referrer"
				allow=""
			/>
			{refused.length > 0 && (
				<p class="mcp-app-csp muted" data-testid="mcp-app-csp">
					{visible(`Not allowed by pier's app sandbox: ${refused.join(", ")}`)}
				</p>
			)}
		</div>
	);
}

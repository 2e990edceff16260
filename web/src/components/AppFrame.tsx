/**
 * One app surface. A fresh token is minted whenever the HTML changes and the iframe is keyed by it, so a
 * reloaded app can never reuse a token an earlier document saw.
 */
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { APP_FRAME_URL, APP_SANDBOX, acceptAppMessage, buildAppDocument, mintToken } from "../app-frame.js";
import type { AppSurface } from "../types.js";
import type { RunCommand } from "./ActionButton.js";

export function AppFrame({ app, onCommand }: { app: AppSurface; onCommand: RunCommand }) {
	const token = useMemo(() => mintToken(), [app.appId, app.html]);
	const doc = useMemo(() => buildAppDocument(app.html, token), [app.html, token]);
	const frame = useRef<HTMLIFrameElement>(null);
	const mounted = useRef<string | undefined>(undefined);
	// Phones start with apps folded: an open one would take most of the screen from the transcript.
	const [initiallyOpen] = useState(() => window.matchMedia("(min-width: 700px)").matches);
	const run = useRef(onCommand);
	run.current = onCommand;

	useEffect(() => {
		const onMessage = (event: MessageEvent) => {
			const cmd = acceptAppMessage(event, frame.current?.contentWindow, token);
			if (cmd) void run.current(cmd.command, cmd.args);
		};
		window.addEventListener("message", onMessage);
		return () => window.removeEventListener("message", onMessage);
	}, [token]);

	return (
		<details class="app-surface" open={initiallyOpen} data-app-id={app.appId}>
			<summary>{app.title ?? app.appId}</summary>
			<iframe
				key={token}
				ref={frame}
				class="app-frame"
				data-testid="app-frame"
				data-app-id={app.appId}
				title={app.title ?? app.appId}
				sandbox={APP_SANDBOX}
				src={APP_FRAME_URL}
				onLoad={() => {
					// Once per mount: a later load is the app navigating its own frame, which gets nothing from us.
					if (mounted.current === token) return;
					mounted.current = token;
					// The frame's origin is opaque, so "*" is the only target that reaches it.
					frame.current?.contentWindow?.postMessage({ type: "pichamber.mount", html: doc }, "*");
				}}
				referrerpolicy="no-referrer"
				allow=""
			/>
		</details>
	);
}

export function AppDock({ apps, onCommand }: { apps: AppSurface[]; onCommand: RunCommand }) {
	if (apps.length === 0) return null;
	return (
		<div class="app-dock">
			{apps.map((app) => (
				<AppFrame key={app.appId} app={app} onCommand={onCommand} />
			))}
		</div>
	);
}

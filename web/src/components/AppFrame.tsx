/**
 * One app surface. A fresh token is minted whenever the HTML changes and the iframe is keyed by it, so a
 * reloaded app can never reuse a token an earlier document saw.
 */
import { useEffect, useMemo, useRef } from "preact/hooks";
import {
	APP_FRAME_URL,
	APP_SANDBOX,
	acceptAppMessage,
	buildAppDocument,
	mintToken,
	pageActivated,
} from "../app-frame.js";
import type { AppSurface } from "../types.js";
import { visible } from "../visible.js";

/** Runs a command on behalf of an app; the daemon checks that the app's extension owns it. */
export type RunAppCommand = (appId: string, command: string, args?: string) => Promise<void>;

export function AppFrame({ app, onCommand }: { app: AppSurface; onCommand: RunAppCommand }) {
	const token = useMemo(() => mintToken(), [app.appId, app.html]);
	const doc = useMemo(() => buildAppDocument(app.html), [app.html]);
	const frame = useRef<HTMLIFrameElement>(null);
	const mounted = useRef<string | undefined>(undefined);
	const run = useRef(onCommand);
	run.current = onCommand;

	useEffect(() => {
		const onMessage = (event: MessageEvent) => {
			const cmd = acceptAppMessage(event, frame.current?.contentWindow, token);
			if (!cmd || !pageActivated()) return;
			void run.current(app.appId, cmd.command, cmd.args);
		};
		window.addEventListener("message", onMessage);
		return () => window.removeEventListener("message", onMessage);
	}, [token, app.appId]);

	return (
		// Open from the start: the side pane or the phone's drawer keeps it out of the transcript's way.
		<details class="app-surface" open data-app-id={app.appId} tabIndex={-1}>
			<summary>{visible(app.title ?? app.appId)}</summary>
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
					// The frame's origin is opaque, so "*" is the only target that reaches it. The shell keeps the token
					// to itself; nothing else in the frame ever sees this message.
					frame.current?.contentWindow?.postMessage({ type: "pichamber.mount", html: doc, token }, "*");
				}}
				referrerpolicy="no-referrer"
				allow=""
			/>
		</details>
	);
}

export function AppDock({ apps, onCommand }: { apps: AppSurface[]; onCommand: RunAppCommand }) {
	if (apps.length === 0) return null;
	return (
		<div class="app-dock">
			{apps.map((app) => (
				<AppFrame key={app.appId} app={app} onCommand={onCommand} />
			))}
		</div>
	);
}

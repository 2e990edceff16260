/**
 * The session's extensions: each one's kind, state, what it registered, what it may do, and how it does
 * (invocations, errors, latency, restarts, its last error), from `GET /api/pi/extensions`; Reload restarts
 * them all (protocol extensions as a new generation, pi's own through pi's /reload).
 */
import { useState } from "preact/hooks";
import type { ExtensionListView } from "../../../src/chamber/extension-list.js";
import { api, describeError } from "../api.js";
import { visible } from "../visible.js";
import { AuditLog } from "./AuditLog.js";

const ms = (n: number | undefined) => (n === undefined ? "–" : n < 10 ? `${n.toFixed(2)} ms` : `${Math.round(n)} ms`);

export function ExtensionsPanel({ sessionId }: { sessionId: string }) {
	const [list, setList] = useState<ExtensionListView | undefined>();
	const [error, setError] = useState<string | undefined>();
	const load = () =>
		api.extensions<ExtensionListView>(sessionId).then(
			(r) => {
				setList(r);
				setError(undefined);
			},
			(err) => setError(describeError(err)),
		);
	const reload = async () => {
		try {
			await api.prompt(sessionId, "/reload");
			setTimeout(() => void load(), 1000);
		} catch (err) {
			setError(describeError(err));
		}
	};
	// The counts are this runtime's: a session reopened later counts afresh, and says from when.
	const since = list ? new Date(list.since).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }) : "";
	return (
		<details class="extensions-panel" onToggle={(e) => e.currentTarget.open && void load()}>
			<summary data-testid="extensions">Extensions</summary>
			<div class="extensions-body">
				<div class="extensions-buttons">
					<button type="button" data-testid="extensions-refresh" onClick={() => void load()}>
						Refresh
					</button>
					<button type="button" data-testid="extensions-reload" onClick={() => void reload()}>
						Reload all
					</button>
				</div>
				{list && list.extensions.length === 0 && <p class="muted">No extensions in this session.</p>}
				<ul>
					{list?.extensions.map((x) => (
						<li key={x.id} data-testid="extension" data-kind={x.kind} data-extension-id={x.id}>
							<div class="extension-head">
								<strong>{visible(x.name)}</strong> <span class="badge">{x.kind}</span>{" "}
								<span class={`badge state-${x.phase ?? x.state}`} data-testid="extension-state">
									{x.phase ?? x.state}
								</span>
							</div>
							{x.reason && (
								<div class="inline-error" data-testid="extension-reason">
									{visible(x.reason)}
								</div>
							)}
							{(x.tools.length > 0 || x.commands.length > 0) && (
								<div class="muted">
									{x.tools.length > 0 && `tools: ${x.tools.map(visible).join(", ")}`}
									{x.tools.length > 0 && x.commands.length > 0 && " · "}
									{x.commands.length > 0 && `commands: ${x.commands.map((c) => `/${visible(c)}`).join(", ")}`}
								</div>
							)}
							{x.capabilities.declared.length > 0 && (
								<div class="muted">
									declares {x.capabilities.declared.join(", ")}
									{x.capabilities.granted.length > 0 && ` · granted ${x.capabilities.granted.join(", ")}`}
								</div>
							)}
							<div class="muted" data-testid="extension-metrics">
								{x.metrics.invocations} calls since {since} · {x.metrics.errors} errors · p50 {ms(x.metrics.p50Ms)} ·
								p99 {ms(x.metrics.p99Ms)} · {x.metrics.restarts} restarts
							</div>
							{x.metrics.lastError && (
								<div class="inline-error" data-testid="extension-error">
									{visible(x.metrics.lastError.message)}
								</div>
							)}
						</li>
					))}
				</ul>
				{error && (
					<div class="inline-error" role="alert">
						{error}
					</div>
				)}
				{/* Issue 34: what was decided in this session (grants used or refused, rule hits). */}
				<div class="session-audit-title">Audit</div>
				<AuditLog sessionId={sessionId} />
			</div>
		</details>
	);
}

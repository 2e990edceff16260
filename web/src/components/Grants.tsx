/**
 * "Grants": which powers each installed extension has on top of its manifest (`GET/PUT /api/pi/grants`, the
 * store `pier grant` edits). Only sandboxed (QuickJS) extensions can be granted anything; process extensions
 * are listed with what they declare, since they already run as the user's own code.
 */
import { useState } from "preact/hooks";
import { ApiError, describeError } from "../api.js";

interface Overview {
	grants: Record<string, string[]>;
	extensions: { id: string; runtime: string; capabilities: string[]; sandboxed: boolean }[];
	known: { name: string; meaning: string }[];
	problems: string[];
}

async function call<T>(method: "GET" | "PUT", path: string, body?: unknown): Promise<T> {
	const res = await fetch(path, {
		method,
		credentials: "same-origin",
		headers: { Accept: "application/json", ...(method === "PUT" ? { "Content-Type": "application/json" } : {}) },
		...(body === undefined ? {} : { body: JSON.stringify(body) }),
	});
	const data = (await res.json().catch(() => undefined)) as { error?: { code: string; message: string } } | undefined;
	if (!res.ok) throw new ApiError(res.status, data?.error?.code ?? `http_${res.status}`, data?.error?.message ?? "");
	return data as T;
}

export function Grants() {
	const [overview, setOverview] = useState<Overview | undefined>();
	const [error, setError] = useState<string | undefined>();

	const load = async () => {
		setError(undefined);
		try {
			setOverview(await call<Overview>("GET", "/api/pi/grants"));
		} catch (err) {
			setError(describeError(err));
		}
	};

	const toggle = async (id: string, grant: string, on: boolean) => {
		if (!overview) return;
		const current = overview.grants[id] ?? [];
		const next = on ? [...current, grant] : current.filter((g) => g !== grant);
		setError(undefined);
		try {
			const saved = await call<{ id: string; grants: string[] }>("PUT", `/api/pi/grants/${encodeURIComponent(id)}`, {
				grants: next,
			});
			setOverview({ ...overview, grants: { ...overview.grants, [id]: saved.grants } });
		} catch (err) {
			setError(describeError(err));
		}
	};

	const ids = overview
		? [
				...overview.extensions,
				...Object.keys(overview.grants)
					.filter((id) => !overview.extensions.some((e) => e.id === id))
					.map((id) => ({ id, runtime: "not installed", capabilities: [], sandboxed: true })),
			]
		: [];

	return (
		<details class="pair-device grants" onToggle={(e) => e.currentTarget.open && void load()}>
			<summary data-testid="grants">Grants</summary>
			<div class="pair-device-body">
				<p class="muted">
					Powers a sandboxed (QuickJS) extension gets beyond its manifest. Also: <code>pier grant</code>.
				</p>
				{overview && ids.length === 0 && <p class="muted">No extensions are installed in the agent directory.</p>}
				{overview && (
					<ul class="grants-list">
						{ids.map((ext) => (
							<li key={ext.id} data-testid={`grants-${ext.id}`}>
								<div class="grants-name">
									<strong>{ext.id}</strong> <span class="muted">({ext.runtime})</span>
								</div>
								{ext.sandboxed ? (
									<div class="grants-boxes">
										{overview.known.map((k) => (
											<label key={k.name} title={k.meaning}>
												<input
													type="checkbox"
													checked={(overview.grants[ext.id] ?? []).includes(k.name)}
													onChange={(e) => void toggle(ext.id, k.name, e.currentTarget.checked)}
												/>
												{k.name}
											</label>
										))}
									</div>
								) : (
									<div class="muted">
										Runs as your own code; declares {ext.capabilities.join(", ") || "nothing"}. Grants do not apply.
									</div>
								)}
							</li>
						))}
					</ul>
				)}
				{overview?.problems.map((p) => (
					<div key={p} class="inline-error">
						{p}
					</div>
				))}
				{error && (
					<div class="inline-error" role="alert">
						{error}
					</div>
				)}
			</div>
		</details>
	);
}

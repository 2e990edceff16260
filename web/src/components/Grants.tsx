/**
 * "Grants": which powers each installed extension has on top of its manifest (`GET/PUT /api/pi/grants`, the
 * store `pier grant` edits). Only sandboxed (QuickJS) extensions can be granted anything; process extensions
 * are listed with what they declare, since they already run as the user's own code.
 */
import { useState } from "preact/hooks";
import { api, describeError } from "../api.js";

interface Overview {
	grants: Record<string, string[]>;
	extensions: { id: string; runtime: string; capabilities: string[]; sandboxed: boolean }[];
	known: { name: string; meaning: string }[];
	problems: string[];
}

export function Grants() {
	const [overview, setOverview] = useState<Overview | undefined>();
	const [error, setError] = useState<string | undefined>();

	const load = async () => {
		setError(undefined);
		try {
			setOverview(await api.grants<Overview>());
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
			const saved = await api.setGrants(id, next);
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

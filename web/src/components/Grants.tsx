/**
 * "Grants": which powers each installed extension has on top of its manifest (`GET/PUT /api/pi/grants`, the
 * store `pier grant` edits). Only sandboxed (QuickJS) extensions can be granted anything; process extensions
 * are listed with what they declare, since they already run as the user's own code. A grant is bound to an
 * extension's directory and code, so each row names the directory, and a grant whose code changed shows so.
 */
import { useEffect, useState } from "preact/hooks";
import { api, describeError } from "../api.js";

interface GrantView {
	dir: string;
	grants: string[];
	status: "current" | "changed" | "missing";
}

interface Overview {
	grants: Record<string, GrantView>;
	extensions: { id: string; dir: string; runtime: string; capabilities: string[]; sandboxed: boolean }[];
	known: { name: string; meaning: string }[];
	problems: string[];
}

const STATUS_NOTE = {
	current: "",
	changed: "its code changed since it was granted: grants nothing until granted again",
	missing: "not installed there any more: grants nothing",
} as const;

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

	useEffect(() => void load(), []);

	/** The grants in force for this directory: an entry bound elsewhere, or to older code, holds nothing here. */
	const held = (id: string, dir: string) => {
		const entry = overview?.grants[id];
		return entry && entry.dir === dir && entry.status === "current" ? entry.grants : [];
	};

	const toggle = async (id: string, dir: string, grant: string, on: boolean) => {
		if (!overview) return;
		const current = held(id, dir);
		const next = on ? [...current, grant] : current.filter((g) => g !== grant);
		setError(undefined);
		try {
			await api.setGrants(id, next, dir);
			await load();
		} catch (err) {
			setError(describeError(err));
		}
	};

	// Taking everything away needs no binding (the directory may be gone).
	const revokeAll = async (id: string) => {
		setError(undefined);
		try {
			await api.setGrants(id, []);
			await load();
		} catch (err) {
			setError(describeError(err));
		}
	};

	const rows = overview
		? [
				...overview.extensions,
				...Object.entries(overview.grants)
					.filter(([id, g]) => !overview.extensions.some((e) => e.id === id && e.dir === g.dir))
					.map(([id, g]) => ({ id, dir: g.dir, runtime: "not installed", capabilities: [], sandboxed: true })),
			]
		: [];

	return (
		<div class="grants-body">
			<p class="muted">
				Powers a sandboxed (QuickJS) extension gets beyond its manifest, bound to its directory and code. Also:{" "}
				<code>pier grant</code>.
			</p>
			{overview && rows.length === 0 && (
				<p class="muted" data-testid="grants-none">
					No QuickJS or process extension is installed in the agent directory or loaded by this daemon.
				</p>
			)}
			{overview && (
				<ul class="grants-list">
					{rows.map((ext) => {
						const entry = overview.grants[ext.id];
						const note = entry && entry.dir === ext.dir ? STATUS_NOTE[entry.status] : "";
						return (
							<li key={`${ext.id}\n${ext.dir}`} data-testid={`grants-${ext.id}`}>
								<div class="grants-name">
									<strong>{ext.id}</strong> <span class="muted">({ext.runtime})</span>
									<div class="muted">
										<code>{ext.dir}</code>
									</div>
									{note && <div class="inline-error">{note}</div>}
								</div>
								{ext.sandboxed && ext.runtime !== "not installed" ? (
									<div class="grants-boxes">
										{overview.known.map((k) => (
											<label key={k.name} title={k.meaning}>
												<input
													type="checkbox"
													checked={held(ext.id, ext.dir).includes(k.name)}
													onChange={(e) => void toggle(ext.id, ext.dir, k.name, e.currentTarget.checked)}
												/>
												{k.name}
											</label>
										))}
									</div>
								) : ext.sandboxed ? (
									<div class="grants-boxes">
										<button type="button" onClick={() => void revokeAll(ext.id)}>
											Revoke all
										</button>
									</div>
								) : (
									<div class="muted">
										Runs as your own code; declares {ext.capabilities.join(", ") || "nothing"}. Grants do not apply.
									</div>
								)}
							</li>
						);
					})}
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
	);
}

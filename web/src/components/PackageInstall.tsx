/**
 * Installing a package from the Packages view: the source is inspected first (`POST /api/pi/packages/inspect`,
 * nothing of it runs), the inspection is shown — each extension, its kind, how it runs, what it declares, the
 * grants a sandboxed one can be given, install scripts that will be skipped, the trust decision — and the
 * install runs only after the user confirms, with the grants ticked here named in the question.
 */
import { useEffect, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import type { InspectedExtension, InstallAnswer, Inspection, PackageScope } from "../types.js";
import { useConfirm } from "./Confirm.js";

const RUNS: Record<InspectedExtension["runsAs"], string> = {
	sandbox: "sandboxed (QuickJS): only the grants you give",
	process: "its own process, with your powers",
	native: "native code, with your powers",
	pi: "inside pi, with your powers",
};

export function PackageInstall({
	source,
	cwd,
	onDone,
	onCancel,
}: {
	source: string;
	cwd: string;
	onDone: (message: string) => void;
	onCancel: () => void;
}) {
	const confirm = useConfirm();
	const [scope, setScope] = useState<PackageScope>("user");
	const [inspection, setInspection] = useState<Inspection | undefined>();
	const [chosen, setChosen] = useState<Record<string, string[]>>({});
	const [busy, setBusy] = useState<"inspecting" | "installing" | undefined>("inspecting");
	const [error, setError] = useState<string | undefined>();

	useEffect(() => {
		let live = true;
		setBusy("inspecting");
		setInspection(undefined);
		setError(undefined);
		api
			.packageAction<Inspection>("inspect", { source, scope, cwd })
			.then((found) => {
				if (!live) return;
				setInspection(found);
				setChosen(Object.fromEntries(found.extensions.map((e) => [e.id, e.grants.held])));
			})
			.catch((err) => live && setError(describeError(err)))
			.finally(() => live && setBusy(undefined));
		return () => {
			live = false;
		};
	}, [source, scope, cwd]);

	const toggle = (id: string, grant: string, on: boolean) =>
		setChosen((prev) => {
			const now = prev[id] ?? [];
			return { ...prev, [id]: on ? [...now.filter((g) => g !== grant), grant] : now.filter((g) => g !== grant) };
		});

	const install = async () => {
		if (!inspection) return;
		const grants = inspection.extensions
			.filter((e) => e.grants.grantable && e.digest && (chosen[e.id] ?? []).length > 0)
			.map((e) => ({ id: e.id, digest: e.digest!, grants: chosen[e.id]! }));
		const where = scope === "user" ? "for all projects" : `for ${inspection.trust.cwd ?? "this project"}`;
		const granted =
			grants.length === 0
				? "No grants: its sandboxed extensions get none of run, write, read or net."
				: `Grants: ${grants.map((g) => `${g.id}: ${g.grants.join(", ")}`).join("; ")}.`;
		const ok = await confirm(
			`Install ${inspection.name ?? inspection.source} ${where}? Its install scripts do not run; its extensions load in sessions started from now on. ${granted}`,
			{ confirmLabel: "Install" },
		);
		if (!ok) return;
		setBusy("installing");
		setError(undefined);
		try {
			const done = await api.packageAction<InstallAnswer>("install", {
				source: inspection.source,
				scope,
				cwd,
				confirmed: true,
				...(grants.length > 0 ? { grants } : {}),
			});
			const refused = done.grants.refused.map((r) => `${r.id}: ${r.reason}`).join("; ");
			onDone([done.output, done.notices, refused && `not granted: ${refused}`].filter(Boolean).join("\n"));
		} catch (err) {
			setError(describeError(err));
		} finally {
			setBusy(undefined);
		}
	};

	return (
		<section class="pkg-install" data-testid="package-install" aria-label={`Install ${source}`}>
			<h3>
				Install <code>{source}</code>
			</h3>
			<fieldset class="pkg-scope">
				<legend>For</legend>
				<label>
					<input type="radio" name="pkg-scope" checked={scope === "user"} onChange={() => setScope("user")} />
					all projects
				</label>
				<label>
					<input type="radio" name="pkg-scope" checked={scope === "project"} onChange={() => setScope("project")} />
					this project only (<code>{cwd}</code>)
				</label>
			</fieldset>
			{busy === "inspecting" && <p class="muted">Inspecting (nothing of it runs)…</p>}
			{inspection && (
				<div data-testid="package-inspection">
					<p>
						<strong>{inspection.name ?? inspection.source}</strong>
						{inspection.version && <span class="muted"> {inspection.version}</span>}
						{inspection.description && <span> — {inspection.description}</span>}
					</p>
					<p class={inspection.trust.trusted ? "muted" : "inline-error"} data-testid="package-trust">
						{inspection.trust.summary}
					</p>
					{inspection.extensions.length === 0 ? (
						<p class="muted">No extensions (skills, prompts or themes only, or nothing pier loads).</p>
					) : (
						<ul class="pkg-extensions">
							{inspection.extensions.map((e) => (
								<li key={`${e.id}\n${e.rel}`} data-testid={`inspect-${e.id}`}>
									<div>
										<strong>{e.id}</strong> <span class="pkg-kind">{e.kind}</span>{" "}
										<span class="muted">runs {RUNS[e.runsAs]}</span>
									</div>
									<div class="muted">
										declares {e.capabilities.join(", ") || "nothing"}
										{e.uiCapabilities.length > 0 && ` (ui: ${e.uiCapabilities.join(", ")})`}
									</div>
									{e.problem && <div class="inline-error">{e.problem}</div>}
									{e.grants.grantable && (
										<fieldset class="grants-boxes pkg-grants">
											<legend>Grants for {e.id}</legend>
											{e.grants.known.map((g) => (
												<label key={g}>
													<input
														type="checkbox"
														checked={(chosen[e.id] ?? []).includes(g)}
														onChange={(ev) => toggle(e.id, g, ev.currentTarget.checked)}
													/>
													{g}
												</label>
											))}
										</fieldset>
									)}
								</li>
							))}
						</ul>
					)}
					{inspection.scripts.length > 0 && (
						<p class="muted" data-testid="package-scripts">
							Install scripts that will not run:{" "}
							{inspection.scripts.map((s) => `${s.name} (${s.scripts.join(", ")})`).join(", ")}. Allow them by name with{" "}
							<code>pier install {inspection.source} --allow-scripts …</code> if it needs them.
						</p>
					)}
				</div>
			)}
			{error && (
				<div class="inline-error" role="alert">
					{error}
				</div>
			)}
			<div class="pkg-buttons">
				<button type="button" onClick={onCancel} disabled={busy === "installing"}>
					Cancel
				</button>
				<button
					type="button"
					class="primary"
					data-testid="package-install-confirm"
					disabled={!inspection || busy !== undefined || !inspection.trust.trusted}
					onClick={() => void install()}
				>
					{busy === "installing" ? "Installing…" : "Install…"}
				</button>
			</div>
		</section>
	);
}

/**
 * "Packages": pi packages, installed and to find (`/api/pi/packages`). Installed packages show their version
 * (and a newer one the registry has), state and extensions, with Update, Remove, and switches for every project
 * and for the project the daemon runs in. Find searches the npm registry (PackagesFind.tsx); any install, from a
 * result or a source typed here, goes through the inspection and its confirmation (PackageInstall.tsx).
 */
import { useEffect, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import type { InstalledPackage, InstalledView } from "../types.js";
import { useConfirm } from "./Confirm.js";
import { PackageInstall } from "./PackageInstall.js";
import { PackagesFind } from "./PackagesFind.js";

type Tab = "installed" | "find";

export function Packages() {
	const confirm = useConfirm();
	const [tab, setTab] = useState<Tab>("installed");
	const [view, setView] = useState<InstalledView | undefined>();
	const [installing, setInstalling] = useState<string | undefined>();
	const [source, setSource] = useState("");
	const [busy, setBusy] = useState<string | undefined>();
	const [message, setMessage] = useState<string | undefined>();
	const [error, setError] = useState<string | undefined>();

	const load = async () => {
		try {
			setView(await api.packages<InstalledView>());
		} catch (err) {
			setError(describeError(err));
		}
	};
	useEffect(() => void load(), []);
	const cwd = view?.project.cwd ?? "";

	const act = async (label: string, run: () => Promise<unknown>) => {
		setBusy(label);
		setError(undefined);
		setMessage(undefined);
		try {
			const done = (await run()) as { output?: string } | undefined;
			if (done?.output) setMessage(done.output);
			await load();
		} catch (err) {
			setError(describeError(err));
		} finally {
			setBusy(undefined);
		}
	};

	const remove = async (p: InstalledPackage) => {
		const ok = await confirm(
			`Remove ${p.source} (${p.scope})? Its settings entry goes, and its checkout or npm install with it.`,
			{ confirmLabel: "Remove", danger: true },
		);
		if (ok)
			await act(`remove ${p.source}`, () => api.packageAction("remove", { source: p.source, scope: p.scope, cwd }));
	};

	const setEnabled = (p: InstalledPackage, enabled: boolean, here: boolean) =>
		act(`switch ${p.source}`, () =>
			api.packageEnabled({ identity: p.identity!, enabled, ...(here ? { project: cwd } : {}) }),
		);

	if (installing)
		return (
			<div class="packages-body">
				<PackageInstall
					source={installing}
					cwd={cwd}
					onCancel={() => setInstalling(undefined)}
					onDone={(text) => {
						setInstalling(undefined);
						setTab("installed");
						setMessage(text);
						void load();
					}}
				/>
			</div>
		);

	return (
		<div class="packages-body">
			<div class="pkg-tabs" role="tablist">
				{(["installed", "find"] as const).map((t) => (
					<button
						key={t}
						type="button"
						role="tab"
						aria-selected={tab === t}
						data-testid={`packages-tab-${t}`}
						onClick={() => setTab(t)}
					>
						{t === "installed" ? "Installed" : "Find"}
					</button>
				))}
			</div>
			{message && (
				<pre class="pkg-output" data-testid="packages-output">
					{message}
				</pre>
			)}
			{error && (
				<div class="inline-error" role="alert" data-testid="packages-error">
					{error}
				</div>
			)}
			{tab === "find" ? (
				<PackagesFind cwd={cwd} onInstall={setInstalling} />
			) : (
				<>
					<form
						class="pkg-search"
						onSubmit={(e) => {
							e.preventDefault();
							if (source.trim()) setInstalling(source.trim());
						}}
					>
						<input
							aria-label="Package source"
							placeholder="npm:name, git:host/owner/repo, or a directory"
							value={source}
							data-testid="package-source"
							onInput={(e) => setSource(e.currentTarget.value)}
						/>
						<button type="submit" disabled={!source.trim()} data-testid="package-source-install">
							Install…
						</button>
					</form>
					{view && (
						<p class="muted">
							This project: <code>{view.project.cwd}</code>
							{view.project.trusted ? "" : " (not trusted: its own packages do not load)"}
						</p>
					)}
					{view && view.packages.length === 0 && (
						<p class="muted" data-testid="packages-none">
							No packages installed. Find one, or type a source above.
						</p>
					)}
					<ul class="pkg-installed">
						{view?.packages.map((p) => (
							<InstalledRow
								key={`${p.scope}\n${p.source}`}
								p={p}
								busy={busy !== undefined}
								onUpdate={() => act(`update ${p.source}`, () => api.packageAction("update", { source: p.source, cwd }))}
								onRemove={() => void remove(p)}
								onEnabled={(on, here) => void setEnabled(p, on, here)}
							/>
						))}
					</ul>
					{busy && <p class="muted">{busy}…</p>}
				</>
			)}
		</div>
	);
}

function InstalledRow({
	p,
	busy,
	onUpdate,
	onRemove,
	onEnabled,
}: {
	p: InstalledPackage;
	busy: boolean;
	onUpdate: () => void;
	onRemove: () => void;
	onEnabled: (enabled: boolean, here: boolean) => void;
}) {
	const name = p.source;
	return (
		<li data-testid={`installed-${name}`}>
			<div class="pkg-row-head">
				<strong>{name}</strong> <span class="pkg-kind">{p.scope}</span>{" "}
				<span class="muted">
					{p.version ?? ""} {p.state}
				</span>
				{p.newer && (
					<span class="pkg-badge" data-testid="package-newer">
						{p.latest} available
					</span>
				)}
			</div>
			{p.reason && <div class="muted">{p.reason}</div>}
			{p.extensions.length > 0 && (
				<div class="muted">{p.extensions.map((e) => `${e.id} (${e.kind}${e.enabled ? "" : ", off"})`).join(", ")}</div>
			)}
			<div class="pkg-row-actions">
				{p.identity && p.scope === "user" && (
					<label>
						<input
							type="checkbox"
							checked={p.enabled}
							disabled={busy}
							data-testid="package-enabled-all"
							onChange={(e) => onEnabled(e.currentTarget.checked, false)}
						/>
						on for all projects
					</label>
				)}
				{p.identity && (
					<label>
						<input
							type="checkbox"
							checked={p.enabledHere}
							disabled={busy || (p.scope === "user" && !p.enabled)}
							data-testid="package-enabled-here"
							onChange={(e) => onEnabled(e.currentTarget.checked, true)}
						/>
						on in this project
					</label>
				)}
				{p.kind !== "local" && (
					<button type="button" disabled={busy} onClick={onUpdate}>
						Update
					</button>
				)}
				<button type="button" class="danger" disabled={busy} data-testid="package-remove" onClick={onRemove}>
					Remove
				</button>
			</div>
		</li>
	);
}

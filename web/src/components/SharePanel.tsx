/**
 * Issue 35, share links: the Share control in the composer's row. It makes a link to this session alone (view:
 * watch it live, read-only; control: drive this session from another device, without its terminal), for a chosen
 * time, shows it once to copy, and lists the session's live links with a Revoke each.
 */
import { useCallback, useState } from "preact/hooks";
import type { CreatedShare, ShareInfo, ShareMode } from "../../../src/chamber/share/share-wire.js";
import { describeError, shareApi } from "../api.js";
import { useToast } from "./Toasts.js";

/** The server allows 1 s to a day (SHARE_TTL_MAX_SECONDS); the page offers a few lengths in between. */
const TTLS: readonly (readonly [number, string])[] = [
	[15 * 60, "15 minutes"],
	[60 * 60, "1 hour"],
	[8 * 60 * 60, "8 hours"],
	[24 * 60 * 60, "24 hours"],
];

const when = (iso: string) => new Date(iso).toLocaleString([], { dateStyle: "short", timeStyle: "short" });

export function SharePanel({ sessionId }: { sessionId: string }) {
	const [mode, setMode] = useState<ShareMode>("view");
	const [ttl, setTtl] = useState(60 * 60);
	const [created, setCreated] = useState<CreatedShare | undefined>();
	const [shares, setShares] = useState<ShareInfo[]>([]);
	const [error, setError] = useState<string | undefined>();
	const [busy, setBusy] = useState(false);
	const toast = useToast();

	const load = useCallback(
		() =>
			shareApi.list(sessionId).then(
				(r) => setShares(r.shares),
				(err) => setError(describeError(err)),
			),
		[sessionId],
	);

	const create = async () => {
		setBusy(true);
		setError(undefined);
		try {
			const made = await shareApi.create(sessionId, mode, ttl);
			setCreated(made);
			await load();
		} catch (err) {
			setError(describeError(err));
		} finally {
			setBusy(false);
		}
	};

	const copy = async (url: string) => {
		try {
			await navigator.clipboard.writeText(url);
			toast("Link copied.");
		} catch {
			// No clipboard on plain http from another device: the field is selected for a manual copy.
			(document.querySelector("[data-testid=share-url]") as HTMLInputElement | null)?.select();
		}
	};

	const revoke = async (id: string) => {
		try {
			await shareApi.revoke(id);
			if (created?.id === id) setCreated(undefined);
			toast("Link revoked: whoever had it open is cut off.");
			await load();
		} catch (err) {
			setError(describeError(err));
		}
	};

	return (
		<details class="share-panel" onToggle={(e) => e.currentTarget.open && void load()}>
			<summary data-testid="share">Share</summary>
			<div class="extensions-body share-body" data-testid="share-body">
				<p class="muted">
					A link to this session alone. <strong>View</strong>: watch it live, read-only. <strong>Control</strong>: drive
					this session from another device (no terminal, no other session).
				</p>
				<div class="share-form">
					<label>
						Mode
						<select data-testid="share-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as ShareMode)}>
							<option value="view">View only</option>
							<option value="control">Control</option>
						</select>
					</label>
					<label>
						Expires in
						<select data-testid="share-ttl" value={String(ttl)} onChange={(e) => setTtl(Number(e.currentTarget.value))}>
							{TTLS.map(([seconds, label]) => (
								<option key={seconds} value={String(seconds)}>
									{label}
								</option>
							))}
						</select>
					</label>
					<button
						type="button"
						class="primary"
						data-testid="share-create"
						disabled={busy}
						onClick={() => void create()}
					>
						Create link
					</button>
				</div>
				{created && (
					<div class="share-created">
						<label>
							{created.mode === "view" ? "View-only link" : "Control link"}, shown once:
							<input data-testid="share-url" readOnly value={created.url} onFocus={(e) => e.currentTarget.select()} />
						</label>
						<button type="button" data-testid="share-copy" onClick={() => void copy(created.url)}>
							Copy
						</button>
					</div>
				)}
				{error && (
					<p class="inline-error" role="alert">
						{error}
					</p>
				)}
				<ul data-testid="share-list">
					{shares.length === 0 && <li class="muted">No live links to this session.</li>}
					{shares.map((s) => (
						<li key={s.id} data-testid="share-item">
							<span>
								{s.mode === "view" ? "View only" : "Control"} · until {when(s.expiresAt)}
							</span>
							<button
								type="button"
								class="danger share-revoke"
								data-testid="share-revoke"
								onClick={() => void revoke(s.id)}
							>
								Revoke
							</button>
						</li>
					))}
				</ul>
			</div>
		</details>
	);
}

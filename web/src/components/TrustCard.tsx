/**
 * The trust question for a project a new session would start in: what the project has (each thing once), what
 * its `.pi/mcp.json` would start, and the three answers. The parent folder's path sits on its own line, so a
 * long one wraps instead of pushing the buttons out of the card.
 */
import type { TrustView } from "../types.js";
import { visible } from "../visible.js";

/** What the project's `.pi/mcp.json` would start: each server's command line or URL (the daemon left out secrets). */
function McpPreview({ mcp }: { mcp: NonNullable<TrustView["mcp"]> }) {
	if (mcp.problem)
		return (
			<p class="trust-mcp" data-testid="trust-mcp">
				<code>{mcp.file}</code> is malformed: {visible(mcp.problem)}. pi would start none of its servers.
			</p>
		);
	return (
		<div class="trust-mcp" data-testid="trust-mcp">
			<p>
				<code>{mcp.file}</code> would start {mcp.servers.length === 0 ? "no MCP servers." : "these MCP servers:"}
			</p>
			{mcp.servers.length > 0 && (
				<ul>
					{mcp.servers.map((s) => (
						<li key={s.name} data-testid="trust-mcp-server">
							<strong>{visible(s.name)}</strong>: <code>{visible(s.launch)}</code>
						</li>
					))}
					{mcp.more ? <li>… and {mcp.more} more</li> : null}
				</ul>
			)}
		</div>
	);
}

interface Props {
	/** The daemon's question, shown as is when the project's trust view could not be read. */
	question: string;
	view: TrustView | undefined;
	busy: boolean;
	onAnswer: (trust: boolean, parent?: boolean) => void;
}

export function TrustCard({ question, view, busy, onAnswer }: Props) {
	return (
		<div class="trust" role="alertdialog" aria-labelledby="trust-title" data-testid="trust-card">
			<h2 id="trust-title" class="trust-title">
				Trust this project?
			</h2>
			<p data-testid="trust-detail">
				{view ? (
					<>
						<code>{visible(view.cwd)}</code> has files pier would load, and they can run code:{" "}
						{view.resources.map((r, i) => (
							<span key={r}>
								{i > 0 && ", "}
								<code>{visible(r)}</code>
							</span>
						))}
						.
					</>
				) : (
					visible(question)
				)}
			</p>
			{view?.mcp && <McpPreview mcp={view.mcp} />}
			<div class="trust-buttons">
				<button type="button" data-testid="trust-no" disabled={busy} onClick={() => onAnswer(false)}>
					Do not trust
				</button>
				<button
					type="button"
					data-testid="trust-parent"
					disabled={busy}
					title={view?.parent}
					onClick={() => onAnswer(true, true)}
				>
					Trust the parent folder
					{view?.parent && <span class="trust-parent-path">{visible(view.parent)}</span>}
				</button>
				<button type="button" class="primary" data-testid="trust-yes" disabled={busy} onClick={() => onAnswer(true)}>
					Trust
				</button>
			</div>
			<p class="muted trust-note">
				Your answer is kept in pi's trust.json, which <code>pier trust</code> also reads and changes.
			</p>
		</div>
	);
}

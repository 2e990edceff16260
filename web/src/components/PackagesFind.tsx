/**
 * Finding pi packages on the npm registry (`GET /api/pi/packages/search`, `…/details`): results with version,
 * weekly downloads and an installed mark; a result opens its details with the README (the app's sanitized
 * Markdown) and the versions, and "Install…" starts the inspected install (PackageInstall.tsx).
 */
import { useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import type { PackageDetails, SearchAnswer } from "../types.js";
import { Markdown } from "./Markdown.js";

const count = new Intl.NumberFormat("en-US");
const downloads = (n: number | undefined) => (n === undefined ? "downloads unknown" : `${count.format(n)} / week`);

export function PackagesFind({ cwd, onInstall }: { cwd: string; onInstall: (source: string) => void }) {
	const [query, setQuery] = useState("");
	const [answer, setAnswer] = useState<SearchAnswer | undefined>();
	const [details, setDetails] = useState<PackageDetails | undefined>();
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | undefined>();

	const search = async () => {
		setBusy(true);
		setError(undefined);
		setDetails(undefined);
		try {
			setAnswer(await api.packageSearch<SearchAnswer>(query, cwd));
		} catch (err) {
			setError(describeError(err));
		} finally {
			setBusy(false);
		}
	};

	const open = async (name: string) => {
		setBusy(true);
		setError(undefined);
		try {
			setDetails(await api.packageDetails<PackageDetails>(name, cwd));
		} catch (err) {
			setError(describeError(err));
		} finally {
			setBusy(false);
		}
	};

	return (
		<div class="pkg-find">
			<form
				class="pkg-search"
				onSubmit={(e) => {
					e.preventDefault();
					void search();
				}}
			>
				<input
					type="search"
					aria-label="Search pi packages"
					placeholder="Search pi packages on npm"
					value={query}
					maxLength={200}
					data-testid="package-search"
					onInput={(e) => setQuery(e.currentTarget.value)}
				/>
				<button type="submit" class="primary" disabled={busy}>
					Search
				</button>
			</form>
			{error && (
				<div class="inline-error" role="alert" data-testid="package-search-error">
					{error}
				</div>
			)}
			{details ? (
				<article class="pkg-details" data-testid="package-details">
					<button type="button" class="pkg-back" onClick={() => setDetails(undefined)}>
						← Results
					</button>
					<h3>{details.name}</h3>
					<p>{details.description}</p>
					<p class="muted">
						{details.latest && `latest ${details.latest} · `}
						{details.versions.length} versions · {downloads(details.weeklyDownloads)}
						{details.license && ` · ${details.license}`}
						{details.installed.length > 0 && ` · installed (${details.installed.join(", ")})`}
					</p>
					<div class="pkg-buttons">
						<button
							type="button"
							class="primary"
							data-testid="package-details-install"
							onClick={() => onInstall(`npm:${details.name}`)}
						>
							{details.installed.length > 0 ? "Install again…" : "Install…"}
						</button>
					</div>
					{details.readme ? (
						<Markdown text={details.readme} class="pkg-readme" cached={false} />
					) : (
						<p class="muted">No README.</p>
					)}
					{details.readmeTruncated && <p class="muted">The README is cut here.</p>}
				</article>
			) : (
				answer && (
					<>
						<p class="muted" data-testid="package-search-summary">
							{answer.results.length} of {answer.total} from {answer.registry}
							{answer.downloadsNote && ` · ${answer.downloadsNote}`}
						</p>
						<ul class="pkg-results">
							{answer.results.map((r) => (
								<li key={r.name} data-testid={`result-${r.name}`}>
									<button type="button" class="pkg-result" onClick={() => void open(r.name)}>
										<span class="pkg-result-head">
											<strong>{r.name}</strong> <span class="muted">{r.version}</span>
											{r.installed.length > 0 && <span class="pkg-badge">installed</span>}
										</span>
										<span class="pkg-result-desc">{r.description}</span>
										<span class="muted">{downloads(r.weeklyDownloads)}</span>
									</button>
								</li>
							))}
						</ul>
					</>
				)
			)}
		</div>
	);
}

/**
 * The providers pi knows, searchable: those with credentials listed open, the rest (most of pi's thirty-odd)
 * folded under one line until the user searches or unfolds them. An OAuth provider points at pier's own
 * sign-in command, as the daemon says it is run where it was started.
 */
import { useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import type { ProviderView } from "../types.js";
import { visible } from "../visible.js";

const SOURCE: Record<ProviderView["credentials"], string> = {
	"auth.json": "key in pi's auth.json",
	environment: "key from the environment",
	"models.json": "configured in models.json",
	runtime: "built in",
	none: "no key",
};

function KeyForm({ provider, onSaved }: { provider: ProviderView; onSaved: () => void }) {
	const [key, setKey] = useState("");
	const [error, setError] = useState<string | undefined>();
	return (
		<form
			class="provider-key"
			onSubmit={async (e) => {
				e.preventDefault();
				try {
					await api.setProviderKey(provider.id, key.trim());
					setKey("");
					onSaved();
				} catch (err) {
					setError(describeError(err));
				}
			}}
		>
			<input
				type="password"
				autoComplete="off"
				data-testid={`provider-key-${provider.id}`}
				aria-label={`API key for ${provider.name}`}
				placeholder="API key"
				value={key}
				onInput={(e) => setKey(e.currentTarget.value)}
			/>
			<button type="submit" disabled={!key.trim()}>
				Save
			</button>
			{provider.credentials === "auth.json" && (
				<button
					type="button"
					onClick={() => void api.removeProviderKey(provider.id).then(onSaved, (err) => setError(describeError(err)))}
				>
					Remove
				</button>
			)}
			{error && <span class="inline-error">{error}</span>}
		</form>
	);
}

function ProviderRow({ p, command, onChanged }: { p: ProviderView; command: string; onChanged: () => void }) {
	return (
		<li data-testid="provider" data-provider={p.id} data-credentials={p.credentials}>
			<div>
				<strong>{visible(p.name)}</strong> <span class="muted">{p.models} models</span>{" "}
				<span class={`badge ${p.credentials === "none" ? "" : "ok"}`}>{SOURCE[p.credentials]}</span>
			</div>
			{p.credentials !== "runtime" && p.credentials !== "environment" && <KeyForm provider={p} onSaved={onChanged} />}
			{p.oauth && p.credentials === "none" && (
				<div class="muted" data-testid="provider-oauth">
					Or sign in with your account: run <code>{`${command} auth login ${p.id}`}</code> in a terminal.
				</div>
			)}
		</li>
	);
}

export function ProviderList(props: { providers: ProviderView[]; command: string; onChanged: () => void }) {
	const [query, setQuery] = useState("");
	const q = query.trim().toLowerCase();
	const matching = props.providers.filter((p) => !q || `${p.id} ${p.name}`.toLowerCase().includes(q));
	const set = matching.filter((p) => p.credentials !== "none");
	const unset = matching.filter((p) => p.credentials === "none");
	const row = (p: ProviderView) => <ProviderRow key={p.id} p={p} command={props.command} onChanged={props.onChanged} />;
	return (
		<div class="provider-list">
			<input
				type="search"
				data-testid="provider-search"
				aria-label="Search providers"
				placeholder={`Search ${props.providers.length} providers`}
				value={query}
				onInput={(e) => setQuery(e.currentTarget.value)}
			/>
			<ul data-testid="providers-set">{set.map(row)}</ul>
			{unset.length > 0 &&
				(q ? (
					<ul data-testid="providers-unset">{unset.map(row)}</ul>
				) : (
					<details class="providers-unset">
						<summary data-testid="providers-unset-toggle">
							{unset.length} provider{unset.length === 1 ? "" : "s"} without credentials
						</summary>
						<ul data-testid="providers-unset">{unset.map(row)}</ul>
					</details>
				))}
			{matching.length === 0 && <p class="muted">No provider matches “{query.trim()}”.</p>}
		</div>
	);
}

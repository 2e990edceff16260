/**
 * "Providers": pi's providers and where each one's credentials come from (environment, pi's auth.json,
 * models.json, or none); a key set here is stored in pi's auth.json (so `pi` and `pier` both use it), and a
 * custom OpenAI-compatible provider is added to pi's models.json. Keys go in and never come back out.
 */
import { useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import { visible } from "../visible.js";
import { forgetModels } from "./Pickers.js";

interface ProviderView {
	id: string;
	name: string;
	credentials: "auth.json" | "environment" | "models.json" | "runtime" | "none";
	models: number;
	custom: boolean;
	oauth: boolean;
}

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

function CustomProvider({ onAdded }: { onAdded: () => void }) {
	const [form, setForm] = useState({ id: "", baseUrl: "", api: "openai-completions", apiKey: "", models: "" });
	const [error, setError] = useState<string | undefined>();
	const field = (name: keyof typeof form, label: string, type = "text") => (
		<input
			type={type}
			data-testid={`custom-${name}`}
			aria-label={label}
			placeholder={label}
			value={form[name]}
			onInput={(e) => setForm({ ...form, [name]: e.currentTarget.value })}
		/>
	);
	return (
		<form
			class="custom-provider"
			onSubmit={async (e) => {
				e.preventDefault();
				setError(undefined);
				try {
					await api.addProvider({
						id: form.id.trim(),
						baseUrl: form.baseUrl.trim(),
						api: form.api,
						...(form.apiKey.trim() ? { apiKey: form.apiKey.trim() } : {}),
						models: form.models
							.split(",")
							.map((m) => m.trim())
							.filter(Boolean)
							.map((id) => ({ id })),
					});
					setForm({ id: "", baseUrl: "", api: "openai-completions", apiKey: "", models: "" });
					onAdded();
				} catch (err) {
					setError(describeError(err));
				}
			}}
		>
			<h3>Add an OpenAI-compatible provider</h3>
			{field("id", "Provider id (e.g. local)")}
			{field("baseUrl", "Base URL (e.g. http://127.0.0.1:8080/v1)")}
			<select
				data-testid="custom-api"
				aria-label="API"
				value={form.api}
				onChange={(e) => setForm({ ...form, api: e.currentTarget.value })}
			>
				<option value="openai-completions">OpenAI chat completions</option>
				<option value="openai-responses">OpenAI responses</option>
				<option value="anthropic-messages">Anthropic messages</option>
			</select>
			{field("apiKey", "API key (optional)", "password")}
			{field("models", "Model ids, comma-separated")}
			<button type="submit" class="primary" data-testid="custom-add">
				Add to models.json
			</button>
			{error && (
				<div class="inline-error" role="alert">
					{error}
				</div>
			)}
		</form>
	);
}

export function Providers() {
	const [providers, setProviders] = useState<ProviderView[] | undefined>();
	const [error, setError] = useState<string | undefined>();
	const load = async () => {
		setError(undefined);
		try {
			setProviders((await api.providers<{ providers: ProviderView[] }>()).providers);
		} catch (err) {
			setError(describeError(err));
		}
	};
	const changed = () => {
		forgetModels();
		void load();
	};
	return (
		<details class="pair-device providers" onToggle={(e) => e.currentTarget.open && void load()}>
			<summary data-testid="providers">Providers</summary>
			<div class="pair-device-body providers-body">
				<ul>
					{providers?.map((p) => (
						<li key={p.id} data-testid="provider" data-provider={p.id} data-credentials={p.credentials}>
							<div>
								<strong>{visible(p.name)}</strong> <span class="muted">{p.models} models</span>{" "}
								<span class={`badge ${p.credentials === "none" ? "" : "ok"}`}>{SOURCE[p.credentials]}</span>
							</div>
							{p.credentials !== "runtime" && p.credentials !== "environment" && !p.custom && (
								<KeyForm provider={p} onSaved={changed} />
							)}
							{p.oauth && p.credentials === "none" && (
								<div class="muted">Or sign in with pi's terminal: run `pi`, then /login ({visible(p.name)}).</div>
							)}
						</li>
					))}
				</ul>
				<CustomProvider onAdded={changed} />
				{error && (
					<div class="inline-error" role="alert">
						{error}
					</div>
				)}
			</div>
		</details>
	);
}

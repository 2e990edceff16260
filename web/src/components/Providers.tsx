/**
 * "Providers": pi's providers and where each one's credentials come from (environment, pi's auth.json,
 * models.json, or none); a key set here is stored in pi's auth.json (so `pi` and `pier` both use it), and a
 * custom OpenAI-compatible provider is added to pi's models.json. Keys go in and never come back out.
 */
import { useEffect, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import type { CustomProviderResult, ProviderView } from "../types.js";
import { forgetModels } from "./Pickers.js";
import { ProviderList } from "./ProviderList.js";

/** pi's verdict on what was written, in words, for the line next to the button. */
function verdict(r: CustomProviderResult): string {
	const models = `${r.models} model${r.models === 1 ? "" : "s"}`;
	const key = r.placeholderKey
		? ' No key given: the placeholder key "none" was written, for a server that needs none.'
		: "";
	const sessions =
		r.sessionsUpdated > 0
			? ` ${r.sessionsUpdated} open session${r.sessionsUpdated === 1 ? " has" : "s have"} them now.`
			: "";
	return `Saved: pi loads ${r.provider} with ${models}, ${r.usable} usable.${key}${sessions}`;
}

function CustomProvider({ onAdded }: { onAdded: () => void }) {
	const [form, setForm] = useState({ id: "", baseUrl: "", api: "openai-completions", apiKey: "", models: "" });
	const [error, setError] = useState<string | undefined>();
	const [saved, setSaved] = useState<string | undefined>();
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
				setSaved(undefined);
				try {
					const result = await api.addProvider({
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
					setSaved(verdict(result));
					onAdded();
				} catch (err) {
					setError(describeError(err));
				}
			}}
		>
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
			{field("apiKey", "API key (leave empty if the server needs none)", "password")}
			{field("models", "Model ids, comma-separated")}
			<div class="custom-provider-submit">
				<button type="submit" class="primary" data-testid="custom-add">
					Add to models.json
				</button>
				<span role="status" data-testid="custom-result" class={error ? "inline-error" : "muted"}>
					{error ?? saved ?? ""}
				</span>
			</div>
		</form>
	);
}

export function Providers() {
	const [list, setList] = useState<{ providers: ProviderView[]; command: string } | undefined>();
	const [error, setError] = useState<string | undefined>();
	const load = async () => {
		setError(undefined);
		try {
			setList(await api.providers<{ providers: ProviderView[]; command: string }>());
		} catch (err) {
			setError(describeError(err));
		}
	};
	useEffect(() => void load(), []);
	const changed = () => {
		forgetModels();
		void load();
	};
	return (
		<div class="providers-body">
			<details class="custom-provider-section">
				<summary data-testid="custom-provider-toggle">Add a custom provider (models.json)</summary>
				<CustomProvider onAdded={changed} />
			</details>
			{list && <ProviderList providers={list.providers} command={list.command} onChanged={changed} />}
			{error && (
				<div class="inline-error" role="alert">
					{error}
				</div>
			)}
		</div>
	);
}

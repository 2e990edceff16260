/** Model and thinking-level pickers under the composer. */
import { useEffect, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import { THINKING_LEVELS, type ModelView } from "../types.js";
import { useToast } from "./Toasts.js";

/** By session: a session's extensions may provide models of their own. */
const modelsCache = new Map<string, Promise<ModelView[]>>();

/** After a provider's key or a custom provider changed: the next picker asks again. */
export function forgetModels(): void {
	modelsCache.clear();
}

export function loadModels(sessionId: string): Promise<ModelView[]> {
	let models = modelsCache.get(sessionId);
	if (!models) {
		models = api.models(sessionId).then(
			(r) => r.models,
			(err) => {
				// Do not cache a failure: the next session open asks again.
				modelsCache.delete(sessionId);
				throw err;
			},
		);
		modelsCache.set(sessionId, models);
	}
	return models;
}

/** The models a session can use, fetched once per session and page. */
export function useModels(sessionId: string): ModelView[] {
	const [models, setModels] = useState<ModelView[]>([]);
	useEffect(() => {
		let live = true;
		loadModels(sessionId).then(
			(list) => live && setModels(list),
			() => {},
		);
		return () => {
			live = false;
		};
	}, [sessionId]);
	return models;
}

interface ModelPickerProps {
	sessionId: string;
	model?: string;
	onChanged: (model: string) => void;
}

/** Past this many models the picker gets a filter box (name, id or provider). */
const SEARCH_FROM = 8;

export function ModelPicker({ sessionId, model, onChanged }: ModelPickerProps) {
	const all = useModels(sessionId);
	const [busy, setBusy] = useState(false);
	const [filter, setFilter] = useState("");
	const toast = useToast();
	const q = filter.trim().toLowerCase();
	// The current model stays listed whatever the filter says: the select must show what the session has.
	const models = q ? all.filter((m) => m.ref === model || `${m.ref} ${m.name}`.toLowerCase().includes(q)) : all;
	const known = models.some((m) => m.ref === model);
	return (
		<>
			{all.length > SEARCH_FROM && (
				<input
					type="search"
					class="picker-filter"
					data-testid="model-filter"
					aria-label="Filter models"
					placeholder="Filter models"
					value={filter}
					onInput={(e) => setFilter(e.currentTarget.value)}
				/>
			)}
			<select
				class="picker"
				data-testid="model-picker"
				aria-label="Model"
				title="Model"
				value={model ?? ""}
				disabled={busy}
				onChange={async (e) => {
					const el = e.currentTarget;
					const ref = el.value;
					if (!ref || ref === model) return;
					setBusy(true);
					try {
						const r = await api.setModel(sessionId, ref);
						onChanged(r.model);
					} catch (err) {
						toast(describeError(err), "error");
						// The select shows what was picked; put it back to what the session has.
						el.value = model ?? "";
					} finally {
						setBusy(false);
					}
				}}
			>
				{!model && <option value="">No model</option>}
				{model && !known && <option value={model}>{model}</option>}
				{byProvider(models).map(([provider, list]) => (
					<optgroup key={provider} label={provider}>
						{list.map((m) => (
							<option key={m.ref} value={m.ref}>
								{m.name === m.ref ? m.ref : `${m.name} (${m.provider})`}
							</option>
						))}
					</optgroup>
				))}
			</select>
		</>
	);
}

/** The picker's groups: one per provider, in the order the daemon lists them. */
function byProvider(models: readonly ModelView[]): [string, ModelView[]][] {
	const groups = new Map<string, ModelView[]>();
	for (const m of models) groups.set(m.provider, [...(groups.get(m.provider) ?? []), m]);
	return [...groups];
}

interface ThinkingPickerProps {
	sessionId: string;
	model?: string;
	level: string;
	onChanged: (level: string) => void;
}

export function ThinkingPicker({ sessionId, model, level, onChanged }: ThinkingPickerProps) {
	const [busy, setBusy] = useState(false);
	// Only the levels the model supports (the daemon says which): a level it would refuse is never offered.
	const known = useModels(sessionId).find((m) => m.ref === model);
	const levels: readonly string[] = known?.thinkingLevels ?? THINKING_LEVELS;
	const cannotThink = levels.length === 1 && levels[0] === "off";
	const toast = useToast();
	return (
		<select
			class="picker"
			data-testid="thinking-picker"
			aria-label="Thinking level"
			title={cannotThink ? "This model does not support thinking" : "Thinking level"}
			value={level}
			disabled={busy}
			onChange={async (e) => {
				const el = e.currentTarget;
				const next = el.value;
				if (next === level) return;
				setBusy(true);
				try {
					const r = await api.setThinking(sessionId, next);
					onChanged(r.thinkingLevel);
				} catch (err) {
					toast(describeError(err), "error");
					el.value = level;
				} finally {
					setBusy(false);
				}
			}}
		>
			{!levels.includes(level) && <option value={level}>{level}</option>}
			{levels.map((l) => (
				<option key={l} value={l}>
					thinking: {l}
				</option>
			))}
		</select>
	);
}

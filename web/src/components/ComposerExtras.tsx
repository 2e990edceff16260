/** What sits around the message box for pi's habits: `@file` suggestions, attached images, the queue. */
import type { ImageAttachment } from "../api.js";
import type { QueueView } from "../types.js";
import { visible, visiblePath } from "../visible.js";

export function FileSuggestions({
	files,
	highlight,
	onPick,
}: {
	files: string[];
	highlight: number;
	onPick: (path: string) => void;
}) {
	return (
		<ul class="suggestions" data-testid="file-suggestions" aria-label="Project files">
			{files.map((f, i) => (
				<li key={f} class={i === highlight ? "suggestion active" : "suggestion"} data-file={f}>
					<button
						type="button"
						class="suggestion-pick"
						onMouseDown={(e) => e.preventDefault()}
						onClick={() => onPick(f)}
					>
						<span class="suggestion-name">@{visiblePath(f)}</span>
					</button>
				</li>
			))}
		</ul>
	);
}

export function ImageStrip({ images, onRemove }: { images: ImageAttachment[]; onRemove: (index: number) => void }) {
	if (images.length === 0) return null;
	return (
		<div class="image-strip" data-testid="attached-images">
			{images.map((img, i) => (
				<figure key={i} class="image-chip">
					<img src={`data:${img.mimeType};base64,${img.data}`} alt={`attachment ${i + 1}`} />
					<button type="button" class="icon-button" aria-label={`Remove image ${i + 1}`} onClick={() => onRemove(i)}>
						×
					</button>
				</figure>
			))}
		</div>
	);
}

/** Steers and follow-ups pi holds until it delivers them; Cancel takes them all back into the box (pi's dequeue). */
export function QueuedMessages({ queue, onCancel }: { queue: QueueView | undefined; onCancel: () => void }) {
	if (!queue || queue.steering.length + queue.followUp.length === 0) return null;
	const items = [
		...queue.steering.map((text) => ({ kind: "steer", text })),
		...queue.followUp.map((text) => ({ kind: "follow-up", text })),
	];
	return (
		<div class="queued" data-testid="queued">
			<ul>
				{items.map((item, i) => (
					<li key={i} data-testid="queued-message" data-kind={item.kind}>
						<span class="queued-kind">{item.kind}</span> {visible(item.text)}
					</li>
				))}
			</ul>
			<button type="button" class="link-button" data-testid="queue-cancel" onClick={onCancel}>
				Cancel queued
			</button>
		</div>
	);
}

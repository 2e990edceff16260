/**
 * What a user message carried besides its words: `@file` attachments as chips (name and size; a click shows the
 * text that went to the model) and its images as thumbnails.
 */
import { useContext, useEffect, useState } from "preact/hooks";
import { api } from "../api.js";
import { basename } from "../format.js";
import { SessionIdContext } from "../session-context.js";
import type { AttachedFile } from "../types.js";
import { visible, visibleText } from "../visible.js";

export function formatBytes(bytes: number): string {
	if (bytes < 1024) return `${bytes} B`;
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
	return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function FileChips({ files }: { files: AttachedFile[] }) {
	const [open, setOpen] = useState<number | undefined>();
	const shown = open === undefined ? undefined : files[open];
	return (
		<div class="file-chips" data-testid="file-chips">
			<div class="file-chip-row">
				{files.map((f, i) => (
					<button
						key={f.path}
						type="button"
						class={`file-chip${open === i ? " open" : ""}`}
						data-testid="file-chip"
						data-path={f.path}
						aria-expanded={open === i}
						title={visible(f.path)}
						onClick={() => setOpen(open === i ? undefined : i)}
					>
						<span aria-hidden="true">{f.image ? "▣" : "▤"}</span> {visible(basename(f.path))}
						<span class="muted"> · {f.image ? "image" : formatBytes(f.bytes ?? 0)}</span>
					</button>
				))}
			</div>
			{shown && (
				<pre class="file-preview" data-testid="file-preview">
					{visibleText(shown.text) || (shown.image ? "(the image went with the message)" : "(empty)")}
				</pre>
			)}
		</div>
	);
}

/** One image of a user message, fetched when its row is drawn (the row itself carries only the count). */
function Thumbnail({ entryId, n }: { entryId: string; n: number }) {
	const sessionId = useContext(SessionIdContext);
	const [src, setSrc] = useState<string | undefined>();
	const [failed, setFailed] = useState(false);
	const [big, setBig] = useState(false);
	useEffect(() => {
		if (!sessionId) return;
		let gone = false;
		api.userImage(sessionId, entryId, n).then(
			(image) => !gone && setSrc(`data:${image.mimeType};base64,${image.data}`),
			() => !gone && setFailed(true),
		);
		return () => {
			gone = true;
		};
	}, [sessionId, entryId, n]);
	if (failed) return <span class="muted thumb-missing">image {n + 1} unavailable</span>;
	if (!src) return <span class="thumb thumb-loading" />;
	return (
		<button
			type="button"
			class={`thumb-button${big ? " big" : ""}`}
			aria-label={big ? `Shrink image ${n + 1}` : `Enlarge image ${n + 1}`}
			onClick={() => setBig(!big)}
		>
			<img class="thumb" data-testid="user-thumbnail" src={src} alt={`attachment ${n + 1}`} />
		</button>
	);
}

export function Thumbnails({ entryId, count }: { entryId: string; count: number }) {
	return (
		<div class="thumbs" data-testid="user-thumbnails">
			{Array.from({ length: Math.min(count, 64) }, (_, n) => (
				<Thumbnail key={n} entryId={entryId} n={n} />
			))}
		</div>
	);
}

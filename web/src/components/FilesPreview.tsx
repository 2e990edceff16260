/**
 * A project file, read-only: source with syntax colour (syntax.ts, fetched on first use; plain until it has
 * arrived), an image as an image (a `data:` URL, the only image source the page's CSP allows), or what the
 * file is when it is not shown (binary, past the preview's size limit). From here the file is attached to the
 * prompt as `@path`, or its path copied.
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import { lazyModule } from "../lazy-module.js";
import type { FilePreview } from "../types.js";
import { visiblePath } from "../visible.js";
import { requestAttachFile } from "./FilesComposer.js";
import { Icon } from "./Icon.js";
import { useToast } from "./Toasts.js";
import { formatBytes } from "./UserAttachments.js";

const syntaxModule = lazyModule(() => import("../syntax.js"));

function Code({ preview }: { preview: Extract<FilePreview, { kind: "text" }> }) {
	const syntax = syntaxModule.use();
	useEffect(() => void syntaxModule.load().catch(() => {}), []);
	const language = syntax?.languageOf(preview.path);
	// highlight.js escapes the text and adds only its own spans: safe as HTML (syntax.ts).
	const html = useMemo(
		() => (syntax ? syntax.highlightLines(preview.text, language) : undefined),
		[syntax, preview.text, language],
	);
	const lines = preview.text.split("\n");
	if (lines.length > 1 && lines.at(-1) === "") lines.pop();
	return (
		<pre class="files-code" data-testid="files-preview-text" data-language={language ?? ""}>
			{lines.map((line, i) => (
				<div key={i} class="files-line">
					<span class="files-num" aria-hidden="true">
						{i + 1}
					</span>
					{html?.[i] !== undefined ? (
						// highlight.js's output: the escaped source and its own spans (syntax.ts).
						<code class="files-src" dangerouslySetInnerHTML={{ __html: html[i] }} />
					) : (
						<code class="files-src">{line}</code>
					)}
				</div>
			))}
		</pre>
	);
}

function Body({ preview }: { preview: FilePreview }) {
	switch (preview.kind) {
		case "text":
			return <Code preview={preview} />;
		case "image":
			return (
				<div class="files-image">
					<img
						data-testid="files-preview-image"
						src={`data:${preview.mimeType};base64,${preview.data}`}
						alt={visiblePath(preview.path)}
					/>
				</div>
			);
		case "binary":
			return (
				<p class="files-note" data-testid="files-preview-binary">
					A binary file ({formatBytes(preview.size)}): it is not shown.
				</p>
			);
		case "too_large":
			return (
				<p class="files-note" data-testid="files-preview-too-large">
					{formatBytes(preview.size)}, over the {formatBytes(preview.limit)} a preview shows. Open it in an editor, or
					ask the agent to read the part you need.
				</p>
			);
	}
}

export function FilesPreview({
	sessionId,
	path,
	onBack,
	onAttached,
}: {
	sessionId: string;
	path: string;
	onBack: () => void;
	onAttached: () => void;
}) {
	const [preview, setPreview] = useState<FilePreview | undefined>();
	const [error, setError] = useState<string | undefined>();
	const toast = useToast();
	useEffect(() => {
		let live = true;
		setPreview(undefined);
		setError(undefined);
		api.filePreview(sessionId, path).then(
			(p) => live && setPreview(p),
			(err) => live && setError(describeError(err)),
		);
		return () => {
			live = false;
		};
	}, [sessionId, path]);
	const copy = async () => {
		try {
			await navigator.clipboard.writeText(path);
			toast(`Copied ${visiblePath(path)}`);
		} catch {
			toast("The browser did not allow copying; select the path instead.", "warning");
		}
	};
	return (
		<div class="files-preview-pane" data-testid="files-preview" data-path={path} data-kind={preview?.kind ?? ""}>
			<div class="files-preview-head">
				<button type="button" class="icon-button files-back" aria-label="Back to the folders" onClick={onBack}>
					<Icon name="arrow-left" />
				</button>
				<code class="files-path" data-testid="files-preview-path" title={path}>
					{visiblePath(path)}
				</code>
				{preview && <span class="muted files-size">{formatBytes(preview.size)}</span>}
				<div class="files-actions">
					<button type="button" data-testid="files-copy" onClick={() => void copy()}>
						<Icon name="copy" /> Copy path
					</button>
					<button
						type="button"
						class="primary"
						data-testid="files-attach"
						// What a prompt can carry: text and images (pi reads a binary file as text, and refuses large ones).
						disabled={preview?.kind !== "text" && preview?.kind !== "image"}
						title="Attach to the message as @file"
						onClick={() => {
							requestAttachFile(path);
							onAttached();
						}}
					>
						<Icon name="paperclip" /> Attach
					</button>
				</div>
			</div>
			{error && (
				<div class="inline-error" role="alert" data-testid="files-preview-error">
					{error}
				</div>
			)}
			{!preview && !error && <p class="muted">Loading…</p>}
			{preview && <Body preview={preview} />}
		</div>
	);
}

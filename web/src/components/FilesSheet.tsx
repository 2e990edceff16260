/**
 * The file browser of the session's project (its directory): folders opened one level at a time, a file in a
 * read-only preview, and an upload into the folder last opened. On a desktop the folders and the preview sit
 * side by side; on a phone the preview takes the sheet, with a way back.
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { api, describeError } from "../api.js";
import type { FileEntry } from "../types.js";
import { FilesPreview } from "./FilesPreview.js";
import { type Loaded, Level } from "./FilesTree.js";
import { FilesUpload } from "./FilesUpload.js";
import { Icon } from "./Icon.js";
import { useToast } from "./Toasts.js";

const IGNORE_NOTE = {
	git: "git's ignore rules apply",
	gitignore: "the root .gitignore applies",
	none: "no .gitignore",
} as const;

export function FilesSheet({ sessionId, onClose }: { sessionId: string; onClose: () => void }) {
	const [dirs, setDirs] = useState<Map<string, Loaded>>(new Map());
	const [open, setOpen] = useState<Set<string>>(new Set());
	const [folder, setFolder] = useState("");
	/** The file previewed; `n` counts uploads, so a replaced file is read again. */
	const [file, setFile] = useState<{ path: string; n: number } | undefined>();
	const sheet = useRef<HTMLDivElement>(null);
	const toast = useToast();

	const load = useCallback(
		(dir: string) => {
			setDirs((m) => new Map(m).set(dir, m.get(dir) ?? "loading"));
			api.fileList(sessionId, dir).then(
				(listing) => setDirs((m) => new Map(m).set(dir, listing)),
				(err) => setDirs((m) => new Map(m).set(dir, { error: describeError(err) })),
			);
		},
		[sessionId],
	);
	useEffect(() => {
		load("");
		sheet.current?.focus();
	}, [load]);

	const toggle = (dir: string) => {
		setFolder(dir);
		const opening = !open.has(dir);
		setOpen((s) => {
			const next = new Set(s);
			if (opening) next.add(dir);
			else next.delete(dir);
			return next;
		});
		if (opening) load(dir);
	};
	const pick = (entry: FileEntry) => setFile({ path: entry.path, n: 0 });
	const root = dirs.get("");
	const ignore = root && root !== "loading" && !("error" in root) ? IGNORE_NOTE[root.ignore] : undefined;

	return (
		// biome-ignore lint/a11y/noStaticElementInteractions: a click beside the sheet closes it; Escape and × do too
		<div
			class="modal-backdrop files-backdrop"
			onClick={(e) => e.target === e.currentTarget && onClose()}
			onKeyDown={(e) => {
				if (e.key === "Escape") {
					e.preventDefault();
					onClose();
				}
			}}
		>
			<div
				ref={sheet}
				tabIndex={-1}
				class="modal files-sheet"
				role="dialog"
				aria-modal="true"
				aria-label="Project files"
				data-testid="files"
				data-view={file ? "preview" : "tree"}
			>
				<div class="files-head">
					<h2>Files</h2>
					{ignore && <span class="muted files-ignore">{ignore}</span>}
					<button type="button" class="icon-button" aria-label="Close" data-testid="files-close" onClick={onClose}>
						<Icon name="close" />
					</button>
				</div>
				<div class="files-body">
					<nav class="files-tree" aria-label="Project folders" data-testid="files-tree">
						<button
							type="button"
							class={`files-entry files-root${folder === "" ? " selected" : ""}`}
							onClick={() => setFolder("")}
						>
							<Icon name="folder" /> <span class="files-name">project root</span>
						</button>
						<Level
							dir=""
							depth={0}
							props={{ dirs, open, selected: file?.path ?? folder, onToggle: toggle, onPick: pick }}
						/>
					</nav>
					<section class="files-preview" aria-label="Preview">
						{file ? (
							<FilesPreview
								key={`${file.path}\n${file.n}`}
								sessionId={sessionId}
								path={file.path}
								onBack={() => setFile(undefined)}
								onAttached={() => {
									toast(`Attached @${file.path} to the message`);
									onClose();
								}}
							/>
						) : (
							<p class="muted files-hint">Pick a file to preview it.</p>
						)}
					</section>
				</div>
				<FilesUpload
					sessionId={sessionId}
					dir={folder}
					onUploaded={(done) => {
						toast(done.replaced ? `Replaced ${done.path}` : `Uploaded ${done.path}`);
						load(folder);
						setFile((f) => ({ path: done.path, n: (f?.n ?? 0) + 1 }));
					}}
				/>
			</div>
		</div>
	);
}

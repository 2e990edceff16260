/**
 * The project's folders, one level at a time: a folder is listed when it is first opened (the daemon lists one
 * directory per request, `.gitignore` applied). A symlink leading out of the project is shown, marked, and
 * refused if opened.
 */
import type { FileEntry, FileListing } from "../types.js";
import { visible } from "../visible.js";
import { Icon } from "./Icon.js";

export type Loaded = FileListing | { error: string } | "loading";

interface TreeProps {
	dirs: ReadonlyMap<string, Loaded>;
	open: ReadonlySet<string>;
	selected: string | undefined;
	onToggle: (dir: string) => void;
	onPick: (entry: FileEntry) => void;
}

function Entry({ entry, depth, props }: { entry: FileEntry; depth: number; props: TreeProps }) {
	const isOpen = entry.kind === "dir" && props.open.has(entry.path);
	return (
		<li
			data-testid="files-entry"
			data-path={entry.path}
			data-kind={entry.kind}
			{...(entry.outside ? { "data-outside": "true" } : {})}
		>
			<button
				type="button"
				class={`files-entry${props.selected === entry.path ? " selected" : ""}${entry.outside ? " outside" : ""}`}
				style={{ paddingLeft: `${0.4 + depth * 0.9}rem` }}
				aria-expanded={entry.kind === "dir" ? isOpen : undefined}
				title={entry.outside ? "A link leading outside the project: it is not opened" : entry.path}
				onClick={() => (entry.kind === "dir" ? props.onToggle(entry.path) : props.onPick(entry))}
			>
				<Icon name={entry.kind === "dir" ? "folder" : "file"} />
				<span class="files-name">{visible(entry.name)}</span>
				{entry.link && <span class="files-link">{entry.outside ? "→ outside the project" : "→"}</span>}
			</button>
			{isOpen && <Level dir={entry.path} depth={depth + 1} props={props} />}
		</li>
	);
}

export function Level({ dir, depth, props }: { dir: string; depth: number; props: TreeProps }) {
	const loaded = props.dirs.get(dir);
	if (loaded === undefined || loaded === "loading") return <p class="muted files-loading">Loading…</p>;
	if ("error" in loaded)
		return (
			<div class="inline-error" role="alert">
				{loaded.error}
			</div>
		);
	if (loaded.entries.length === 0) return <p class="muted files-empty">{depth === 0 ? "No files." : "Empty."}</p>;
	return (
		<ul class="files-list" data-dir={dir}>
			{loaded.entries.map((entry) => (
				<Entry key={entry.path} entry={entry} depth={depth} props={props} />
			))}
			{loaded.truncated && <li class="muted">More entries than a listing shows.</li>}
		</ul>
	);
}

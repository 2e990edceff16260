/**
 * Notices session files written outside the daemon (`pier run`, pi's terminal, another daemon): pi's session
 * directory is watched (fs.watch, recursive), and a burst of changes is reported once, by file path.
 */
import { type FSWatcher, mkdirSync, watch } from "node:fs";
import { join } from "node:path";

/** A turn writes several lines in quick succession: one report per burst. */
const SETTLE_MS = 150;

export class SessionWatch {
	private watcher: FSWatcher | undefined;
	private timer: NodeJS.Timeout | undefined;
	private readonly changed = new Set<string>();

	constructor(
		private readonly root: string,
		private readonly onChange: (paths: string[]) => void,
	) {}

	start(): void {
		try {
			mkdirSync(this.root, { recursive: true });
			this.watcher = watch(this.root, { recursive: true }, (_event, name) => {
				const path = name?.toString();
				if (!path?.endsWith(".jsonl")) return;
				this.changed.add(join(this.root, path));
				this.timer ??= setTimeout(() => this.flush(), SETTLE_MS);
			});
			this.watcher.on("error", () => this.stop());
		} catch {
			// No watching here (a file system without it): the list is as fresh as its last request.
		}
	}

	private flush(): void {
		this.timer = undefined;
		const paths = [...this.changed];
		this.changed.clear();
		if (paths.length > 0) this.onChange(paths);
	}

	stop(): void {
		clearTimeout(this.timer);
		this.timer = undefined;
		this.watcher?.close();
		this.watcher = undefined;
	}
}

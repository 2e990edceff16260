/**
 * The Files button of the composer's row. The file browser it opens (FilesSheet.tsx, with its tree, previews and
 * upload) is its own chunk, fetched the first time the button is pressed.
 */
import { useState } from "preact/hooks";
import { lazyView } from "../lazy-view.js";
import { Icon } from "./Icon.js";

const FilesSheet = lazyView(
	() => import("./FilesSheet.js"),
	(m) => m.FilesSheet,
	"the file browser",
);

/** The Files button of the composer's row, and the sheet it opens. */
export function FilesPanel({ sessionId }: { sessionId: string }) {
	const [shown, setShown] = useState(false);
	return (
		<>
			<button type="button" class="files-open" data-testid="files-open" onClick={() => setShown(true)}>
				<Icon name="folder" /> Files
			</button>
			{shown && <FilesSheet sessionId={sessionId} onClose={() => setShown(false)} />}
		</>
	);
}

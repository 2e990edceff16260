/**
 * A unified diff from the Changes view (`---`/`+++`, `@@` hunks), drawn with the tool rows' diff look
 * (ToolBody.tsx) and each line coloured for its file's language (syntax.ts, fetched on first use; until it has
 * arrived the lines show plain). highlight.js escapes the text, so its HTML is safe to set.
 */
import { lazyModule } from "../lazy-module.js";
import { visibleText } from "../visible.js";

const syntax = lazyModule(() => import("../syntax.js"));

type Kind = "added" | "removed" | "context" | "skip";

interface Line {
	kind: Kind;
	old: string;
	new: string;
	text: string;
}

/** Lines with their numbers on each side; a hunk header becomes a "skip" line showing where the hunk starts. */
export function parseUnified(diff: string): Line[] {
	const out: Line[] = [];
	let a = 0;
	let b = 0;
	let inHunk = false;
	for (const raw of diff.split("\n")) {
		const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(raw);
		// The `---`/`+++` header comes before the first hunk; inside one, "--- x" is a removed line "-- x".
		if (!hunk && (!inHunk || raw === "")) continue;
		if (hunk) {
			inHunk = true;
			a = Number(hunk[1]);
			b = Number(hunk[2]);
			// A new file's hunk says -0,0; its first line is 1.
			if (a === 0) a = 1;
			if (b === 0) b = 1;
			out.push({ kind: "skip", old: "", new: "", text: raw });
			continue;
		}
		const sign = raw[0];
		const text = raw.slice(1);
		if (sign === "+") out.push({ kind: "added", old: "", new: String(b++), text });
		else if (sign === "-") out.push({ kind: "removed", old: String(a++), new: "", text });
		else if (sign === " ") out.push({ kind: "context", old: String(a++), new: String(b++), text });
		else if (sign === "\\") out.push({ kind: "skip", old: "", new: "", text: text.trim() });
	}
	return out;
}

export function ChangesDiff({ path, diff }: { path: string; diff: string }) {
	const mod = syntax.use();
	if (!mod) void syntax.load().catch(() => {});
	const language = mod?.languageOf(path);
	const lines = parseUnified(diff);
	return (
		<pre class="diff-lines changes-diff" data-testid="changes-diff">
			{lines.map((l, i) => (
				<div key={i} class={`diff-line diff-${l.kind}`} data-diff={l.kind}>
					<span class="diff-sign" aria-hidden="true">
						{l.kind === "added" ? "+" : l.kind === "removed" ? "−" : " "}
					</span>
					<span class="diff-num">{l.kind === "added" ? l.new : l.old}</span>
					{l.kind === "skip" || !mod ? (
						<span class="diff-text">{visibleText(l.text)}</span>
					) : (
						// highlight.js's output escapes the source text and adds only its own spans (syntax.ts).
						<span class="diff-text" dangerouslySetInnerHTML={{ __html: mod.highlightLine(l.text, language) }} />
					)}
				</div>
			))}
		</pre>
	);
}

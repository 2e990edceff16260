/**
 * A unified diff of two file contents, made here rather than by git so the same code serves a git repository
 * (contents read from git's blobs) and a plain directory (contents from pier's snapshots). Myers' O(ND) line
 * diff after trimming the common head and tail; past a bound on the edit distance the middle is shown as
 * replaced whole, which is still a correct diff, only not the smallest.
 */

/** Lines of context around each change, as `git diff` and `diff -u` show by default. */
const CONTEXT = 3;
/** Past this many differing lines the search stops and the middle is shown replaced (time and memory O(D²)). */
const MAX_EDIT_DISTANCE = 2_000;
/** A file with a NUL byte in its first 8,000 bytes is binary, as git decides it. */
const BINARY_SNIFF = 8_000;

export function isBinary(bytes: Buffer): boolean {
	return bytes.subarray(0, BINARY_SNIFF).includes(0);
}

type Op = { kind: " " | "-" | "+"; line: string };

/** A last line without its newline ends in NO_NEWLINE, so it differs from the same words with one. */
const NO_NEWLINE = "\u0000";

function splitLines(text: string): string[] {
	if (text === "") return [];
	const lines = (text.endsWith("\n") ? text.slice(0, -1) : `${text}${NO_NEWLINE}`).split("\n");
	return lines;
}

/** The shortest edit script from a to b (Myers 1986), or undefined past MAX_EDIT_DISTANCE. */
function myers(a: string[], b: string[]): Op[] | undefined {
	const n = a.length;
	const m = b.length;
	const max = Math.min(n + m, MAX_EDIT_DISTANCE);
	const offset = max + 1;
	let v = new Int32Array(2 * max + 3);
	const trace: Int32Array[] = [];
	for (let d = 0; d <= max; d++) {
		trace.push(v.slice());
		const next = v.slice();
		for (let k = -d; k <= d; k += 2) {
			let x: number;
			if (k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)) x = v[offset + k + 1]!;
			else x = v[offset + k - 1]! + 1;
			let y = x - k;
			while (x < n && y < m && a[x] === b[y]) {
				x++;
				y++;
			}
			next[offset + k] = x;
			if (x >= n && y >= m) return backtrack(a, b, trace, d, offset);
		}
		v = next;
	}
	return undefined;
}

function backtrack(a: string[], b: string[], trace: Int32Array[], d: number, offset: number): Op[] {
	const ops: Op[] = [];
	let x = a.length;
	let y = b.length;
	for (let step = d; step >= 0; step--) {
		const k = x - y;
		let prevK: number;
		if (step === 0) prevK = k;
		else {
			const prev = trace[step]!;
			prevK = k === -step || (k !== step && prev[offset + k - 1]! < prev[offset + k + 1]!) ? k + 1 : k - 1;
		}
		const prevX = step === 0 ? 0 : trace[step]![offset + prevK]!;
		const prevY = prevX - prevK;
		while (x > prevX && y > prevY) {
			x--;
			y--;
			ops.push({ kind: " ", line: a[x]! });
		}
		if (step > 0) {
			if (x === prevX) ops.push({ kind: "+", line: b[--y]! });
			else ops.push({ kind: "-", line: a[--x]! });
		}
	}
	return ops.reverse();
}

function editScript(a: string[], b: string[]): Op[] {
	let head = 0;
	while (head < a.length && head < b.length && a[head] === b[head]) head++;
	let tail = 0;
	while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
	const midA = a.slice(head, a.length - tail);
	const midB = b.slice(head, b.length - tail);
	const middle = myers(midA, midB) ?? [
		...midA.map((line) => ({ kind: "-" as const, line })),
		...midB.map((line) => ({ kind: "+" as const, line })),
	];
	return [
		...a.slice(0, head).map((line) => ({ kind: " " as const, line })),
		...middle,
		...a.slice(a.length - tail).map((line) => ({ kind: " " as const, line })),
	];
}

/** A hunk header's side: `start,count`, `start` alone for one line, the line before for none (`0,0`: empty). */
const range = (start: number, count: number) =>
	count === 1 ? `${start}` : count === 0 ? `${start - 1},0` : `${start},${count}`;

/**
 * `--- a/path` / `+++ b/path` (or /dev/null for a side that does not exist) and the hunks, or "" when the two
 * are equal. Text is compared line by line; a missing final newline is marked as `diff -u` marks it.
 */
export function unifiedDiff(path: string, before: string | null, after: string | null): string {
	if (before === after) return "";
	const ops = editScript(splitLines(before ?? ""), splitLines(after ?? ""));
	const out: string[] = [
		before === null ? "--- /dev/null" : `--- a/${path}`,
		after === null ? "+++ /dev/null" : `+++ b/${path}`,
	];
	// Walk the script with each op's line numbers, cutting hunks where unchanged runs exceed twice the context.
	const numbered = [] as { op: Op; ia: number; ib: number }[];
	let ia = 0;
	let ib = 0;
	for (const op of ops) {
		numbered.push({ op, ia, ib });
		if (op.kind !== "+") ia++;
		if (op.kind !== "-") ib++;
	}
	let i = 0;
	while (i < numbered.length) {
		while (i < numbered.length && numbered[i]!.op.kind === " ") i++;
		if (i >= numbered.length) break;
		const start = Math.max(0, i - CONTEXT);
		let end = i;
		// Extend while the next change is within 2×CONTEXT unchanged lines.
		for (;;) {
			while (end < numbered.length && numbered[end]!.op.kind !== " ") end++;
			let gap = end;
			while (gap < numbered.length && numbered[gap]!.op.kind === " ") gap++;
			if (gap < numbered.length && gap - end <= 2 * CONTEXT) end = gap;
			else {
				end = Math.min(numbered.length, end + CONTEXT);
				break;
			}
		}
		const hunk = numbered.slice(start, end);
		const countA = hunk.filter((h) => h.op.kind !== "+").length;
		const countB = hunk.filter((h) => h.op.kind !== "-").length;
		const first = hunk[0]!;
		out.push(`@@ -${range(first.ia + 1, countA)} +${range(first.ib + 1, countB)} @@`);
		for (const { op } of hunk) {
			if (!op.line.endsWith(NO_NEWLINE)) out.push(`${op.kind}${op.line}`);
			else out.push(`${op.kind}${op.line.slice(0, -1)}`, "\\ No newline at end of file");
		}
		i = end;
	}
	return `${out.join("\n")}\n`;
}

/**
 * What may differ between two runs of the same program on the same prompts, and so is replaced before
 * pi's output is compared with pier's. Each rule is listed in NORMALISATIONS with its reason (docs/parity.md
 * copies the list); nothing else is touched.
 */
import type { RunOutput } from "./programs.js";

export const NORMALISATIONS: Array<{ what: string; why: string }> = [
	{
		what: "the run's root directory (agent dir, HOME, project) → <root>, also as pi encodes it in session directory names",
		why: "every run gets a fresh temporary directory",
	},
	{ what: "127.0.0.1:<port> → 127.0.0.1:<port>", why: "every run gets its own model server on a free port" },
	{ what: "UUIDs → <uuid-N>, numbered by first appearance", why: "session ids are random (UUIDv7)" },
	{
		what: "8-hex-digit words → <id-N>, numbered by first appearance (in fields and in text)",
		why: 'session entry ids (id, parentId, …) are random, and extensions quote them ("Fork from entry …?")',
	},
	{
		what: "ISO times, session-file name times, and numbers under `timestamp` keys → <time>",
		why: "wall-clock time of the run",
	},
	{
		what: "numbers under `durationMs` and `wall_time_seconds` keys → <ms>",
		why: "how long the model server took to answer on this run (pi 1.6 records it), and how long a bash command ran",
	},
	{
		what: "`durationMs` of an aborted answer is dropped",
		why: "pi records it only when the server's answer had begun before the abort: a race, in pi as in pier",
	},
	{
		what: "pier's stderr lines `pier: model …` and `pier: rpc mode · model …` are dropped",
		why: "pier says which model and session it uses (pi says nothing); docs/parity.md, on purpose",
	},
	{
		what: "pier's diagnostic prefixes `pier: error: `, `pier: warning: `, `pier: note: ` are read as pi's `Error: `, `Warning: ` and none; the message after them is compared",
		why: "pier names itself on every stderr line it writes, its own diagnostics (trust, packages) among pi's; docs/parity.md, on purpose",
	},
	{
		what: "request headers other than authorization are not compared",
		why: "user agents name the program and version",
	},
	{
		what: "stdout lines a case marks as timer-driven (titlebar-spinner's spinner frames) are left out",
		why: "how many a run produces, and where they fall among the events, depends on the machine's speed",
	},
];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const SHORT_ID = /\b[0-9a-f]{8}\b/g;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}[:-]\d{2}[:-]\d{2}(?:[.-]\d{3})?Z/g;
const PORT = /127\.0\.0\.1:\d+/g;
const PIER_STDERR = /^pier: (?:model |rpc mode · model ).*$/;
const PIER_DIAGNOSTIC = /^pier: (error|warning|note): /;
const PI_PREFIX: Record<string, string> = { error: "Error: ", warning: "Warning: ", note: "" };

export class Normaliser {
	private readonly labels = new Map<string, string>();
	private readonly roots: string[];

	constructor(root: string) {
		// pi's session directory name for a cwd: `--${cwd without leading / with / and : as -}--`.
		this.roots = [root, root.replace(/^\//, "").replace(/[/\\:]/g, "-")];
	}

	private readonly counts = new Map<string, number>();

	private label(kind: string, value: string): string {
		let label = this.labels.get(value);
		if (!label) {
			const n = (this.counts.get(kind) ?? 0) + 1;
			this.counts.set(kind, n);
			label = `<${kind}-${n}>`;
			this.labels.set(value, label);
		}
		return label;
	}

	text(value: string): string {
		let out = value;
		for (const root of this.roots) out = out.split(root).join("<root>");
		return out
			.replace(PORT, "127.0.0.1:<port>")
			.replace(ISO_TIME, "<time>")
			.replace(UUID, (uuid) => this.label("uuid", uuid))
			.replace(SHORT_ID, (id) => this.label("id", id));
	}

	json(value: unknown, key?: string): unknown {
		if (key === "timestamp" && (typeof value === "number" || typeof value === "string")) return "<time>";
		if ((key === "durationMs" || key === "wall_time_seconds") && typeof value === "number") return "<ms>";
		if (typeof value === "string") return this.text(value);
		if (Array.isArray(value)) return value.map((item) => this.json(item));
		if (value && typeof value === "object") {
			const aborted = (value as { stopReason?: unknown }).stopReason === "aborted";
			return Object.fromEntries(
				Object.entries(value)
					.filter(([k]) => !(aborted && k === "durationMs"))
					.map(([k, v]) => [k, this.json(v, k)]),
			);
		}
		return value;
	}

	/** JSON lines normalised one by one; a line that is not JSON is normalised as text. */
	jsonLines(text: string): string {
		return text
			.split("\n")
			.map((line) => {
				if (!line.trim().startsWith("{")) return this.text(line);
				try {
					return JSON.stringify(this.json(JSON.parse(line)));
				} catch {
					return this.text(line);
				}
			})
			.join("\n");
	}

	stderr(text: string, isPier: boolean): string {
		let lines = text.split("\n");
		if (isPier) {
			lines = lines
				.filter((line) => !PIER_STDERR.test(line))
				.map((line) => line.replace(PIER_DIAGNOSTIC, (_m, kind: string) => PI_PREFIX[kind] ?? ""));
		}
		return this.text(lines.join("\n"));
	}
}

/** One run, normalised: the parts that are compared, in a fixed order (the labels depend on it). */
export interface Comparable {
	exit: string;
	stdout: string;
	stderr: string;
	sessions: string;
	requests: string;
}

export function comparable(
	output: RunOutput,
	program: "pi" | "pier",
	stdoutIsJson: boolean,
	timerLines?: RegExp,
): Comparable {
	const n = new Normaliser(output.world.root);
	const sessions = output.sessions.map((s) => `# ${n.text(s.path)}\n${n.jsonLines(s.text)}`).join("\n");
	// Timer-driven lines go before anything is labelled, so the labels of the others do not move.
	const raw = timerLines
		? output.stdout
				.split("\n")
				.filter((line) => !timerLines.test(line))
				.join("\n")
		: output.stdout;
	const stdout = stdoutIsJson ? n.jsonLines(raw) : n.text(raw);
	const stderr = n.stderr(output.stderr, program === "pier");
	const requests = output.requests
		.map((r) => {
			const body = typeof r.body === "string" ? n.text(r.body) : JSON.stringify(n.json(r.body), null, 1);
			return `${r.method} ${r.url} auth=${r.authorization ?? "-"}\n${body}`;
		})
		.join("\n");
	return { exit: output.timedOut ? "timed out" : String(output.code), stdout, stderr, sessions, requests };
}

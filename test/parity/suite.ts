/**
 * One case, both programs, one mode: the same command line for pi and for pier, each in a fresh world,
 * their normalised outputs compared part by part. A difference is reported as the part and its first
 * differing line, pi's and pier's.
 */
import { mkdirSync, rmSync, symlinkSync } from "node:fs";
import { basename, join } from "node:path";
import type { ParityCase } from "./cases.js";
import { explain } from "./known.js";
import { type Comparable, comparable } from "./normalise.js";
import { newRoot, PI_EXAMPLES, type Program, type RunSpec, runProgram } from "./programs.js";
import type { RpcCommand } from "./rpc-driver.js";

export type Mode = "text" | "json" | "rpc";

export interface PartDifference {
	mode: Mode;
	part: keyof Comparable;
	line: number;
	pi: string;
	pier: string;
	/** Set when known.ts explains it: the reason. */
	known?: string;
}

export interface ModeResult {
	mode: Mode;
	/** No difference at all. */
	identical: boolean;
	/** Identical apart from differences known.ts explains. */
	identicalButKnown: boolean;
	differences: PartDifference[];
	/** Normalised outputs, kept for --json and for reading a difference in full. */
	outputs?: Record<Program, Comparable>;
}

/**
 * Where the example is put: `-e <path>` (the default), or, with PARITY_PLACEMENT=global, a symlink in the
 * agent directory's extensions/ for pi's (and pier's) discovery to find.
 */
const globalPlacement = () => process.env.PARITY_PLACEMENT === "global";

export function argsFor(testCase: ParityCase, mode: Mode): string[] {
	const extension = globalPlacement() ? [] : ["-e", join(PI_EXAMPLES, testCase.entry ?? testCase.example)];
	const extra = testCase.args ?? [];
	if (mode === "rpc") return ["--mode", "rpc", ...extension, ...extra];
	const modeArgs = mode === "json" ? ["--mode", "json"] : ["-p"];
	return [...modeArgs, ...extension, ...extra, ...(testCase.printArgs ?? []), ...testCase.prompts];
}

export function rpcCommands(testCase: ParityCase): RpcCommand[] {
	return [
		...testCase.prompts.map((message) => ({ type: "prompt", message })),
		...(testCase.rpcExtra ?? []),
		{ type: "get_commands" },
		{ type: "get_state" },
	];
}

/**
 * PARITY_SELF_CHECK=1 runs pi in pier's place: pi against itself shows what the harness cannot hold still
 * (every such difference is a missing normalisation, not pier's).
 */
const againstProgram = (): Program => (process.env.PARITY_SELF_CHECK === "1" ? "pi" : "pier");

function specFor(program: Program, testCase: ParityCase, mode: Mode): RunSpec {
	const spec: RunSpec = { program, args: argsFor(testCase, mode) };
	const setup = testCase.setup;
	if (globalPlacement()) {
		spec.setup = (world) => {
			const entry = testCase.example; // a directory is found by its index.ts
			mkdirSync(join(world.agentDir, "extensions"));
			symlinkSync(join(PI_EXAMPLES, entry), join(world.agentDir, "extensions", basename(entry)));
			setup?.(world);
		};
	} else if (setup) spec.setup = setup;
	if (mode === "rpc") spec.rpc = { commands: rpcCommands(testCase) };
	else if (testCase.stdin !== undefined) spec.stdin = testCase.stdin;
	return spec;
}

function firstDifference(a: string, b: string): { line: number; pi: string; pier: string } {
	const left = a.split("\n");
	const right = b.split("\n");
	for (let i = 0; i < Math.max(left.length, right.length); i++) {
		if (left[i] !== right[i]) {
			return { line: i + 1, pi: left[i] ?? "(end)", pier: right[i] ?? "(end)" };
		}
	}
	return { line: 0, pi: "", pier: "" };
}

export async function runMode(testCase: ParityCase, mode: Mode, keepOutputs = false): Promise<ModeResult> {
	// Sequential on purpose: the two programs never compete for the machine within one comparison.
	const outputs = {} as Record<Program, Comparable>;
	const root = newRoot();
	try {
		for (const slot of ["pi", "pier"] as const) {
			const program = slot === "pier" ? againstProgram() : slot;
			const output = await runProgram({ ...specFor(program, testCase, mode), root });
			outputs[slot] = comparable(output, program, mode !== "text", testCase.unordered);
		}
	} finally {
		rmSync(root, { recursive: true, force: true });
	}
	const differences: PartDifference[] = [];
	for (const part of ["exit", "stdout", "stderr", "sessions", "requests"] as const) {
		const pi = outputs.pi[part];
		const pier = outputs.pier[part];
		if (pi === pier) continue;
		const known = explain(testCase.example, mode, part, pi, pier);
		differences.push({ mode, part, ...firstDifference(pi, pier), ...(known ? { known: known.reason } : {}) });
	}
	const result: ModeResult = {
		mode,
		identical: differences.length === 0,
		identicalButKnown: differences.every((d) => d.known !== undefined),
		differences,
	};
	if (keepOutputs) result.outputs = outputs;
	return result;
}

export interface CaseResult {
	example: string;
	skipped?: string;
	limits?: string;
	print?: { identical: boolean; identicalButKnown: boolean; modes: ModeResult[] };
	rpc?: ModeResult;
}

export async function runCase(testCase: ParityCase, keepOutputs = false): Promise<CaseResult> {
	const result: CaseResult = { example: testCase.example };
	if (testCase.limits) result.limits = testCase.limits;
	if (testCase.skip) return { ...result, skipped: testCase.skip };
	const text = await runMode(testCase, "text", keepOutputs);
	const json = await runMode(testCase, "json", keepOutputs);
	result.print = {
		identical: text.identical && json.identical,
		identicalButKnown: text.identicalButKnown && json.identicalButKnown,
		modes: [text, json],
	};
	result.rpc = await runMode(testCase, "rpc", keepOutputs);
	return result;
}

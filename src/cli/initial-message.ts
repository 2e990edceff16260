/**
 * The first prompt as pi's CLI builds it: piped stdin, then the text of `@file` arguments, then the first
 * message argument, joined into one; images from `@file`s ride along. pi's own file reader does the work
 * (images, resizing, its error texts).
 */
import { fstatSync, readFileSync, statSync } from "node:fs";
import type { ImageContent } from "@earendil-works/pi-ai";
import type { ModelRuntime } from "@earendil-works/pi-coding-agent";
import { processFileArguments } from "../pi-seams/file-processor.js";
import { listModels } from "../pi-seams/list-models.js";
import type { CliArgs } from "./args.js";

/** All of piped stdin, trimmed; undefined for a TTY or nothing piped (pi's readPipedStdin). */
export async function readPipedStdin(): Promise<string | undefined> {
	if (process.stdin.isTTY) return undefined;
	const whole = stdinWithoutWaiting();
	if (whole !== undefined) return whole.trim() || undefined;
	let data = "";
	process.stdin.setEncoding("utf8");
	for await (const chunk of process.stdin) data += chunk;
	return data.trim() || undefined;
}

/**
 * Stdin that holds all it will ever hold: a file (`pier run < prompt.md`) is read at once, and `/dev/null` (scripts,
 * CI, cron) is empty. A stream would queue its first read behind whatever occupies libuv's thread pool (~10 ms at
 * start-up, bench startup.run). Anything else (a pipe, a socket, another device) may still be written to: undefined.
 */
function stdinWithoutWaiting(): string | undefined {
	try {
		const stdin = fstatSync(0);
		if (stdin.isFile()) return readFileSync(0, "utf8");
		if (stdin.isCharacterDevice() && stdin.rdev === statSync("/dev/null").rdev) return "";
	} catch {
		// no fd 0, or no /dev/null: the stream decides
	}
	return undefined;
}

export interface InitialInput {
	initialMessage?: string;
	initialImages?: ImageContent[];
	/** The remaining message arguments, each its own prompt after the first. */
	messages: string[];
}

export async function initialInput(args: CliArgs, stdin: string | undefined): Promise<InitialInput> {
	const parts: string[] = [];
	let images: ImageContent[] = [];
	if (stdin !== undefined) parts.push(stdin);
	if (args.fileArgs.length > 0) {
		const processed = await processFileArguments(args.fileArgs);
		if (processed.text) parts.push(processed.text);
		images = processed.images;
	}
	const [first, ...messages] = args.messages;
	if (first !== undefined) parts.push(first);
	return {
		...(parts.length > 0 ? { initialMessage: parts.join("") } : {}),
		...(images.length > 0 ? { initialImages: images } : {}),
		messages,
	};
}

/** pi's `--list-models [search]`: its own table of every model with credentials. */
export async function printModelList(runtime: ModelRuntime, search: string | undefined): Promise<void> {
	await listModels(runtime, search, AbortSignal.timeout(15_000));
}

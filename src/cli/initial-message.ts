/**
 * The first prompt as pi's CLI builds it: piped stdin, then the text of `@file` arguments, then the first
 * message argument, joined into one; images from `@file`s ride along. pi's own file reader does the work
 * (images, resizing, its error texts).
 */
import type { ImageContent } from "@earendil-works/pi-ai";
import { piModule } from "../agent/pi-internals.js";
import type { CliArgs } from "./args.js";

interface PiFileProcessor {
	processFileArguments(
		fileArgs: string[],
		options?: { autoResizeImages?: boolean },
	): Promise<{ text: string; images: ImageContent[] }>;
}

/** All of piped stdin, trimmed; undefined for a TTY or nothing piped (pi's readPipedStdin). */
export async function readPipedStdin(): Promise<string | undefined> {
	if (process.stdin.isTTY) return undefined;
	let data = "";
	process.stdin.setEncoding("utf8");
	for await (const chunk of process.stdin) data += chunk;
	return data.trim() || undefined;
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
		const files = await piModule<PiFileProcessor>("./cli/file-processor.js");
		const processed = await files.processFileArguments(args.fileArgs);
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
export async function printModelList(registry: unknown, search: string | undefined): Promise<void> {
	const { listModels } = await piModule<{ listModels(registry: unknown, search?: string): Promise<void> }>(
		"./cli/list-models.js",
	);
	await listModels(registry, search);
}

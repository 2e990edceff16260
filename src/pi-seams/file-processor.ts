/** pi's `@file` argument reader (`cli/file-processor.js`, not exported): text, images, resizing, its errors. */
import type { ImageContent } from "@earendil-works/pi-ai";
import { moduleExports, piModule, type Seam } from "./seam.js";

const MODULE = "dist/cli/file-processor.js";

export interface ProcessedFiles {
	text: string;
	images: ImageContent[];
}

interface FileProcessor {
	processFileArguments(fileArgs: string[], options?: { autoResizeImages?: boolean }): Promise<ProcessedFiles>;
}

/** The `@file` arguments as pi reads them for the first prompt. */
export async function processFileArguments(fileArgs: string[]): Promise<ProcessedFiles> {
	const files = await piModule<FileProcessor>(MODULE);
	return files.processFileArguments(fileArgs);
}

const id = { name: "file-processor", file: "src/pi-seams/file-processor.ts" };

export const seam: Seam = {
	...id,
	members: ["cli/file-processor.js (unexported): processFileArguments(fileArgs, options)"],
	check: moduleExports(id, (roots) => roots.codingAgent, { [MODULE]: { processFileArguments: 2 } }),
};

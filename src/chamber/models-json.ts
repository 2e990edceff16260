/**
 * pi's `models.json`, written only in a form pi accepts. A candidate is written beside the file, loaded by pi's
 * own `ModelRuntime` (its schema and its extra rules, e.g. a custom provider's required `apiKey`), and renamed
 * over the file only if pi loads it without error: a refused change leaves the file byte-identical, and a reader
 * (the CLI, a session starting) never sees half of one.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename } from "node:path";
import { randomBytes } from "node:crypto";
import { InMemoryCredentialStore } from "@earendil-works/pi-ai";
import { ModelRuntime } from "@earendil-works/pi-coding-agent";

export interface ModelsJson {
	providers: Record<string, unknown>;
	[key: string]: unknown;
}

export function readModelsJson(file: string): ModelsJson {
	if (!existsSync(file)) return { providers: {} };
	const parsed = JSON.parse(readFileSync(file, "utf8")) as { providers?: Record<string, unknown> };
	return { ...parsed, providers: parsed.providers ?? {} };
}

/** pi's complaint about a models.json file, or undefined if pi loads it (a missing file is fine). */
export async function piRefusal(file: string, shownAs = file): Promise<string | undefined> {
	// An in-memory credential store: the check needs none of the user's credentials, and reads no other file.
	const runtime = await ModelRuntime.create({
		credentials: new InMemoryCredentialStore(),
		modelsPath: file,
		allowModelNetwork: false,
		refreshOnCreate: false,
	});
	return runtime.getError()?.split(file).join(shownAs);
}

/** Replaces `file` with `config` if pi accepts it; otherwise leaves it untouched and returns pi's complaint. */
export async function writeModelsJson(file: string, config: ModelsJson): Promise<string | undefined> {
	const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
	try {
		const fd = openSync(tmp, "wx", 0o600);
		try {
			writeSync(fd, `${JSON.stringify(config, null, "\t")}\n`);
			fsyncSync(fd);
		} finally {
			closeSync(fd);
		}
		const refusal = await piRefusal(tmp, basename(file));
		if (refusal) return refusal;
		renameSync(tmp, file);
		return undefined;
	} finally {
		rmSync(tmp, { force: true });
	}
}

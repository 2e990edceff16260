/**
 * The document as `npm run openapi` writes it to docs/openapi.json and the test compares it: generated from a
 * chamber app built in a scratch directory (its routes do not depend on any state), as JSON text.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chamberApp } from "../server.js";
import { type GeneratedDocument, openApiDocument } from "./document.js";

export const documentText = (document: object) => `${JSON.stringify(document, null, "\t")}\n`;

/** `PI_CODING_AGENT_DIR` points at the scratch directory while the app exists: nothing of the user's is read. */
export async function generateOpenApi(): Promise<GeneratedDocument & { text: string }> {
	const dir = mkdtempSync(join(tmpdir(), "pier-openapi-"));
	const saved = process.env.PI_CODING_AGENT_DIR;
	process.env.PI_CODING_AGENT_DIR = join(dir, "agent");
	try {
		const built = await chamberApp({ stateDir: join(dir, "state"), defaultCwd: dir, heartbeatMs: 3_600_000 });
		try {
			const generated = openApiDocument(built.app.routes);
			return { ...generated, text: documentText(generated.document) };
		} finally {
			await built.close();
		}
	} finally {
		if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
		else process.env.PI_CODING_AGENT_DIR = saved;
		rmSync(dir, { recursive: true, force: true });
	}
}

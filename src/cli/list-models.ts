/** pi's `--list-models [search]`: every model with credentials, extension-registered providers included. */
import { createPierRuntime } from "../agent/session-factory.js";
import type { CliArgs } from "./args.js";
import { printModelList } from "./initial-message.js";
import { reportDiagnostics, sessionOptionsFrom } from "./session-options.js";

export async function listModelsCommand(args: CliArgs): Promise<number> {
	const pier = await createPierRuntime({ ...sessionOptionsFrom(args), session: { kind: "memory" }, mode: "print" });
	try {
		reportDiagnostics(pier.diagnostics.filter((d) => d.type === "error"));
		await printModelList(pier.runtime.services.modelRuntime, args.listModels === true ? undefined : args.listModels);
		return 0;
	} finally {
		await pier.dispose();
	}
}

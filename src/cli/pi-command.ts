/**
 * `pier auth`, `pier config` and `pier mcp` are pi's commands, run by pi's own `main()` so they behave as
 * `pi auth`, `pi config` and `pi mcp` do: the same files (`auth.json`, `settings.json`, `mcp.json`), the same
 * trust store (pier's and pi's are one `trust.json`), the same messages and exit codes. pier's own extension kinds
 * are not pi resources, so `pier config` lists pi's (packages, extensions, skills, prompts, themes, built-ins);
 * `pier list` lists every kind.
 */
import { SettingsManager } from "@earendil-works/pi-coding-agent";
import { telemetryOffUnlessChosen } from "../agent/telemetry.js";
import { agentDir } from "../agent/paths.js";
import type { PiCommand } from "./args.js";

export async function piCommand(command: PiCommand, rest: readonly string[]): Promise<number> {
	telemetryOffUnlessChosen(SettingsManager.create(process.cwd(), agentDir(), { projectTrusted: false }));
	const { main } = await import("@earendil-works/pi-coding-agent");
	process.exitCode = undefined;
	await main([command, ...rest]);
	// pi reports its outcome through process.exitCode (and exits itself where it must).
	const code = Number(process.exitCode ?? 0);
	return Number.isInteger(code) ? code : 1;
}

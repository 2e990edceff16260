/**
 * pi reports an install or upgrade to pi.dev from its terminal, and marks requests to some providers as pi's, unless
 * `enableInstallTelemetry` is false (default true) or `PI_TELEMETRY` says otherwise. pier sends nothing of the kind
 * unless the user turned it on: without their own choice (the variable, or the setting in their global
 * settings.json), the variable is set off for this process, which pi reads before the setting.
 */
import type { SettingsManager } from "@earendil-works/pi-coding-agent";

export function telemetryOffUnlessChosen(settings: SettingsManager, env: NodeJS.ProcessEnv = process.env): void {
	if (env.PI_TELEMETRY !== undefined) return;
	if (settings.getGlobalSettings().enableInstallTelemetry !== undefined) return;
	env.PI_TELEMETRY = "0";
}

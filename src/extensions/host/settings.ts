/**
 * `extensionHost` in pi's settings.json: the protocol host's timeouts, frame
 * limit and the environment granted to process extensions. Only the global
 * settings may grant environment entries: a project must not be able to put,
 * say, NODE_OPTIONS into the user's own extensions. The same holds for
 * `grants` (read by grants/store.ts, which names bad values with their file)
 * and `allowScripts` (read by packages/script-policy.ts).
 */
import type { Static } from "typebox";
import { MIN_MAX_FRAME_BYTES } from "../protocol/codec.js";
import { lazyValidator, type TypeBuilder } from "../protocol/lazy-validator.js";

/** The settings' shape, built when settings with `extensionHost` are first checked (lazy-validator.ts says why). */
const hostSettingsSchema = (Type: TypeBuilder) => {
	const Positive = Type.Integer({ minimum: 1 });
	return Type.Object(
		{
			timeouts: Type.Optional(
				Type.Object(
					{
						handshakeMs: Type.Optional(Positive),
						loadMs: Type.Optional(Positive),
						initializeMs: Type.Optional(Positive),
						invocationMs: Type.Optional(Positive),
						hookMs: Type.Optional(Positive),
						shutdownMs: Type.Optional(Positive),
					},
					{ additionalProperties: false },
				),
			),
			maxFrameBytes: Type.Optional(Type.Integer({ minimum: MIN_MAX_FRAME_BYTES })),
			environment: Type.Optional(Type.Record(Type.String(), Type.String())),
			// Checked entry by entry by grants/store.ts, so one bad grant does not void the timeouts.
			grants: Type.Optional(Type.Unknown()),
			// Package names whose install scripts may run; checked entry by entry by packages/script-policy.ts.
			allowScripts: Type.Optional(Type.Unknown()),
		},
		{ additionalProperties: false },
	);
};
export type HostSettings = Static<ReturnType<typeof hostSettingsSchema>>;
const check = lazyValidator(hostSettingsSchema);

function read(settings: unknown, scope: string, problems: string[]): HostSettings {
	const value = (settings as { extensionHost?: unknown } | undefined)?.extensionHost;
	if (value === undefined) return {};
	if (check.Check(value)) return value;
	const first = [...check.Errors(value)][0];
	problems.push(
		`${scope} settings.json extensionHost${first?.instancePath ?? ""}: ${first?.message ?? "invalid"} (ignored)`,
	);
	return {};
}

export function hostSettings(global: unknown, project: unknown): { settings: HostSettings; problems: string[] } {
	const problems: string[] = [];
	const g = read(global, "global", problems);
	const p = read(project, "project", problems);
	if (p.environment)
		problems.push("project settings.json extensionHost.environment is ignored: only global settings grant environment");
	if (p.grants !== undefined)
		problems.push(
			"project settings.json extensionHost.grants is ignored: only the global settings grant extensions powers (use pier grant)",
		);
	const maxFrameBytes = p.maxFrameBytes ?? g.maxFrameBytes;
	if (p.allowScripts !== undefined)
		problems.push(
			"project settings.json extensionHost.allowScripts is ignored: only the global settings allow a package's install scripts",
		);
	return {
		settings: {
			timeouts: { ...g.timeouts, ...p.timeouts },
			...(maxFrameBytes ? { maxFrameBytes } : {}),
			...(g.environment ? { environment: g.environment } : {}),
		},
		problems,
	};
}

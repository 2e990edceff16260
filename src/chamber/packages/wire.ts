/**
 * The bodies of `/api/pi/packages` (docs/chamber-api.md, "Packages"): sources, scopes and projects as the page
 * sends them. The answers' shapes are the catalog's own types (extensions/catalog/*.ts).
 */
import { Type } from "typebox";

const Scope = Type.Union([Type.Literal("user"), Type.Literal("project")]);
/** A package source as `pier install` takes it; parsed (and refused with its reason) by the handler. */
const Source = Type.String({ minLength: 1, maxLength: 2048 });
/** A project directory: absolute, or relative to the daemon's directory. */
const Cwd = Type.String({ minLength: 1, maxLength: 4096 });

export const InspectBody = Type.Object(
	{ source: Source, scope: Scope, cwd: Type.Optional(Cwd) },
	{ additionalProperties: false },
);

export const InstallBody = Type.Object(
	{
		source: Source,
		scope: Scope,
		cwd: Type.Optional(Cwd),
		/** The user saw the inspection and confirmed: the page sends it only from its confirmation. */
		confirmed: Type.Literal(true),
		/** Grants chosen in the confirmation, each bound to the digest the inspection showed. */
		grants: Type.Optional(
			Type.Array(
				Type.Object(
					{
						id: Type.String({ minLength: 1, maxLength: 214 }),
						digest: Type.String({ pattern: "^sha256:[0-9a-f]{64}$" }),
						grants: Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 }),
					},
					{ additionalProperties: false },
				),
				{ maxItems: 64 },
			),
		),
	},
	{ additionalProperties: false },
);

export const UpdateBody = Type.Object({ source: Source, cwd: Type.Optional(Cwd) }, { additionalProperties: false });

export const RemoveBody = Type.Object(
	{ source: Source, scope: Scope, cwd: Type.Optional(Cwd) },
	{ additionalProperties: false },
);

export const EnabledBody = Type.Object(
	{
		identity: Type.String({ minLength: 1, maxLength: 4096 }),
		enabled: Type.Boolean(),
		/** Switch it in this project only; without it, for every project. */
		project: Type.Optional(Cwd),
	},
	{ additionalProperties: false },
);

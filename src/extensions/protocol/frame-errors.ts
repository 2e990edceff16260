/** Why a frame failed its schema, said once and readably (TypeBox reports every branch of every union). */
import type { TSchema } from "typebox";
import { Compile } from "typebox/compile";

type SchemaNode = {
	anyOf?: SchemaNode[];
	properties?: Record<string, SchemaNode>;
	const?: unknown;
	[k: string]: unknown;
};

/**
 * The branch of a tagged union that `value` claims by its tag, applied all the way down. `choices` collects
 * which branch was taken where, which identifies the narrowed schema.
 */
function narrow(schema: SchemaNode, value: unknown, choices: string[] = []): SchemaNode {
	if (value === null || typeof value !== "object") return schema;
	const record = value as Record<string, unknown>;
	if (schema.anyOf) {
		const index = schema.anyOf.findIndex((b) => {
			const tags = Object.entries(b.properties ?? {}).filter(([, p]) => p.const !== undefined);
			return tags.length > 0 && tags.every(([k, p]) => record[k] === p.const);
		});
		choices.push(String(index));
		return index >= 0 ? narrow(schema.anyOf[index]!, value, choices) : schema;
	}
	if (!schema.properties) return schema;
	const properties = Object.fromEntries(
		Object.entries(schema.properties).map(([k, p]) => {
			if (!(k in record)) return [k, p];
			choices.push(k);
			return [k, narrow(p, record[k], choices)];
		}),
	);
	choices.push("/");
	return { ...schema, properties };
}

/** Compiled narrowed schemas, by frame schema and branch choices: there are few, and compiling is slow. */
const narrowedValidators = new WeakMap<TSchema, Map<string, ReturnType<typeof Compile>>>();

/** One readable reason: the first error of the branch the frame chose, deepest first. */
export function describeFrameError(schema: TSchema, value: unknown): string {
	const choices: string[] = [];
	const narrowed = narrow(schema as SchemaNode, value, choices);
	const key = choices.join(",");
	let cache = narrowedValidators.get(schema);
	if (!cache) {
		cache = new Map();
		narrowedValidators.set(schema, cache);
	}
	let validator = cache.get(key);
	if (!validator) {
		validator = Compile(narrowed as TSchema);
		// Bounded: the choices come from the schema's own finite branches and keys, but keep it so.
		if (cache.size < 1_000) cache.set(key, validator);
	}
	const errors = [...validator.Errors(value)];
	const best = errors.sort((a, b) => b.instancePath.length - a.instancePath.length)[0];
	if (!best) return "invalid frame";
	const at = best.instancePath || "/";
	// Closed objects reject an unknown key by matching it against `false`.
	if (best.keyword === "boolean") return `unknown field ${at}`;
	return `${at} ${best.message}`;
}

/**
 * A TypeBox validator compiled on its first use. TypeBox is hundreds of modules, a second copy beside the one pi
 * loads: a run that checks nothing against a schema (`pier run` with no protocol extension and no `extensionHost`
 * settings) must not load it at all. So this module imports TypeBox's types only; its code is required (Node
 * loads ES modules synchronously through `require`) when a check first happens, and a schema used on the start-up
 * path is given as a builder that is handed TypeBox's `Type` then.
 */
import { createRequire } from "node:module";
import type { StaticEncode, TSchema } from "typebox";
import type { Compile } from "typebox/compile";

type Compiled = ReturnType<typeof Compile<TSchema>>;

/** TypeBox's schema builder, as a builder passed to `lazyValidator` receives it. */
export type TypeBuilder = typeof import("typebox").Type;

export interface LazyValidator<T extends TSchema> {
	/** The schema (built now, if it was given as a builder). */
	schema(): T;
	Check(value: unknown): value is StaticEncode<T>;
	Errors(value: unknown): ReturnType<Compiled["Errors"]>;
}

const require = createRequire(import.meta.url);

export function lazyValidator<const T extends TSchema>(schema: T | ((type: TypeBuilder) => T)): LazyValidator<T> {
	let built: T | undefined;
	let compiled: Compiled | undefined;
	const build = (): T => {
		built ??= typeof schema === "function" ? schema((require("typebox") as typeof import("typebox")).Type) : schema;
		return built;
	};
	const get = (): Compiled => {
		compiled ??= (require("typebox/compile") as typeof import("typebox/compile")).Compile(build() as TSchema);
		return compiled;
	};
	return {
		schema: build,
		Check: (value): value is StaticEncode<T> => get().Check(value),
		Errors: (value) => get().Errors(value),
	};
}

/** A union of string literals (`anyOf` of `const`s, which frame-errors.ts reads), typed as the union of `values`. */
export const literalsOf = <const V extends readonly string[]>(type: TypeBuilder, values: V) =>
	type.Unsafe<V[number]>(type.Union(values.map((v) => type.Literal(v))));

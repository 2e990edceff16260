/**
 * A TypeBox validator compiled on its first use. Compiling a schema costs milliseconds, and start-up pays for
 * every module-level `Compile` whether or not that run checks anything against it (`pier run` with no
 * protocol extension checks no frame at all): bench startup.run.
 */
import type { StaticEncode, TSchema } from "typebox";
import { Compile } from "typebox/compile";

type Compiled = ReturnType<typeof Compile<TSchema>>;

export interface LazyValidator<T extends TSchema> {
	Check(value: unknown): value is StaticEncode<T>;
	Errors(value: unknown): ReturnType<Compiled["Errors"]>;
}

export function lazyValidator<const T extends TSchema>(schema: T): LazyValidator<T> {
	let compiled: Compiled | undefined;
	const get = (): Compiled => {
		compiled ??= Compile(schema as TSchema);
		return compiled;
	};
	return {
		Check: (value): value is StaticEncode<T> => get().Check(value),
		Errors: (value) => get().Errors(value),
	};
}

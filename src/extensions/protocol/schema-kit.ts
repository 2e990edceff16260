/**
 * The pieces every protocol v1 schema is built from. Objects are closed (unknown fields are rejected
 * everywhere, as in rpi); free-form payloads (tool arguments, results, models, messages, event data) are
 * `Json` and checked where they are used. Types come from the schemas (`Static`), so a shape exists once.
 */
import { type Static, type TLiteral, type TSchema, Type } from "typebox";
import { literalsOf } from "./lazy-validator.js";

type Properties = Parameters<typeof Type.Object>[0];

export const closed = <T extends Properties>(properties: T) => Type.Object(properties, { additionalProperties: false });

/** A closed object whose `key` is the literal `tag`: one branch of a tagged union. */
export const tagged = <K extends string, V extends string, T extends Properties>(key: K, tag: V, properties: T) =>
	closed({ [key]: Type.Literal(tag), ...properties } as Flat<{ [P in K]: TLiteral<V> } & T>);

/** One object type, not an intersection: `Static` of an intersection of properties degrades to an index signature. */
type Flat<T> = { [P in keyof T]: T[P] };

export const Json = Type.Unknown();
export const Opt = Type.Optional;

/** `Json` on the wire, typed narrower for the host (checked where it is used, not by the frame schema). */
export const JsonAs = <T>() => Type.Unsafe<T>(Type.Unknown());

/** A union of string literals (`anyOf` of `const`s, which frame-errors.ts reads), typed as the union of `values`. */
export const literals = <const V extends readonly string[]>(values: V) => literalsOf(Type, values);

/** The union of the static types of a record of schemas (one per frame type). */
export type StaticOf<R extends Record<string, TSchema>> = { [K in keyof R]: Static<R[K]> }[keyof R];

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
/** Checked as the list, typed `string`: the host passes levels through from pi and the native ABI as strings. */
export const ThinkingLevel = Type.Unsafe<string>(literals(THINKING_LEVELS));

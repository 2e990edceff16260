/**
 * What the OpenAPI document says about each route beyond its request body: a summary, its query parameters and
 * the schema of its success answer. Request bodies are not declared here for routes that validate them: the
 * document takes the schema that route's `jsonBody` checks (json-body.ts). `body` here types the client; where
 * the route has a `jsonBody`, test/chamber/openapi.test.ts requires it to be that very schema.
 *
 * Every route the server registers under /api needs an entry (keyed `METHOD /hono/path/:param`), and every entry
 * a route: the same test compares this table with the real app's routes.
 *
 * Response shapes declared as TypeBox schemas (wire-views.ts) are published whole; shapes a part declares only as a
 * TypeScript type are `described<T>`: the client gets the exact type, the document an open object.
 */
import type { Operation } from "./operation.js";
import { ACCOUNT_OPERATIONS } from "./operations-account.js";
import { GOVERNANCE_OPERATIONS } from "./operations-governance.js";
import { PART_OPERATIONS } from "./operations-parts.js";
import { SESSION_OPERATIONS } from "./operations-sessions.js";

export type { Operation } from "./operation.js";

/** Split by area into files of their own; a route belongs in the file of its area (or a new one added here). */
export const OPERATIONS = {
	...ACCOUNT_OPERATIONS,
	...SESSION_OPERATIONS,
	...PART_OPERATIONS,
	...GOVERNANCE_OPERATIONS,
} as const satisfies Record<string, Operation>;

/** The area tables, for the test that no route is in two of them. */
export const OPERATION_AREAS: readonly Record<string, Operation>[] = [
	ACCOUNT_OPERATIONS,
	SESSION_OPERATIONS,
	PART_OPERATIONS,
	GOVERNANCE_OPERATIONS,
];

export type OperationKey = keyof typeof OPERATIONS;

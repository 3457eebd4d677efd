// The types of an operation's parameters, read from the generated `operations`, so that a
// change to the document changes a resource's types with no hand-written type to keep up.
import type { operations } from "../gen/openapi.js";
import type { OperationId } from "../gen/operations.js";

/** The operation's query parameters (never for one that has none). */
export type QueryOf<K extends OperationId> = operations[K]["parameters"] extends { query?: infer Q } ? NonNullable<Q> : never;

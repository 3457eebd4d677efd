// Shared primitives of the JSON mirror (docs/architecture.md, "JSON rules") as TypeBox schemas,
// plus the RFC 9457 problem. Each schema says in JSON Schema what src/json accepts and emits;
// TypeScript types
// are derived with Static<>, never written by hand.
import { status } from "@grpc/grpc-js";
import { Type } from "@sinclair/typebox";
import type { Static, TSchema, TUnsafe } from "@sinclair/typebox";
import { ID_MAX_LENGTH, ID_PATTERN, ID_RULE } from "norsk-manager-contract/lexical/ids.js";
import "./formats.js";

/** A copy of `schema` with its own description (and examples, when given). */
export function doc<T extends TSchema>(schema: T, description: string, ...examples: unknown[]): T {
  // Not CloneType(schema, options): there the schema's own description wins over the options.
  return examples.length > 0 ? { ...schema, description, examples } : { ...schema, description };
}

/** Symbol key of a schema's component mark. Symbols are invisible to JSON, Ajv and fast-json-stringify. */
export const ComponentKind = Symbol.for("norsk-manager-gateway/component");

/**
 * Which OpenAPI component a schema is, or is a copy of: its name, and the component's own
 * schema. Copies made by doc(), Type.Optional() or a spread keep the mark (spreads copy
 * enumerable symbol keys), so the document refers to each of them by $ref (src/openapi/components.ts).
 */
export interface ComponentMark {
  readonly name: string;
  readonly schema: TSchema;
  /**
   * Set on a copy of a union component (an enum) with `null` as one more alternative, written
   * flat (schemas/variants.ts): the document shows it as anyOf [the component, null].
   */
  readonly nullable?: true;
}

/**
 * `schema` as the component `name` (docs/architecture.md, "Layout"). Composed into other schemas as
 * it is, copies and all: validation sees one self-contained schema per route, with no $id and no
 * $ref, while the OpenAPI document shows the component once and refers to it everywhere else.
 */
export function named<T extends TSchema>(schema: T, name: string): T {
  return marked(schema, (own) => ({ name, schema: own }));
}

/** A copy of `schema` whose mark `markOf` computes from the copy itself. */
export function marked<T extends TSchema>(schema: T, markOf: (own: T) => ComponentMark): T {
  const own: T = { ...schema };
  Object.defineProperty(own, ComponentKind, { value: markOf(own), enumerable: true, writable: false, configurable: true });
  return own;
}

/** The component a schema is, or is a copy of; undefined for a schema that is not one. */
export function componentOf(schema: unknown): ComponentMark | undefined {
  if (typeof schema !== "object" || schema === null) return undefined;
  return (schema as { [ComponentKind]?: ComponentMark })[ComponentKind];
}

/**
 * An id that a path addresses (src/lexical/ids.ts): a job id, a node id, a physical node's id, a role.
 * The same schema checks it where it is created (a body) and where it is used (a path or
 * query parameter), so whatever is created can be read, changed and deleted by its path.
 */
export const Id = named(
  Type.String({
    minLength: 1,
    maxLength: ID_MAX_LENGTH,
    pattern: ID_PATTERN,
    description: `An id: ${ID_RULE}`,
    examples: ["encoder-1"],
  }),
  "Id",
);

/** Id with its own description and example; the rule is the component's (the document refers to it). */
export function IdOf(description: string, example: string): typeof Id {
  return doc(Id, description, example);
}

export const Int64String = Type.String({
  format: "int64",
  pattern: "^(0|-?[1-9][0-9]{0,18})$",
  description:
    "A signed 64-bit integer as a decimal string (JSON numbers lose digits beyond 2^53): " +
    "-9223372036854775808..9223372036854775807, no leading zeros, no \"-0\".",
  examples: ["-9223372036854775808", "0", "4611686018427387904"],
});

export const Uint64String = Type.String({
  format: "uint64",
  pattern: "^(0|[1-9][0-9]{0,19})$",
  description: "An unsigned 64-bit integer as a decimal string: 0..18446744073709551615, no leading zeros.",
  examples: ["0", "67108864", "18446744073709551615"],
});

/** The component Timestamp: every time in a body or a query refers to it, with its own description. */
export const Timestamp = named(
  Type.String({
    format: "date-time",
    pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2})$",
    description:
      "An RFC 3339 date-time within 0001-01-01..9999-12-31. Output is UTC (\"Z\") with 0, 3, 6 or 9 " +
      "fractional digits, nanoseconds exact; input may use any offset and 1-9 fractional digits.",
    examples: ["2025-12-02T10:00:00Z", "2100-01-01T00:00:00.123456789Z"],
  }),
  "Timestamp",
);

export const Uint32 = Type.Integer({ minimum: 0, maximum: 4294967295, description: "An unsigned 32-bit integer.", examples: [8080] });
export const Int32 = Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: "A signed 32-bit integer.", examples: [0] });

const NonFinite = [Type.Literal("NaN"), Type.Literal("Infinity"), Type.Literal("-Infinity")] as const;

/** float: a JSON number within float32 range, or "NaN", "Infinity", "-Infinity" (proto3 JSON). */
export const Float = Type.Union([Type.Number({ minimum: -3.4028234663852886e38, maximum: 3.4028234663852886e38 }), ...NonFinite], {
  description: 'A 32-bit float: a JSON number, or "NaN", "Infinity", "-Infinity".',
  examples: [0.25],
});

export const Double = Type.Union([Type.Number(), ...NonFinite], {
  description: 'A 64-bit float: a JSON number, or "NaN", "Infinity", "-Infinity".',
  examples: [0.5],
});

/**
 * A protobuf map as a JSON object. `additionalProperties` with a schema, not TypeBox's
 * Record (patternProperties "^(.*)$"), because "." does not match a line break: a key with
 * one would fail validation and be dropped silently by fast-json-stringify.
 */
export function MapOf<T extends TSchema>(value: T, description: string, ...examples: unknown[]): TUnsafe<Record<string, Static<T>>> {
  const options = examples.length > 0 ? { description, examples } : { description };
  return Type.Unsafe<Record<string, Static<T>>>(Type.Object({}, { ...options, additionalProperties: value }));
}

export const StringMap = MapOf(Type.String(), "A map of strings.", { env: "prod" });

/**
 * The most items a problem's `errors` lists. A hostile body can hold a hundred thousand faults
 * in a few hundred KB; listing them all would cost the gateway seconds and the client
 * megabytes, while a client fixing a body by hand reads the first few. Past this many, only
 * their number is kept (errorsNotListed), and a check may stop at the first one past it.
 */
export const MAX_LISTED_ISSUES = 100;

export const ProblemItemJson = named(
  Type.Object(
    {
      pointer: Type.Optional(Type.String({ description: "JSON Pointer (RFC 6901) into the request body.", examples: ["/services/0/restart"] })),
      parameter: Type.Optional(Type.String({ description: "Name of the query or path parameter.", examples: ["startAt"] })),
      header: Type.Optional(Type.String({ description: "Name of the request header.", examples: ["If-Match"] })),
      message: Type.String({ description: "What is wrong, in plain words.", examples: ['must be one of "never", "on_failure", "always"'] }),
    },
    { additionalProperties: false, description: "One thing wrong with the request: where, and what." },
  ),
  "ProblemItem",
);

/** A gRPC status name as grpc-js spells it ("NOT_FOUND"). */
export type ProblemCodeName = keyof typeof status;

/**
 * Every value a problem's `code` may take: the gRPC status names, read from grpc-js's own enum
 * (the one list; src/http/status.ts gives each its HTTP status, and the gateway's own failures
 * are named by these too). OK is among them: a Manager that fails a call with OK is answered as
 * a 500 that says so.
 */
export const PROBLEM_CODES = Object.keys(status).filter((key) => Number.isNaN(Number(key))) as ProblemCodeName[];

export const ProblemCodeJson = named(
  Type.Unsafe<ProblemCodeName>(
    Type.String({
      enum: [...PROBLEM_CODES],
      description: "The gRPC status name of the failure: the Manager's own, or the one the gateway gives its own failure of the same meaning.",
      examples: ["INVALID_ARGUMENT"],
    }),
  ),
  "ProblemCode",
);

export const ProblemJson = named(
  Type.Object(
    {
      type: Type.String({ description: "URI reference identifying the problem type.", examples: ["about:blank"] }),
      title: Type.String({ description: "Short summary of the problem type.", examples: ["Bad Request"] }),
      status: Type.Integer({ minimum: 100, maximum: 599, description: "The HTTP status code.", examples: [400] }),
      detail: Type.String({ description: "Explanation of this occurrence.", examples: ["the request body is invalid"] }),
      instance: Type.String({
        description:
          "URI reference of this occurrence: the request path, or urn:uuid:<uuid> (a fresh id of the occurrence) " +
          "for a request refused before routing, whose URL is not quoted back.",
        examples: ["/v1/jobs/j-1"],
      }),
      code: Type.Optional(doc(ProblemCodeJson, "The gRPC status name, when the failure has one (a route that does not exist, for one, has none).")),
      requestId: Type.String({
        description: "The request's X-Request-Id: the one sent, or the one generated for it.",
        examples: ["3f2b8c1e-5d4a-4f7b-9a0e-1c2d3e4f5a6b"],
      }),
      errors: Type.Optional(
        Type.Array(ProblemItemJson, {
          description: "For validation errors: every problem found.",
          examples: [[{ pointer: "/currentHash", message: "must be a decimal string of an int64" }]],
        }),
      ),
      errorsNotListed: Type.Optional(
        Type.Integer({
          minimum: 1,
          description:
            `How many more problems were found than \`errors\` lists (it lists ${MAX_LISTED_ISSUES} at most); ` +
            "checking may stop at the first one past the list, so there may be more.",
          examples: [99_900],
        }),
      ),
    },
    { additionalProperties: false, description: "An RFC 9457 problem (application/problem+json)." },
  ),
  "Problem",
);

export type ProblemItemJson = Static<typeof ProblemItemJson>;
export type ProblemJson = Static<typeof ProblemJson>;

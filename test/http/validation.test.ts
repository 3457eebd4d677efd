// Request validation (src/http/validation.ts): which Ajv checks which part of a request, and
// Ajv's errors as the problem items a client reads, one per place, each located in its part.
// Schemas are compiled with the gateway's own validatorCompiler; the errors are Ajv's real ones.
import { describe, expect, it } from "vitest";
import type { ErrorObject } from "ajv";
import { Type } from "@sinclair/typebox";
import type { TSchema } from "@sinclair/typebox";
import { Int64String } from "../../schemas/common.js";
import { ID_PATTERN, ID_PATTERN_MESSAGE } from "norsk-manager-contract/lexical/ids.js";
import { MAX_VALUES_FULLY_CHECKED, validationItems, validatorCompiler } from "../../src/http/validation.js";
import { MAX_LISTED_ISSUES } from "../../src/json/errors.js";
import type { RequestPart } from "../../src/http/validation.js";

/** Validates `value` as `part` of a request; Ajv's errors (none when it passes). */
function errorsOf(schema: TSchema, part: RequestPart, value: unknown): ErrorObject[] {
  const validate = validatorCompiler({ schema, httpPart: part, method: "POST", url: "/" }) as ((data: unknown) => boolean) & {
    errors?: ErrorObject[] | null;
  };
  return validate(value) ? [] : (validate.errors ?? []);
}

const itemsOf = (schema: TSchema, part: RequestPart, value: unknown) => validationItems(errorsOf(schema, part, value), part).items;

const State = Type.Union([Type.Literal("READY"), Type.Literal("RUNNING"), Type.Integer()]);

describe("validatorCompiler", () => {
  const limit = Type.Object({ limit: Type.Integer() });

  it("checks a JSON body exactly as sent: a string is no integer", () => {
    expect(itemsOf(limit, "body", { limit: "5" })).toEqual([{ pointer: "/limit", message: "must be integer" }]);
  });

  it("coerces text parts: a query's \"5\" is the integer 5, one value a list of one", () => {
    const query = { limit: "5", tag: "a" };
    const schema = Type.Object({ limit: Type.Integer(), tag: Type.Array(Type.String()) });
    expect(itemsOf(schema, "querystring", query)).toEqual([]);
    expect(query).toEqual({ limit: 5, tag: ["a"] });
  });

  it("removes and defaults nothing: an unknown property is an error", () => {
    const body = { limit: 1, extra: true };
    expect(itemsOf(Type.Object({ limit: Type.Integer({ default: 3 }) }, { additionalProperties: false }), "body", body)).toEqual([
      { pointer: "/extra", message: "unknown property" },
    ]);
    expect(body).toEqual({ limit: 1, extra: true });
    const empty = {};
    itemsOf(Type.Object({ limit: Type.Optional(Type.Integer({ default: 3 })) }), "body", empty);
    expect(empty).toEqual({});
  });

  it("checks the gateway's formats (int64) and ignores documentation keywords", () => {
    const schema = Type.Object({ hash: Int64String }, { example: { hash: "1" }, "x-enum-names": [] });
    expect(itemsOf(schema, "body", { hash: "9223372036854775808" })).toEqual([{ pointer: "/hash", message: 'must match format "int64"' }]);
    expect(itemsOf(schema, "body", { hash: "-9223372036854775808" })).toEqual([]);
  });

  it("reports every error, not only the first", () => {
    const schema = Type.Object({ a: Type.String(), b: Type.String() });
    expect(itemsOf(schema, "body", {})).toEqual([
      { pointer: "/a", message: "is required" },
      { pointer: "/b", message: "is required" },
    ]);
  });

  it("reports every error of a body of MAX_VALUES_FULLY_CHECKED values, and only the first of a larger one", () => {
    const schema = Type.Object({ tags: Type.Record(Type.String(), Type.String()) });
    const tags = (count: number) => ({ tags: Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i])) });
    // The body itself is one value more than its tags.
    const small = validationItems(errorsOf(schema, "body", tags(MAX_VALUES_FULLY_CHECKED - 1)), "body");
    expect(small.items).toHaveLength(MAX_LISTED_ISSUES);
    expect(small.notListed).toBe(MAX_VALUES_FULLY_CHECKED - 1 - MAX_LISTED_ISSUES);
    expect(errorsOf(schema, "body", tags(MAX_VALUES_FULLY_CHECKED))).toHaveLength(1);
    expect(errorsOf(schema, "body", tags(100_000))).toEqual([expect.objectContaining({ instancePath: "/tags/k0" })]);
  });

  it("still checks a large body that is valid", () => {
    const schema = Type.Object({ tags: Type.Record(Type.String(), Type.String()) });
    expect(errorsOf(schema, "body", { tags: Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, "v"])) })).toEqual([]);
  });
});

describe("validationItems' cap", () => {
  it("lists MAX_LISTED_ISSUES items and counts the rest, of 100,000 errors, at the cost of few", () => {
    const schema = Type.Array(Type.String());
    const errors = errorsOf(schema, "querystring", Array.from({ length: 100_000 }, () => ({})));
    const { items, notListed } = validationItems(errors, "querystring");
    expect(items).toHaveLength(MAX_LISTED_ISSUES);
    expect(notListed).toBe(100_000 - MAX_LISTED_ISSUES);
  });
});

describe("validationItems", () => {
  it("points at a missing or unknown property itself, escaping its name", () => {
    const schema = Type.Object({ "a/b": Type.Object({ "c~d": Type.String() }, { additionalProperties: false }) });
    expect(itemsOf(schema, "body", { "a/b": { "x/y": 1 } })).toEqual([
      { pointer: "/a~1b/c~0d", message: "is required" },
      { pointer: "/a~1b/x~1y", message: "unknown property" },
    ]);
  });

  it("names the values an enum-like anyOf allows, and says numbers of unknown values are allowed too", () => {
    expect(itemsOf(Type.Object({ state: State }), "body", { state: "DONE" })).toEqual([
      { pointer: "/state", message: 'must be one of "READY", "RUNNING" (or the number of a value this gateway does not know)' },
    ]);
  });

  it("names the constants of an enum, and of a nested anyOf, without the unknown-number clause when no integer is allowed", () => {
    const schema = Type.Object({
      order: Type.Union([Type.Unsafe<string>({ enum: ["asc", "desc"] }), Type.Union([Type.Literal("none")])]),
    });
    expect(itemsOf(schema, "body", { order: "up" })).toEqual([{ pointer: "/order", message: 'must be one of "asc", "desc", "none"' }]);
  });

  it("names the allowed forms of any other anyOf, with their formats and articles", () => {
    const schema = Type.Object({ value: Type.Union([Type.String({ format: "int64" }), Type.Integer(), Type.Null()]) });
    expect(itemsOf(schema, "body", { value: true })).toEqual([{ pointer: "/value", message: "must be a string (int64) or an integer or null" }]);
  });

  it("says no form matched when no branch of the anyOf has one type", () => {
    const schema = Type.Object({ value: Type.Union([Type.Unsafe({ not: {} }), Type.Unsafe({ type: ["string", "null"], maxLength: 1 })]) });
    expect(itemsOf(schema, "body", { value: "ab" })).toEqual([{ pointer: "/value", message: "does not match any allowed form" }]);
  });

  it("keeps only the anyOf's own error, not its branches', but keeps other errors at the same place", () => {
    const schema = Type.Object({
      state: Type.Intersect([State, Type.Unsafe({ not: { const: "FORBIDDEN" } })]),
    });
    expect(itemsOf(schema, "body", { state: "FORBIDDEN" })).toEqual([
      { pointer: "/state", message: 'must be one of "READY", "RUNNING" (or the number of a value this gateway does not know)' },
      { pointer: "/state", message: "must NOT be valid" },
    ]);
  });

  it("answers a nested anyOf with the outer anyOf's error alone, which names the inner one's constants too", () => {
    const schema = Type.Object({ order: Type.Union([Type.Literal("asc"), Type.Union([Type.Literal("none"), Type.Literal("off")])]) });
    expect(itemsOf(schema, "body", { order: "up" })).toEqual([{ pointer: "/order", message: 'must be one of "asc", "none", "off"' }]);
  });

  it("keeps a branch's errors deeper than the anyOf: they say what is wrong inside the value the anyOf is about", () => {
    const schema = Type.Object({ parameters: Type.Union([Type.Object({ port: Type.Integer() }), Type.Null()]) });
    expect(itemsOf(schema, "body", { parameters: { port: "80" } })).toEqual([
      { pointer: "/parameters/port", message: "must be integer" },
      { pointer: "/parameters", message: "must be an object or null" },
    ]);
  });

  it("keeps the errors under any keyword but anyOf and oneOf, even at the same place as the keyword's own", () => {
    const schema = Type.Unsafe({ type: "object", propertyNames: { maxLength: 2 } });
    expect(itemsOf(schema, "body", { long: 1 }).map((item) => item.message)).toEqual(["must NOT have more than 2 characters", "property name must be valid"]);
  });

  it("answers a oneOf (no schema of the gateway has one) with its own error alone, like an anyOf", () => {
    const schema = Type.Object({ value: Type.Unsafe({ oneOf: [{ type: "string" }, { type: "string", maxLength: 1 }] }) });
    expect(itemsOf(schema, "body", { value: "a" })).toEqual([{ pointer: "/value", message: "does not match any allowed form" }]);
    expect(itemsOf(schema, "body", { value: 1 })).toEqual([{ pointer: "/value", message: "does not match any allowed form" }]);
  });

  it("reports the same message at the same place once", () => {
    const schema = Type.Object({ a: Type.Intersect([Type.String(), Type.String()]) });
    expect(itemsOf(schema, "body", { a: 1 })).toEqual([{ pointer: "/a", message: "must be string" }]);
  });

  it("says what the id rule means instead of quoting its pattern; other patterns as Ajv words them", () => {
    const schema = Type.Object({ id: Type.String({ pattern: ID_PATTERN }), code: Type.String({ pattern: "^[a-z]+$" }) });
    expect(itemsOf(schema, "body", { id: "..", code: "A" })).toEqual([
      { pointer: "/id", message: ID_PATTERN_MESSAGE },
      { pointer: "/code", message: 'must match pattern "^[a-z]+$"' },
    ]);
  });

  it.each([
    ["querystring", { parameter: "limit", message: "must be integer" }],
    ["params", { parameter: "limit", message: "must be integer" }],
    ["headers", { header: "limit", message: "must be integer" }],
    ["body", { pointer: "/limit", message: "must be integer" }],
  ] as const)("locates an error of the %s by its name", (part, item) => {
    expect(itemsOf(Type.Object({ limit: Type.Integer() }), part, { limit: "x" })).toEqual([item]);
  });

  it("unescapes a parameter's name from its pointer", () => {
    const schema = Type.Object({ "a/b~c": Type.Integer() });
    expect(itemsOf(schema, "querystring", { "a/b~c": "x" })).toEqual([{ parameter: "a/b~c", message: "must be integer" }]);
  });

  it("names no parameter for an error about the whole part", () => {
    expect(itemsOf(Type.Object({}, { minProperties: 1 }), "querystring", {})).toEqual([
      { parameter: "", message: "must NOT have fewer than 1 properties" },
    ]);
  });
});

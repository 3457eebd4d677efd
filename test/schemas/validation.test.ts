import { Ajv } from "ajv";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import { Int64String, Timestamp, Uint64String } from "../../schemas/common.js";
import { gatewayFormats } from "../../schemas/formats.js";
import { JobJson, JobInputJson, JobPatchJson } from "../../schemas/job.js";
import { JobSearchQuery } from "../../schemas/search.js";
import { messageVectors } from "../json/vectors.js";

// As the gateway validates JSON bodies: no coercion ("1" is not 1), strict schemas.
const ajv = new Ajv({ strict: true, coerceTypes: false, allErrors: true, formats: gatewayFormats });

/** Both validators must agree, so that TypeBox's Value.Check in tests means what Ajv does. */
function accepts(schema: TSchema, value: unknown): boolean {
  const byAjv = ajv.validate(schema, value);
  expect(Value.Check(schema, value), `TypeBox and Ajv disagree on ${JSON.stringify(value)}`).toBe(byAjv);
  return byAjv;
}

const minimal = { jobId: "j-1", startDateTime: "2025-12-02T10:00:00Z" };

describe("Job (response)", () => {
  it.each(messageVectors.map((v) => [v.name, v.json] as const))("accepts the vector %s", (_name, json) => {
    expect(accepts(JobJson, json)).toBe(true);
  });

  it("requires the always-emitted fields", () => {
    expect(accepts(JobJson, minimal)).toBe(false);
  });
});

describe("JobInput (create/replace body)", () => {
  it("requires only jobId and startDateTime", () => {
    expect(accepts(JobInputJson, minimal)).toBe(true);
    expect(accepts(JobInputJson, { jobId: "j-1" })).toBe(false);
    expect(accepts(JobInputJson, { startDateTime: "2025-12-02T10:00:00Z" })).toBe(false);
  });

  it("accepts null for optional properties, at any depth, but not for the required ones", () => {
    expect(accepts(JobInputJson, { ...minimal, description: null, currentHash: null, services: [{ name: null, docker: null }] })).toBe(true);
    expect(accepts(JobInputJson, { ...minimal, autoPlacement: { requirements: { requiredCores: null } } })).toBe(true);
    expect(accepts(JobInputJson, { ...minimal, jobId: null })).toBe(false);
  });

  it("rejects null array elements and map values (proto3 JSON has no absent element)", () => {
    expect(accepts(JobInputJson, { ...minimal, volumes: [null] })).toBe(false);
    expect(accepts(JobInputJson, { ...minimal, tags: { a: null } })).toBe(false);
  });

  it("rejects unknown properties at any depth", () => {
    expect(accepts(JobInputJson, { ...minimal, colour: "red" })).toBe(false);
    expect(accepts(JobInputJson, { ...minimal, services: [{ colour: "red" }] })).toBe(false);
  });

  it("accepts a tag key with a line break (additionalProperties, not a \"^(.*)$\" pattern)", () => {
    expect(accepts(JobInputJson, { ...minimal, tags: { "a\nb": "x" } })).toBe(true);
    expect(accepts(JobInputJson, JSON.parse('{"jobId":"j","startDateTime":"2025-12-02T10:00:00Z","tags":{"__proto__":"x"}}'))).toBe(true);
  });

  it("accepts enum names and unknown numbers, not other strings", () => {
    expect(accepts(JobInputJson, { ...minimal, state: "active", cloud: 9 })).toBe(true);
    expect(accepts(JobInputJson, { ...minimal, state: "ACTIVE" })).toBe(false);
  });

  it("does not coerce: a number is not an int64 string, a string is not a uint32", () => {
    expect(accepts(JobInputJson, { ...minimal, currentHash: 1 })).toBe(false);
    expect(accepts(JobInputJson, { ...minimal, norskCpuList: ["1"] })).toBe(false);
  });
});

describe("JobPatch (merge patch body)", () => {
  it("accepts an empty patch and nulls everywhere RFC 7396 allows them", () => {
    expect(accepts(JobPatchJson, {})).toBe(true);
    expect(accepts(JobPatchJson, { jobId: null, startDateTime: null, launchConfigJson: null, tags: { env: null, team: "media" } })).toBe(true);
    expect(accepts(JobPatchJson, { autoPlacement: { requirements: { requiredCores: null, priorityBand: "gold" } } })).toBe(true);
    expect(accepts(JobPatchJson, { norskServiceParameters: { sharedMemorySize: null } })).toBe(true);
  });

  it("replaces arrays whole: their elements are full values, never null", () => {
    expect(accepts(JobPatchJson, { services: [{ name: "a" }] })).toBe(true);
    expect(accepts(JobPatchJson, { services: [null] })).toBe(false);
    expect(accepts(JobPatchJson, { volumes: null })).toBe(true);
  });

  it("rejects unknown properties", () => {
    expect(accepts(JobPatchJson, { colour: "red" })).toBe(false);
    expect(accepts(JobPatchJson, { autoPlacement: { colour: "red" } })).toBe(false);
  });
});

describe("formats: checked as the mirror reads them", () => {
  it.each([
    [Int64String, "-9223372036854775808", true],
    [Int64String, "9223372036854775808", false],
    [Int64String, "01", false],
    [Int64String, "-0", false],
    [Uint64String, "18446744073709551615", true],
    [Uint64String, "18446744073709551616", false],
    [Timestamp, "2024-02-29T00:00:00.123456789+01:00", true],
    [Timestamp, "2023-02-29T00:00:00Z", false],
    [Timestamp, "2025-12-02", false],
    [Timestamp, "2016-12-31T23:59:60Z", false],
  ] as const)("%#: %j → %s", (schema, value, ok) => {
    expect(accepts(schema, value)).toBe(ok);
  });
});

describe("JobSearchQuery", () => {
  it("takes repeatable filters as arrays of strings and limit as an integer", () => {
    expect(accepts(JobSearchQuery, { id: ["a", "b"], tag: ["env:prod"], startAt: ["2026-01-01T00:00:00Z"], limit: 10 })).toBe(true);
    expect(accepts(JobSearchQuery, { limit: 0 })).toBe(false);
    expect(accepts(JobSearchQuery, { startAt: ["yesterday"] })).toBe(false);
    expect(accepts(JobSearchQuery, { colour: ["red"] })).toBe(false);
  });
});

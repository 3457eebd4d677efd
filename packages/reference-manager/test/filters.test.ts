import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { JobFilterSchema, JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job, JobFilter } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code, GrpcError } from "norsk-manager-contract/grpc/index.js";
import { MAX_PROGRAM_SIZE, MAX_REGEX_LENGTH, compareTimestamps, compileSearch, hasRegex, readsJob } from "../src/filters.js";
import { simpleJob } from "./harness.js";

const t = (seconds: bigint, nanos = 0): Timestamp => ({ $typeName: "google.protobuf.Timestamp", seconds, nanos });

// The jobs every filter row runs against, in id order.
const JOBS: Job[] = [
  simpleJob("alpha", { tags: { env: "prod", team: "a" }, startDateTime: t(100n) }),
  simpleJob("beta", { tags: { env: "dev" }, startDateTime: t(100n, 1) }),
  simpleJob("gamma", { tags: { env: "prod", region: "" }, startDateTime: t(200n) }),
  simpleJob("delta-1", { tags: {}, startDateTime: t(99n, 999_999_999) }),
  simpleJob("no-start", { tags: { team: "b" }, startDateTime: undefined }),
];

type FilterInit = MessageInitShape<typeof JobFilterSchema>;

const id = (comparison: { case: "eq" | "neq" | "re"; value: string }): FilterInit => ({
  jobFilter: { case: "idFilter", value: { comparison } },
});
const tag = (tagName: string, comparison: { case: "eq" | "neq" | "re"; value: string } | { case: "exists"; value: boolean }): FilterInit => ({
  jobFilter: { case: "tagFilter", value: { tagName, comparison } },
});
const date = (
  comparison:
    | { case: "eq" | "lt" | "lte" | "gt" | "gte"; value: Timestamp }
    | { case: "within"; value: { startDate?: Timestamp; endDate?: Timestamp } },
): FilterInit => ({ jobFilter: { case: "dateFilter", value: { comparison } } });

function search(filters: FilterInit[]): string[] {
  const compiled = compileSearch(filters.map((f) => create(JobFilterSchema, f)));
  return JOBS.filter(compiled.matches).map((job) => job.jobId?.jobId ?? "");
}

function rejection(filters: FilterInit[]): GrpcError {
  try {
    compileSearch(filters.map((f) => create(JobFilterSchema, f)));
  } catch (error) {
    if (error instanceof GrpcError) return error;
    throw error;
  }
  throw new Error("expected INVALID_ARGUMENT");
}

describe("job search filters", () => {
  const rows: [string, FilterInit[], string[]][] = [
    ["no filter: every job", [], ["alpha", "beta", "gamma", "delta-1", "no-start"]],
    ["id eq", [id({ case: "eq", value: "beta" })], ["beta"]],
    ["id eq of a missing id", [id({ case: "eq", value: "zeta" })], []],
    ["id neq", [id({ case: "neq", value: "beta" })], ["alpha", "gamma", "delta-1", "no-start"]],
    ["id re (searched, not anchored)", [id({ case: "re", value: "a-?1|mm" })], ["gamma", "delta-1"]],
    ["id re anchored", [id({ case: "re", value: "^a" })], ["alpha"]],
    ["tag eq", [tag("env", { case: "eq", value: "prod" })], ["alpha", "gamma"]],
    ["tag eq of an empty value", [tag("region", { case: "eq", value: "" })], ["gamma"]],
    ["tag neq includes jobs without the tag", [tag("env", { case: "neq", value: "prod" })], ["beta", "delta-1", "no-start"]],
    ["tag re requires the tag", [tag("env", { case: "re", value: "^(dev|prod)$" })], ["alpha", "beta", "gamma"]],
    ["tag re matching the empty value", [tag("region", { case: "re", value: "^$" })], ["gamma"]],
    // tags is a plain object: a name Object.prototype has (its value a function) is no tag.
    ["tag re of a name only Object.prototype has", [tag("constructor", { case: "re", value: "native|Object" })], []],
    ["tag exists of a name only Object.prototype has", [tag("toString", { case: "exists", value: true })], []],
    ["tag exists", [tag("team", { case: "exists", value: true })], ["alpha", "no-start"]],
    ["tag does not exist", [tag("team", { case: "exists", value: false })], ["beta", "gamma", "delta-1"]],
    ["date eq is exact to the nanosecond", [date({ case: "eq", value: t(100n) })], ["alpha"]],
    ["date lt", [date({ case: "lt", value: t(100n) })], ["delta-1"]],
    ["date lte", [date({ case: "lte", value: t(100n) })], ["alpha", "delta-1"]],
    ["date gt", [date({ case: "gt", value: t(100n) })], ["beta", "gamma"]],
    ["date gte", [date({ case: "gte", value: t(100n, 1) })], ["beta", "gamma"]],
    ["date within is inclusive", [date({ case: "within", value: { startDate: t(100n), endDate: t(200n) } })], ["alpha", "beta", "gamma"]],
    ["date within one instant", [date({ case: "within", value: { startDate: t(100n, 1), endDate: t(100n, 1) } })], ["beta"]],
    ["date before the epoch", [date({ case: "gt", value: t(-5n) })], ["alpha", "beta", "gamma", "delta-1"]],
    ["AND of id and tag", [id({ case: "re", value: "a$" }), tag("env", { case: "eq", value: "prod" })], ["alpha", "gamma"]],
    [
      "AND of tag, date and id",
      [tag("env", { case: "exists", value: true }), date({ case: "lt", value: t(150n) }), id({ case: "neq", value: "alpha" })],
      ["beta"],
    ],
    ["AND of two different id eq: nothing", [id({ case: "eq", value: "alpha" }), id({ case: "eq", value: "beta" })], []],
  ];

  it.each(rows)("%s", (_name, filters, expected) => {
    expect(search(filters)).toEqual(expected);
  });

  it("keeps id filters apart from tag and date filters, so an id-only search decodes no job", () => {
    const idOnly = compileSearch([create(JobFilterSchema, id({ case: "re", value: "^a" })), create(JobFilterSchema, id({ case: "neq", value: "b" }))]);
    expect(idOnly.matchesJob).toBeUndefined();
    expect(["alpha", "beta", "apple", "b"].filter(idOnly.matchesId)).toEqual(["alpha", "apple"]);
    const mixed = compileSearch([create(JobFilterSchema, id({ case: "eq", value: "alpha" })), create(JobFilterSchema, tag("env", { case: "exists", value: true }))]);
    expect(mixed.matchesJob).toBeDefined();
    expect(mixed.matchesId("alpha")).toBe(true);
    expect(mixed.matchesId("beta")).toBe(false);
  });

  it("takes a job without a jobId for one with the empty id", () => {
    const noId = create(JobSchema, {});
    expect(compileSearch([create(JobFilterSchema, id({ case: "re", value: "^$" }))]).matches(noId)).toBe(true);
    expect(compileSearch([create(JobFilterSchema, id({ case: "neq", value: "" }))]).matches(noId)).toBe(false);
  });

  const kinds: [string, FilterInit[], { regex: boolean; readsJob: boolean }][] = [
    ["no filter", [], { regex: false, readsJob: false }],
    ["id eq and neq", [id({ case: "eq", value: "a" }), id({ case: "neq", value: "b" })], { regex: false, readsJob: false }],
    ["an id re", [id({ case: "eq", value: "a" }), id({ case: "re", value: "a" })], { regex: true, readsJob: false }],
    ["a tag re", [tag("env", { case: "re", value: "a" })], { regex: true, readsJob: true }],
    ["a tag eq", [tag("env", { case: "eq", value: "re" })], { regex: false, readsJob: true }],
    ["a date filter after an id filter", [id({ case: "eq", value: "a" }), date({ case: "lt", value: t(1n) })], { regex: false, readsJob: true }],
  ];

  it.each(kinds)("tells whether %s needs a regex engine (off the event loop) and the job itself", (_name, filters, expected) => {
    const compiled = filters.map((f) => create(JobFilterSchema, f));
    expect({ regex: hasRegex(compiled), readsJob: readsJob(compiled) }).toEqual(expected);
  });

  it("pins the search to the id of an id eq filter", () => {
    expect(compileSearch([create(JobFilterSchema, id({ case: "eq", value: "beta" }))]).onlyId).toBe("beta");
    expect(compileSearch([create(JobFilterSchema, id({ case: "neq", value: "beta" }))]).onlyId).toBeUndefined();
    expect(compileSearch([]).onlyId).toBeUndefined();
  });

  const rejected: [string, FilterInit[], string][] = [
    ["an empty JobFilter", [{}], "job_filter: empty filter"],
    ["an IdFilter with no comparison", [{ jobFilter: { case: "idFilter", value: {} } }], "id_filter: no comparison set"],
    ["a TagFilter with no comparison", [{ jobFilter: { case: "tagFilter", value: { tagName: "env" } } }], "tag_filter: no comparison set"],
    ["a DateFilter with no comparison", [{ jobFilter: { case: "dateFilter", value: {} } }], "date_filter: no comparison set"],
    ["a TagFilter without a tag name", [tag("", { case: "exists", value: true })], "tag_filter.tagName is required"],
    ["an invalid id regex", [id({ case: "re", value: "(unclosed" })], "id_filter.re: invalid regular expression"],
    ["an invalid tag regex", [tag("env", { case: "re", value: "[z-a]" })], "tag_filter.re: invalid regular expression"],
    ["an id regex with a backreference", [id({ case: "re", value: "(a)\\1" })], "id_filter.re: invalid regular expression (RE2 syntax"],
    ["a tag regex with a lookahead", [tag("env", { case: "re", value: "p(?=rod)" })], "tag_filter.re: invalid regular expression (RE2 syntax"],
    ["a regex with a lookbehind", [id({ case: "re", value: "(?<=a)b" })], "id_filter.re: invalid regular expression (RE2 syntax"],
    ["a repeat count over 1000", [id({ case: "re", value: "(a{100}){100}" })], "id_filter.re: invalid regular expression (RE2 syntax"],
    ["an over-long regex", [id({ case: "re", value: "a".repeat(MAX_REGEX_LENGTH + 1) })], "id_filter.re: regular expression is longer"],
    [
      "a regex compiled to more than MAX_PROGRAM_SIZE instructions",
      [tag("env", { case: "re", value: "(?:a?){1000}".repeat(3) })],
      `tag_filter.re: regular expression is too complex: 6002 instructions compiled, at most ${MAX_PROGRAM_SIZE}`,
    ],
    ["within without start", [date({ case: "within", value: { endDate: t(1n) } })], "date_filter.within.start_date is required"],
    ["within without end", [date({ case: "within", value: { startDate: t(1n) } })], "date_filter.within.end_date is required"],
    ["within backwards", [date({ case: "within", value: { startDate: t(2n), endDate: t(1n) } })], "date_filter.within: end_date is before start_date"],
    ["a bad filter after good ones", [id({ case: "eq", value: "alpha" }), {}], "job_filter: empty filter"],
  ];

  it.each(rejected)("rejects %s with INVALID_ARGUMENT naming the field", (_name, filters, message) => {
    const error = rejection(filters);
    expect(error.code).toBe(Code.INVALID_ARGUMENT);
    expect(error.details).toContain(message);
  });

  // Each would take longer than the test's timeout with a backtracking engine (a JavaScript
  // RegExp) on these values; RE2 answers at once.
  const hostile: [string, string, boolean][] = [
    ["^(a|a?)+$", `${"a".repeat(5000)}!`, false],
    ["^(a|a?)+$", "a".repeat(5000), true],
    ["(a|a)*b", "a".repeat(5000), false],
    ["(a+)+$", `${"a".repeat(5000)}!`, false],
    ["(x+x+)+y", "x".repeat(5000), false],
    [".*.*.*.*.*.*.*.*.*=", "a".repeat(5000), false],
    ["(.*a){20}", `${"a".repeat(19)}${"b".repeat(5000)}`, false],
  ];

  it.each(hostile)("runs %s, catastrophic for a backtracking engine, in linear time", (pattern, value, matches) => {
    const { matchesId } = compileSearch([create(JobFilterSchema, id({ case: "re", value: pattern }))] satisfies JobFilter[]);
    expect(matchesId(value)).toBe(matches);
  });

  // Where RE2 differs from a JavaScript RegExp without flags (src/regex.ts).
  const semantics: [string, string, string, boolean][] = [
    ["matches code points: . is one emoji", "^.$", "\u{1F600}", true],
    ["matches code points: .. is not one emoji", "^..$", "\u{1F600}", false],
    ["\\s is ASCII white space only", "\\s", "\u00a0", false],
    ["\\d is ASCII digits only", "\\d", "\u0663", false],
    [". matches a carriage return", "a.b", "a\rb", true],
    [". does not match a line feed", "a.b", "a\nb", false],
    ["$ is the end of the value", "a$", "a\n", false],
    ["(?m) makes $ the end of a line", "(?m)a$", "a\nb", true],
    ["(?i) ignores case", "(?i)^PROD$", "prod", true],
    ["Unicode classes", "^\\p{Greek}+$", "\u03b1\u03b2", true],
    ["\\x{...} escapes", "^\\x{41}$", "A", true],
  ];

  it.each(semantics)("RE2 semantics: %s", (_name, pattern, value, matches) => {
    const { matchesId } = compileSearch([create(JobFilterSchema, id({ case: "re", value: pattern }))] satisfies JobFilter[]);
    expect(matchesId(value)).toBe(matches);
  });

  it("orders timestamps by seconds, then nanos", () => {
    expect(compareTimestamps(t(1n, 5), t(1n, 5))).toBe(0);
    expect(compareTimestamps(t(1n, 999_999_999), t(2n, 0))).toBe(-1);
    expect(compareTimestamps(t(2n, 0), t(1n, 999_999_999))).toBe(1);
    expect(compareTimestamps(t(-1n, 1), t(-1n, 0))).toBe(1);
  });
});

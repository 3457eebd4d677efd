import { describe, expect, it } from "vitest";
import { QueryError, searchRequestFromQuery } from "../../src/operations/search-query.js";
import type { QueryIssue } from "../../src/operations/search-query.js";

function queryIssues(query: string): readonly QueryIssue[] {
  try {
    searchRequestFromQuery(query);
  } catch (error) {
    expect(error).toBeInstanceOf(QueryError);
    return (error as QueryError).errors;
  }
  return expect.fail("expected a QueryError");
}

describe("searchRequestFromQuery: GET /v1/jobs query string → JobSearchRequest", () => {
  it("keeps the order of the parameters across names", () => {
    const { request } = searchRequestFromQuery("?hasTag=a&id=j-1&startAt=2026-01-01T00:00:00Z&tag=env:prod&id=j-2");
    expect(request.jobFilter.map((f) => f.jobFilter.case)).toEqual(["tagFilter", "idFilter", "dateFilter", "tagFilter", "idFilter"]);
  });

  it("splits a tag at the first colon only, and decodes percent-escapes and +", () => {
    const [filter] = searchRequestFromQuery("tag=url:http%3A%2F%2Fx:1&tagMatch=a+b:%5E.*$").request.jobFilter;
    expect(filter?.jobFilter).toMatchObject({ case: "tagFilter", value: { tagName: "url", comparison: { case: "eq", value: "http://x:1" } } });
    const second = searchRequestFromQuery("tagMatch=a+b:%5E.*$").request.jobFilter[0];
    expect(second?.jobFilter).toMatchObject({ value: { tagName: "a b", comparison: { case: "re", value: "^.*$" } } });
  });

  it("accepts an empty tag value and any offset in times", () => {
    const { request } = searchRequestFromQuery("tag=env:&startAfter=2026-01-01T01:00:00%2B01:00");
    expect(request.jobFilter[0]?.jobFilter).toMatchObject({ value: { tagName: "env", comparison: { value: "" } } });
    expect(request.jobFilter[1]?.jobFilter).toMatchObject({ value: { comparison: { case: "gt", value: { seconds: 1767225600n } } } });
  });

  // Written out here, not read from SEARCH_FILTERS: a wrong row of the table must fail this.
  it.each([
    ["id=j", "idFilter", "eq"],
    ["idNot=j", "idFilter", "neq"],
    ["idMatch=j", "idFilter", "re"],
    ["tag=t:v", "tagFilter", "eq"],
    ["tagNot=t:v", "tagFilter", "neq"],
    ["tagMatch=t:v", "tagFilter", "re"],
    ["hasTag=t", "tagFilter", "exists"],
    ["startAt=2026-01-01T00:00:00Z", "dateFilter", "eq"],
    ["startBefore=2026-01-01T00:00:00Z", "dateFilter", "lt"],
    ["startAtOrBefore=2026-01-01T00:00:00Z", "dateFilter", "lte"],
    ["startAfter=2026-01-01T00:00:00Z", "dateFilter", "gt"],
    ["startAtOrAfter=2026-01-01T00:00:00Z", "dateFilter", "gte"],
    ["startWithin=2026-01-01T00:00:00Z/2026-01-02T00:00:00Z", "dateFilter", "within"],
  ])("reads %s as a %s, %s", (query, filter, comparison) => {
    const [made] = searchRequestFromQuery(query).request.jobFilter;
    expect(made?.jobFilter).toMatchObject({ case: filter, value: { comparison: { case: comparison } } });
  });

  it("reads limit apart from the filters", () => {
    const { request, limit } = searchRequestFromQuery("limit=5&id=j");
    expect(limit).toBe(5);
    expect(request.jobFilter).toHaveLength(1);
  });

  it.each([
    ["tag=noColon", "tag", "must be name:value"],
    ["tag=:v", "tag", "non-empty name"],
    ["hasTag=", "hasTag", "must be a tag name"],
    ["startAt=2026-02-30T00:00:00Z", "startAt", "has no day 30"],
    ["startWithin=2026-01-01T00:00:00Z", "startWithin", "must be from/to"],
    ["startWithin=2026-01-01T00:00:00Z/soon", "startWithin", "RFC 3339"],
    ["limit=0", "limit", "between 1 and 2147483647"],
    ["limit=1.5", "limit", "between 1 and 2147483647"],
    ["limit=1&limit=2", "limit", "may be given once"],
    ["colour=red", "colour", "is not a parameter of the job search"],
  ])("rejects %s naming the parameter", (query, parameter, message) => {
    const [issue] = queryIssues(query);
    expect(issue?.parameter).toBe(parameter);
    expect(issue?.message).toContain(message);
  });

  it("collects every problem of the query", () => {
    expect(queryIssues("tag=x&startAt=no&bogus=1").map((i) => i.parameter)).toEqual(["tag", "startAt", "bogus"]);
  });
});

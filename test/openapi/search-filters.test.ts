// docs/reference/search-filters.md is current, and the one table (SEARCH_FILTERS) is what the
// parser, the document and the docs all follow: a filter in one is a filter in each.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { JobSearchQuery, SEARCH_FILTERS } from "../../schemas/search.js";
import { SEARCH_FILTERS_DOC, searchFiltersMarkdown } from "../../src/openapi/search-filters.js";
import { QueryError, searchRequestFromQuery } from "../../src/operations/search-query.js";

const ROOT = resolve(import.meta.dirname, "../..");

describe("docs/reference/search-filters.md", () => {
  it("equals what SEARCH_FILTERS generates (run `npm run openapi` and commit the result)", () => {
    expect(readFileSync(resolve(ROOT, SEARCH_FILTERS_DOC), "utf8")).toBe(searchFiltersMarkdown());
  });

  it("has one row per filter, naming it", () => {
    const rows = searchFiltersMarkdown()
      .split("\n")
      .filter((line) => line.startsWith("| `"));
    expect(rows.map((row) => /^\| `([^`]+)`/.exec(row)?.[1])).toEqual(Object.keys(SEARCH_FILTERS));
  });
});

describe("SEARCH_FILTERS", () => {
  it("are JobSearchQuery's parameters, limit aside, in the table's order", () => {
    expect(Object.keys(JobSearchQuery.properties)).toEqual([...Object.keys(SEARCH_FILTERS), "limit", "pageSize", "pageToken", "fields"]);
  });

  it.each(Object.entries(SEARCH_FILTERS))("%s: its example parses into one filter", (name, filter) => {
    const { request, states } = searchRequestFromQuery(new URLSearchParams([[name, filter.example]]));
    // state is applied in the gateway: no JobFilter, one state.
    expect(request.jobFilter.length + (states?.size ?? 0)).toBe(1);
  });

  it("and limit are the only parameters the parser takes", () => {
    let error: unknown;
    try {
      searchRequestFromQuery("notAFilter=1");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(QueryError);
    expect((error as QueryError).errors).toEqual([{ parameter: "notAFilter", message: "is not a parameter of the job search" }]);
  });
});

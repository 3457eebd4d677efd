// SEARCH_FILTERS as the one table from a Manager's message to the parameter the client sent:
// each filter makes its own JobFilter path, so a message about a path names exactly one.
import { describe, expect, it } from "vitest";
import { SEARCH_FILTERS, filterOfMessage, jobFilterPath } from "../../schemas/search.js";
import type { SearchFilter } from "../../schemas/search.js";

describe("filterOfMessage", () => {
  it("finds a distinct JobFilter path for every filter the Manager applies, and none for state, which the gateway applies", () => {
    const paths = Object.values(SEARCH_FILTERS).map((filter: SearchFilter) => jobFilterPath(filter)).filter((path) => path !== undefined);
    expect(new Set(paths).size).toBe(paths.length);
    expect(jobFilterPath(SEARCH_FILTERS.state)).toBeUndefined();
  });

  it.each(Object.keys(SEARCH_FILTERS).filter((name) => name !== "state"))("names %s for a message about its JobFilter path", (name) => {
    const filter = SEARCH_FILTERS[name as keyof typeof SEARCH_FILTERS];
    expect(filterOfMessage(`${jobFilterPath(filter) ?? ""}: is wrong`)).toEqual({ parameter: name, rest: "is wrong" });
  });

  it.each([["id_filter: no comparison set"], ["id_filter.rex: x"], ["job_filter: empty filter"], [""]])("names nothing for %j", (message) => {
    expect(filterOfMessage(message)).toBeUndefined();
  });
});

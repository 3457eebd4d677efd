// GET /v1/jobs query string → JobSearchRequest (docs/architecture.md, "HTTP surface"). Read from
// the raw query string, because the filters keep the order of the parameters, which a parsed query
// object (one array
// per name) has lost. Timestamps are read by the mirror's RFC 3339 parser.
import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { DateFilter_WithinSchema, JobFilterSchema, JobSearchRequestSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { JobFilter, JobSearchRequest } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { parseTimestamp } from "norsk-manager-contract/lexical/timestamp.js";
import { SEARCH_FILTERS } from "../../schemas/search.js";
import type { SearchFilter } from "../../schemas/search.js";

/** One thing wrong with the query: which parameter, and what. */
export interface QueryIssue {
  readonly parameter: string;
  readonly message: string;
}

export class QueryError extends Error {
  override readonly name = "QueryError";
  constructor(readonly errors: readonly QueryIssue[]) {
    super(errors.map((e) => `${e.parameter}: ${e.message}`).join("; "));
  }
}

export interface SearchQuery {
  readonly request: JobSearchRequest;
  /** Stop after this many jobs; undefined: all. */
  readonly limit: number | undefined;
}

type Filter = MessageInitShape<typeof JobFilterSchema>["jobFilter"];

const has = <T extends object>(table: T, key: string): key is Extract<keyof T, string> => Object.hasOwn(table, key);

/**
 * Parse the query string of GET /v1/jobs (with or without its "?"): each parameter a filter of
 * SEARCH_FILTERS (schemas/search.ts), or limit. Throws a QueryError.
 */
export function searchRequestFromQuery(query: string | URLSearchParams): SearchQuery {
  const params = typeof query === "string" ? new URLSearchParams(query) : query;
  const errors: QueryIssue[] = [];
  const filters: JobFilter[] = [];
  let limit: number | undefined;
  for (const [name, value] of params) {
    const fail = (message: string) => errors.push({ parameter: name, message });
    if (has(SEARCH_FILTERS, name)) {
      const filter = filterOf(SEARCH_FILTERS[name], value, fail);
      if (filter !== undefined) filters.push(create(JobFilterSchema, { jobFilter: filter }));
    } else if (name === "limit") {
      if (limit !== undefined) fail("may be given once");
      else if (/^[1-9][0-9]{0,9}$/.test(value) && Number(value) <= 2147483647) limit = Number(value);
      else fail("must be an integer between 1 and 2147483647");
    } else {
      fail("is not a parameter of the job search");
    }
  }
  if (errors.length > 0) throw new QueryError(errors);
  return { request: create(JobSearchRequestSchema, { jobFilter: filters }), limit };
}

/** The JobFilter of one filter parameter; undefined when its value is invalid (reported). */
function filterOf(filter: SearchFilter, value: string, fail: (message: string) => void): Filter | undefined {
  switch (filter.value) {
    case "id":
      return { case: "idFilter", value: { comparison: { case: filter.comparison, value } } };
    case "tag": {
      const colon = value.indexOf(":");
      if (colon <= 0) {
        fail(`must be name:${filter.comparison === "re" ? "regex" : "value"} with a non-empty name`);
        return undefined;
      }
      const tagName = value.slice(0, colon);
      return { case: "tagFilter", value: { tagName, comparison: { case: filter.comparison, value: value.slice(colon + 1) } } };
    }
    case "tagExists":
      if (value !== "") return { case: "tagFilter", value: { tagName: value, comparison: { case: "exists", value: true } } };
      fail("must be a tag name");
      return undefined;
    case "start": {
      const time = timestamp(value, fail);
      return time && { case: "dateFilter", value: { comparison: { case: filter.comparison, value: time } } };
    }
    case "startWithin": {
      const parts = value.split("/");
      if (parts.length !== 2) {
        fail("must be from/to: two RFC 3339 date-times separated by /");
        return undefined;
      }
      const startDate = timestamp(parts[0] ?? "", fail);
      const endDate = timestamp(parts[1] ?? "", fail);
      if (!startDate || !endDate) return undefined;
      const within = create(DateFilter_WithinSchema, { startDate, endDate });
      return { case: "dateFilter", value: { comparison: { case: "within", value: within } } };
    }
  }
}

function timestamp(text: string, fail: (message: string) => void): Timestamp | undefined {
  const parsed = parseTimestamp(text);
  if (typeof parsed !== "string") return create(TimestampSchema, parsed);
  fail(parsed);
  return undefined;
}

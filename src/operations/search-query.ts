// GET /v1/jobs query string → JobSearchRequest (docs/architecture.md, "HTTP surface"). Read from
// the raw query string, because the filters keep the order of the parameters, which a parsed query
// object (one array
// per name) has lost. Timestamps are read by the mirror's RFC 3339 parser.
import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { DateFilter_WithinSchema, JobFilterSchema, JobSearchRequestSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Job_JobState } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { JobFilter, JobSearchRequest } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { parseTimestamp } from "norsk-manager-contract/lexical/timestamp.js";
import { MAX_PAGE_SIZE, SEARCH_FILTERS } from "../../schemas/search.js";
import type { SearchFilter } from "../../schemas/search.js";
import { JOB_STATE_NAMES } from "../../schemas/enums.js";
import { decodePageToken, filterDigest } from "./search-page.js";
import { parseFields } from "./job-fields.js";

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
  /** The states a job may be in (state=, applied in the gateway: JobFilter has no state filter); undefined: any. */
  readonly states: ReadonlySet<Job_JobState> | undefined;
  /** The top-level Job fields to send (fields=, jobId first); undefined: all. */
  readonly fields: readonly string[] | undefined;
  /** The page asked for (pageSize, and pageToken for the pages after the first); undefined: the whole list. */
  readonly page: SearchPage | undefined;
}

export interface SearchPage {
  readonly size: number;
  /** After this job id (the token's position); undefined: the first page. */
  readonly afterJobId: string | undefined;
  /** The digest of this search's filters, for the next page's token. */
  readonly filterDigest: Buffer;
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
  const selecting: [string, string][] = [];
  let states: Set<Job_JobState> | undefined;
  let limit: number | undefined;
  let pageSize: number | undefined;
  let pageToken: string | undefined;
  let fields: readonly string[] | undefined;
  const seen = new Set<string>();
  for (const [name, value] of params) {
    const fail = (message: string) => errors.push({ parameter: name, message });
    const once = () => {
      if (seen.has(name)) fail("may be given once");
      seen.add(name);
    };
    if (has(SEARCH_FILTERS, name)) {
      selecting.push([name, value]);
      const row: SearchFilter = SEARCH_FILTERS[name];
      if (row.value === "state") {
        const state = stateOf(value);
        if (state === undefined) fail(`must be one of ${JOB_STATE_NAMES.join(", ")}`);
        else (states ??= new Set()).add(state);
        continue;
      }
      const filter = filterOf(row, value, fail);
      if (filter !== undefined) filters.push(create(JobFilterSchema, { jobFilter: filter }));
    } else if (name === "limit") {
      once();
      limit = positiveInteger(value, 2147483647, fail);
    } else if (name === "pageSize") {
      once();
      pageSize = positiveInteger(value, MAX_PAGE_SIZE, fail);
    } else if (name === "pageToken") {
      once();
      pageToken = value;
    } else if (name === "fields") {
      once();
      const parsed = parseFields(value);
      if (typeof parsed === "string") fail(parsed);
      else fields = parsed;
    } else {
      fail("is not a parameter of the job search");
    }
  }
  const page = pageOf({ pageSize, pageToken, limit, selecting, params }, (parameter, message) => errors.push({ parameter, message }));
  if (errors.length > 0) throw new QueryError(errors);
  return { request: create(JobSearchRequestSchema, { jobFilter: filters }), limit, states, fields, page };
}

/** An integer from 1 to `max`, or undefined (reported). */
function positiveInteger(value: string, max: number, fail: (message: string) => void): number | undefined {
  if (/^[1-9][0-9]{0,9}$/.test(value) && Number(value) <= max) return Number(value);
  fail(`must be an integer between 1 and ${max}`);
  return undefined;
}

interface PageParameters {
  readonly pageSize: number | undefined;
  readonly pageToken: string | undefined;
  readonly limit: number | undefined;
  readonly selecting: readonly (readonly [string, string])[];
  readonly params: URLSearchParams;
}

/** The page that pageSize and pageToken ask for; problems reported by parameter. */
function pageOf(given: PageParameters, fail: (parameter: string, message: string) => void): SearchPage | undefined {
  const { pageSize, pageToken, params } = given;
  if (!params.has("pageSize")) {
    if (params.has("pageToken")) fail("pageToken", "is read only with pageSize");
    return undefined;
  }
  if (params.has("limit")) fail("limit", "cannot be combined with pageSize: a page ends at pageSize");
  if (pageSize === undefined) return undefined;
  const digest = filterDigest(given.selecting);
  if (pageToken === undefined) return { size: pageSize, afterJobId: undefined, filterDigest: digest };
  const position = decodePageToken(pageToken);
  if (typeof position === "string") {
    fail("pageToken", position);
    return undefined;
  }
  if (!position.filterDigest.equals(digest)) {
    fail("pageToken", "was made for other filters: send the filters of the first page with it, or start again without pageToken");
    return undefined;
  }
  return { size: pageSize, afterJobId: position.afterJobId, filterDigest: digest };
}

/** The JobState each state= value names: every name of JOB_STATE_NAMES, as the type requires. */
const STATES: Readonly<Record<(typeof JOB_STATE_NAMES)[number], Job_JobState>> = {
  pre: Job_JobState.PRE,
  active: Job_JobState.ACTIVE,
  post: Job_JobState.POST,
};

function stateOf(name: string): Job_JobState | undefined {
  return has(STATES, name) ? STATES[name] : undefined;
}

/** The JobFilter of one filter parameter; undefined when its value is invalid (reported). */
function filterOf(filter: Exclude<SearchFilter, { value: "state" }>, value: string, fail: (message: string) => void): Filter | undefined {
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

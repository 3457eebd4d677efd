// Query parameters of GET /v1/jobs (docs/architecture.md, "HTTP surface"). Filters are repeatable
// and AND-ed. The order of the filters is the order of the parameters in the query string, which a
// parsed query object
// cannot carry; src/operations/search-query.ts reads the raw query string, and this schema documents and
// validates the same parameters, both from the one table SEARCH_FILTERS. The examples all match the job of the OpenAPI document's
// examples (src/openapi/examples.ts): Swagger UI sends every one of them.
import { Type } from "@sinclair/typebox";
import type { Static } from "@sinclair/typebox";
import { Timestamp } from "./common.js";
import { JOB_STATE_NAMES } from "./enums.js";

/**
 * What a filter parameter's value is, and which of JobFilter's filters it makes:
 * - "id": the job id compared with the value (id_filter);
 * - "tag": name:value, the tag's value compared (tag_filter), the name being everything before the first colon;
 * - "tagExists": a tag name, the job has the tag (tag_filter, exists);
 * - "start": an RFC 3339 date-time compared with startDateTime (date_filter);
 * - "startWithin": from/to, two RFC 3339 date-times (date_filter, within);
 * - "state": a JobState name, kept or dropped in the gateway (JobFilter has no state filter).
 */
export type SearchFilter = Readonly<
  (
    | { value: "id"; comparison: "eq" | "neq" | "re" }
    | { value: "tag"; comparison: "eq" | "neq" | "re" }
    | { value: "tagExists" }
    | { value: "start"; comparison: "eq" | "lt" | "lte" | "gt" | "gte" }
    | { value: "startWithin" }
    | { value: "state" }
  ) & {
    /** The parameter's description in the document and the docs ("Repeatable." is added). */
    description: string;
    /** A value that matches the job of the document's examples (src/openapi/examples.ts). */
    example: string;
  }
>;

/**
 * The filters of GET /v1/jobs, one row each, in the document's order: the query parser
 * (src/operations/search-query.ts), JobSearchQuery below and docs/reference/search-filters.md
 * (`npm run openapi`) all read this table. A new filter is a row here (and, for a new kind of
 * value, its case in the parser).
 */
export const SEARCH_FILTERS = {
  id: { value: "id", comparison: "eq", description: "Job id equals.", example: "encoder-1" },
  idNot: { value: "id", comparison: "neq", description: "Job id differs.", example: "encoder-2" },
  idMatch: {
    value: "id",
    comparison: "re",
    description:
      "Job id matches this regular expression: RE2 syntax (https://github.com/google/re2/wiki/Syntax; no backreferences or " +
      "lookaround), searched, not anchored (^...$ for the whole id), on Unicode code points, in time linear in the id. " +
      "At most 1000 characters; a pattern RE2 cannot run, or too complex (over 5000 compiled instructions), is a 400 " +
      "naming this parameter.",
    example: "^encoder-",
  },
  tag: {
    value: "tag",
    comparison: "eq",
    description: "Tag equals: name:value (the name is everything before the first colon; the value may contain colons).",
    example: "env:prod",
  },
  tagNot: { value: "tag", comparison: "neq", description: "Tag differs: name:value.", example: "env:dev" },
  tagMatch: {
    value: "tag",
    comparison: "re",
    description: "Tag value matches a regular expression: name:regex, the regex as for idMatch (RE2 syntax, linear time).",
    example: "env:^pr",
  },
  hasTag: { value: "tagExists", description: "The job has this tag.", example: "env" },
  startAt: { value: "start", comparison: "eq", description: "startDateTime equals.", example: "2026-12-24T18:00:00Z" },
  startBefore: { value: "start", comparison: "lt", description: "startDateTime is before.", example: "2027-01-01T00:00:00Z" },
  startAtOrBefore: { value: "start", comparison: "lte", description: "startDateTime is at or before.", example: "2026-12-24T18:00:00Z" },
  startAfter: { value: "start", comparison: "gt", description: "startDateTime is after.", example: "2026-12-01T00:00:00Z" },
  startAtOrAfter: { value: "start", comparison: "gte", description: "startDateTime is at or after.", example: "2026-12-24T18:00:00Z" },
  startWithin: {
    value: "startWithin",
    description: "startDateTime is within from/to (two RFC 3339 date-times).",
    example: "2026-12-24T00:00:00Z/2026-12-25T00:00:00.5Z",
  },
  state: {
    value: "state",
    description:
      "The job is in this state (pre, active or post); given more than once, in any of them. The Manager's search has no state " +
      "filter: the gateway reads every job the other filters select and drops the others, so a search by state alone costs a full list.",
    example: "pre",
  },
} as const satisfies Readonly<Record<string, SearchFilter>>;

export type SearchFilterName = keyof typeof SEARCH_FILTERS;

/** The JobFilter field each kind of value fills (manager.proto). */
const FILTER_FIELDS: Readonly<Record<Exclude<SearchFilter["value"], "state">, string>> = {
  id: "id_filter",
  tag: "tag_filter",
  tagExists: "tag_filter",
  start: "date_filter",
  startWithin: "date_filter",
};

/**
 * The JobFilter a filter makes, as manager.proto names its field and comparison ("id_filter.re"):
 * one filter parameter each, so a Manager's message about one names the parameter the client
 * sent (src/operations/job-search.ts) and the generated table shows it. Undefined for a filter
 * the gateway applies itself (JobFilter has no such field).
 */
export function jobFilterPath(filter: SearchFilter): string | undefined {
  if (filter.value === "state") return undefined;
  const comparison = filter.value === "tagExists" ? "exists" : filter.value === "startWithin" ? "within" : filter.comparison;
  return `${FILTER_FIELDS[filter.value]}.${comparison}`;
}

/**
 * The filter parameter a Manager's message is about, and the rest of the message: the message
 * begins with the filter's JobFilter path and ": " ("id_filter.re: invalid regular expression"
 * is idMatch's "invalid regular expression"); undefined for any other message.
 */
export function filterOfMessage(message: string): { readonly parameter: SearchFilterName; readonly rest: string } | undefined {
  for (const [name, filter] of Object.entries(SEARCH_FILTERS) as [SearchFilterName, SearchFilter][]) {
    const path = jobFilterPath(filter);
    if (path === undefined) continue;
    const prefix = `${path}: `;
    if (message.startsWith(prefix)) return { parameter: name, rest: message.slice(prefix.length) };
  }
  return undefined;
}

/** The parameter of a filter: repeatable; a date-time where the filter compares one. */
function filterParameter(filter: SearchFilter) {
  const options = { description: `${filter.description} Repeatable.`, examples: [[filter.example]] };
  if (filter.value === "start") return Type.Optional(Type.Array(Timestamp, options));
  if (filter.value === "state") return Type.Optional(Type.Array(Type.Unsafe<string>(Type.String({ enum: [...JOB_STATE_NAMES] })), options));
  return Type.Optional(Type.Array(Type.String(), options));
}

type FilterParameters = { [Name in SearchFilterName]: ReturnType<typeof filterParameter> };

const filterParameters = Object.fromEntries(
  Object.entries(SEARCH_FILTERS).map(([name, filter]) => [name, filterParameter(filter)]),
) as FilterParameters;

/** The most jobs on one page. */
export const MAX_PAGE_SIZE = 1000;
/** The longest page token read: a 256-code-point id is at most 1024 UTF-8 bytes, so a token is at most 1388 characters. */
export const MAX_PAGE_TOKEN_LENGTH = 2048;

/** The parameter that is not a filter. */
export const LIMIT_DESCRIPTION = "Stop after this many jobs.";

/** fields= of job reads and searches: what it selects, and that the answer is then partial. */
export const FIELDS_DESCRIPTION =
  "Only these top-level Job fields, comma-separated (jobId is always sent): the answer is then partial (PartialJob, " +
  "PartialJobList), holding these fields of Job and no others, even those Job requires. An unknown field is a 400 naming it.";
// No example: Swagger UI sends every example, and the document's examples are whole jobs.
export const FieldsParameter = Type.Optional(Type.String({ description: FIELDS_DESCRIPTION }));

export const JobSearchQuery = Type.Object(
  {
    ...filterParameters,
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: LIMIT_DESCRIPTION, examples: [100] })),
    pageSize: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_PAGE_SIZE,
        description:
          "Answer one page of at most this many jobs, with nextPageToken and a Link rel=\"next\" header when more follow. JSON " +
          "only (with Accept: application/x-ndjson it is a 400: NDJSON streams the whole list); not with limit. Each page is " +
          "the search made again and read past the position, so page n costs n pages of jobs.",
      }),
    ),
    pageToken: Type.Optional(
      Type.String({
        maxLength: MAX_PAGE_TOKEN_LENGTH,
        description:
          "The nextPageToken of the previous page, sent with the same filters and a pageSize: a token made for other filters is a 400.",
      }),
    ),
    fields: FieldsParameter,
  },
  { additionalProperties: false, $id: "JobSearchQuery", description: "Job search filters, combined with AND." },
);
export type JobSearchQueryJson = Static<typeof JobSearchQuery>;

/**
 * What the NDJSON form of a job search (GET /v1/jobs with Accept: application/x-ndjson) is: the
 * same list in another encoding, as OpenAPI describes one data model under several media types.
 * Its schema is the JSON form's (JobList, or PartialJobList with fields=), so a client generated
 * from the document reads `jobs` from the search's JSON answer without first telling the two
 * forms apart (openapi-fetch types `data` as the union of the forms). The stream bypasses
 * fastify's serializer; the schema documents it.
 */
export const JOB_LIST_NDJSON =
  "As application/x-ndjson: the same jobs, one per line and nothing else, in id order, each written as it arrives. A " +
  "failure after the first line (nothing more from the Manager within the request timeout: 504; nothing taken by the " +
  'client for as long: 429; the Manager failed or went away) ends the stream with one {"error": Problem} line.';

// Query parameters of GET /v1/jobs (docs/architecture.md, "HTTP surface"). Filters are repeatable
// and AND-ed. The order of the filters is the order of the parameters in the query string, which a
// parsed query object
// cannot carry; src/operations/search-query.ts reads the raw query string, and this schema documents and
// validates the same parameters. The examples all match the job of the OpenAPI document's
// examples (src/openapi/examples.ts): Swagger UI sends every one of them.
import { Type } from "@sinclair/typebox";
import type { Static } from "@sinclair/typebox";
import { Timestamp, doc } from "./common.js";
import { JobListJson } from "./job.js";

const many = (description: string, example: string) =>
  Type.Optional(Type.Array(Type.String(), { description: `${description} Repeatable.`, examples: [[example]] }));

const times = (description: string, example: string) =>
  Type.Optional(Type.Array(Timestamp, { description: `${description} Repeatable.`, examples: [[example]] }));

export const JobSearchQuery = Type.Object(
  {
    id: many("Job id equals.", "encoder-1"),
    idNot: many("Job id differs.", "encoder-2"),
    idMatch: many(
      "Job id matches this regular expression: RE2 syntax (https://github.com/google/re2/wiki/Syntax; no backreferences or " +
        "lookaround), searched, not anchored (^...$ for the whole id), on Unicode code points, in time linear in the id. " +
        "At most 1000 characters; a pattern RE2 cannot run, or too complex (over 5000 compiled instructions), is a 400 " +
        "naming this parameter.",
      "^encoder-",
    ),
    tag: many("Tag equals: name:value (the name is everything before the first colon; the value may contain colons).", "env:prod"),
    tagNot: many("Tag differs: name:value.", "env:dev"),
    tagMatch: many("Tag value matches a regular expression: name:regex, the regex as for idMatch (RE2 syntax, linear time).", "env:^pr"),
    hasTag: many("The job has this tag.", "env"),
    startAt: times("startDateTime equals.", "2026-12-24T18:00:00Z"),
    startBefore: times("startDateTime is before.", "2027-01-01T00:00:00Z"),
    startAtOrBefore: times("startDateTime is at or before.", "2026-12-24T18:00:00Z"),
    startAfter: times("startDateTime is after.", "2026-12-01T00:00:00Z"),
    startAtOrAfter: times("startDateTime is at or after.", "2026-12-24T18:00:00Z"),
    startWithin: many("startDateTime is within from/to (two RFC 3339 date-times).", "2026-12-24T00:00:00Z/2026-12-25T00:00:00.5Z"),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: "Stop after this many jobs.", examples: [100] })),
  },
  { additionalProperties: false, $id: "JobSearchQuery", description: "Job search filters, combined with AND." },
);
export type JobSearchQueryJson = Static<typeof JobSearchQuery>;

/**
 * The NDJSON form of a job search (GET /v1/jobs with Accept: application/x-ndjson): the same
 * list in another encoding, as OpenAPI describes one data model under several media types. So
 * a client generated from the document reads `jobs` from the search's JSON answer without
 * first telling the two forms apart (openapi-fetch types `data` as the union of the forms).
 * The stream bypasses fastify's serializer; this schema documents it.
 */
export const JobListNdjson = doc(
  JobListJson,
  "As application/x-ndjson: the same jobs, one per line and nothing else, in id order, each written as it arrives. A " +
    "failure after the first line (nothing more from the Manager within the request timeout: 504; nothing taken by the " +
    'client for as long: 429; the Manager failed or went away) ends the stream with one {"error": Problem} line.',
  { jobs: [] },
);

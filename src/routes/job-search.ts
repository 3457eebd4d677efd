// GET /v1/jobs: JobSearch, streamed as the Manager sends it and as fast as the client takes it
// (src/operations/job-search.ts, search-body.ts).
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import fastJson from "fast-json-stringify";
import { deadlinesOf, streamCallOptions } from "../operations/call-options.js";
import { NDJSON } from "../http/media-type.js";
import { logStreamFailure } from "../telemetry/manager-state.js";
import { toProblem } from "../http/problem.js";
import { errorResponses } from "../http/responses.js";
import { serializerOptions } from "../http/validation.js";
import type { ManagerRouteOptions } from "../operations/job-access.js";
import { prefersNdjson, searchOfUrl, startSearchShared } from "../operations/job-search.js";
import { SearchBody } from "../operations/search-body.js";
import type { Keep, Stringify } from "../operations/search-body.js";
import { encodePageToken, readPage } from "../operations/search-page.js";
import { partialJobStringify, projectJob } from "../operations/job-fields.js";
import { invalidArgument } from "../http/problem.js";
import { JSON_UTF8 } from "../http/json-text.js";
import { jobToJson } from "../json/index.js";
import { Type } from "@sinclair/typebox";
import { JobJson, JobListJson, PartialJobListJson } from "../../schemas/job.js";
import { JOB_LIST_NDJSON, JobSearchQuery } from "../../schemas/search.js";
import { needs } from "../auth/scopes.js";

const JOB_SEARCH_SCHEMA = {
  operationId: "jobSearch",
  tags: ["jobs"],
  summary: "Search jobs",
  description:
    "JobSearch. Filters are repeatable and combined with AND; jobs come in id order as the Manager sends them, read from it " +
    "only as fast as the client takes them, and `limit` stops early. `Accept: application/x-ndjson` gives one job per line " +
    "instead of `{\"jobs\": [...]}`. A list of any length finishes: the request timeout (10 s by default) bounds each wait " +
    "for a job, the first included, not the whole list (see Grpc-Timeout); a client that takes nothing for as long is cut off. " +
    "A failure after the first job cannot change the status: NDJSON ends with an error line, and a JSON body is cut off, so " +
    "that no partial list passes for a whole one. `pageSize` answers one page (JSON only), with `nextPageToken` and a " +
    "`Link: <...>; rel=\"next\"` header while more follow; the page is read whole before it is sent. `state` is " +
    "applied in the gateway; `fields` makes every job partial.",

  querystring: JobSearchQuery,
  response: {
    200: {
      description: "OK: the jobs found, as one JSON document or, when asked, as newline-delimited JSON; with `fields`, a PartialJobList.",
      content: {
        "application/json": { schema: Type.Union([JobListJson, PartialJobListJson]) },
        [NDJSON]: { schema: Type.Union([JobListJson, PartialJobListJson], { description: JOB_LIST_NDJSON }) },
      },
      headers: {
        Link: Type.String({
          description: 'With pageSize, when a next page follows: `<url>; rel="next"` (RFC 8288), the url this one with the next pageToken.',
          examples: ['</v1/jobs?pageSize=100&pageToken=AQ>; rel="next"'],
        }),
      },
    },
    ...errorResponses({ INVALID_ARGUMENT: "a filter is malformed, or the Manager refused it (a bad regular expression)" }),
  },
};

export const jobSearchRoutes: FastifyPluginCallbackTypebox<ManagerRouteOptions> = (app, options, done) => {
  const { client } = options;
  const deadlines = deadlinesOf(options);
  // Compiled once: the same serializer fastify would use for a Job response.
  const stringifyJob = fastJson(JobJson, serializerOptions);

  const stringifyPartial = partialJobStringify();

  app.get("/v1/jobs", { schema: JOB_SEARCH_SCHEMA, config: needs("jobs:read") }, async function jobSearch(request, reply) {
    const { request: search, limit, states, fields, page } = searchOfUrl(request.url);
    const ndjson = prefersNdjson(request.headers.accept);
    if (ndjson && page !== undefined) {
      throw invalidArgument("pages are for the JSON answer", {
        errors: [{ parameter: "pageSize", message: "is not taken with Accept: application/x-ndjson, which streams the whole list" }],
      });
    }
    const keep: Keep | undefined = states && ((job) => states.has(job.state));
    const stringify: Stringify = fields === undefined ? stringifyJob : (job) => stringifyPartial(projectJob(job, fields));
    const callOptions = streamCallOptions(request, reply, deadlines);
    const started = await startSearchShared(options.searches, client, search, callOptions);
    // A stream or a page is sent as it is, not through the response schema: widen the typed reply.
    const untyped: FastifyReply = reply;
    if (page !== undefined) {
      const { jobs, more } = await readPage(started, { size: page.size, afterJobId: page.afterJobId, keep });
      const last = jobs.at(-1)?.jobId?.jobId;
      const nextPageToken = more && last !== undefined ? encodePageToken({ afterJobId: last, filterDigest: page.filterDigest }) : undefined;
      if (nextPageToken !== undefined) void untyped.header("link", `<${nextPageUrl(request.url, nextPageToken)}>; rel="next"`);
      const list = jobs.map((job) => stringify(jobToJson(job))).join(",");
      const token = nextPageToken === undefined ? "" : `,"nextPageToken":${JSON.stringify(nextPageToken)}`;
      return untyped.type(JSON_UTF8).send(`{"jobs":[${list}]${token}}`);
    }
    const body = new SearchBody({
      format: ndjson ? "ndjson" : "json",
      search: started,
      limit,
      keep,
      stringify,
      stallTimeoutMs: callOptions.idleTimeoutMs,
      response: reply.raw,
      problemOf: (error) => toProblem(error, request),
      onFailure: (error) => {
        logStreamFailure(request.log, error, "job search cut short");
      },
    });
    return untyped.type(ndjson ? NDJSON : "application/json; charset=utf-8").send(body);
  });

  done();
};

/** The URL of the next page: this request's path and query, with the next pageToken. */
function nextPageUrl(url: string, pageToken: string): string {
  const at = url.indexOf("?");
  const query = new URLSearchParams(at === -1 ? "" : url.slice(at + 1));
  query.set("pageToken", pageToken);
  return `${at === -1 ? url : url.slice(0, at)}?${query.toString()}`;
}

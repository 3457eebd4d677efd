// GET /v1/jobs: JobSearch, streamed as the Manager sends it and as fast as the client takes it
// (src/operations/job-search.ts, search-body.ts).
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import fastJson from "fast-json-stringify";
import { deadlinesOf, streamCallOptions } from "../operations/call-options.js";
import { NDJSON } from "../http/media-type.js";
import { toProblem } from "../http/problem.js";
import { errorResponses } from "../http/responses.js";
import { serializerOptions } from "../http/validation.js";
import type { ManagerRouteOptions } from "../operations/job-access.js";
import { prefersNdjson, searchOfUrl, startSearchShared } from "../operations/job-search.js";
import { SearchBody } from "../operations/search-body.js";
import { JobJson, JobListJson } from "../../schemas/job.js";
import { JobListNdjson, JobSearchQuery } from "../../schemas/search.js";
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
    "that no partial list passes for a whole one.",

  querystring: JobSearchQuery,
  response: {
    200: {
      description: "OK: the jobs found, as one JSON document or, when asked, as newline-delimited JSON.",
      content: { "application/json": { schema: JobListJson }, [NDJSON]: { schema: JobListNdjson } },
    },
    ...errorResponses({ INVALID_ARGUMENT: "a filter is malformed, or the Manager refused it (a bad regular expression)" }),
  },
};

export const jobSearchRoutes: FastifyPluginCallbackTypebox<ManagerRouteOptions> = (app, options, done) => {
  const { client } = options;
  const deadlines = deadlinesOf(options);
  // Compiled once: the same serializer fastify would use for a Job response.
  const stringifyJob = fastJson(JobJson, serializerOptions);

  app.get("/v1/jobs", { schema: JOB_SEARCH_SCHEMA, config: needs("jobs:read") }, async function jobSearch(request, reply) {
    const { request: search, limit } = searchOfUrl(request.url);
    const callOptions = streamCallOptions(request, reply, deadlines);
    const started = await startSearchShared(options.searches, client, search, callOptions);
    const ndjson = prefersNdjson(request.headers.accept);
    const body = new SearchBody({
      format: ndjson ? "ndjson" : "json",
      search: started,
      limit,
      stringify: stringifyJob,
      stallTimeoutMs: callOptions.idleTimeoutMs,
      response: reply.raw,
      problemOf: (error) => toProblem(error, request),
      onFailure: (error) => {
        request.log.warn({ err: error }, "job search cut short");
      },
    });
    // A stream is sent as it is, not through the response schema: widen the typed reply.
    const untyped: FastifyReply = reply;
    return untyped.type(ndjson ? NDJSON : "application/json; charset=utf-8").send(body);
  });

  done();
};

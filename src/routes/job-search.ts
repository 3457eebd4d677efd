// GET /v1/jobs: JobSearch, streamed as the Manager sends it (src/operations/job-search.ts).
import { Readable } from "node:stream";
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import fastJson from "fast-json-stringify";
import { callOptionsFor } from "../http/call-options.js";
import { NDJSON } from "../http/media-type.js";
import { errorResponses } from "../http/responses.js";
import { serializerOptions } from "../http/validation.js";
import type { ManagerRouteOptions } from "../operations/job-access.js";
import { jsonBody, ndjsonBody, prefersNdjson, searchOfUrl, startSearch } from "../operations/job-search.js";
import { JobJson, JobListJson } from "../../schemas/job.js";
import { JobListNdjson, JobSearchQuery } from "../../schemas/search.js";

const JOB_SEARCH_SCHEMA = {
  operationId: "jobSearch",
  tags: ["jobs"],
  summary: "Search jobs",
  description:
    "JobSearch. Filters are repeatable and combined with AND; results come in job id order, streamed as the Manager sends them, " +
    "and `limit` stops early. `Accept: application/x-ndjson` gives one job per line instead of `{\"jobs\": [...]}`.",
  querystring: JobSearchQuery,
  response: {
    200: {
      description: "OK: the jobs found, as one JSON document or, when asked, as newline-delimited JSON.",
      content: { "application/json": { schema: JobListJson }, [NDJSON]: { schema: JobListNdjson } },
    },
    ...errorResponses({ INVALID_ARGUMENT: "a filter is malformed, or the Manager refused it (a bad regular expression)" }),
  },
};

export const jobSearchRoutes: FastifyPluginCallbackTypebox<ManagerRouteOptions> = (app, { client, requestTimeoutMs }, done) => {
  // Compiled once: the same serializer fastify would use for a Job response.
  const stringifyJob = fastJson(JobJson, serializerOptions);

  app.get("/v1/jobs", { schema: JOB_SEARCH_SCHEMA }, async function jobSearch(request, reply) {
    const { request: search, limit } = searchOfUrl(request.url);
    const options = callOptionsFor(request, reply, requestTimeoutMs);
    const started = await startSearch(client, search, options);
    const ndjson = prefersNdjson(request.headers.accept);
    const lines = ndjson ? ndjsonBody(request, started, limit, stringifyJob) : jsonBody(started, limit, stringifyJob);
    // A stream is sent as it is, not through the response schema: widen the typed reply.
    const untyped: FastifyReply = reply;
    return untyped.type(ndjson ? NDJSON : "application/json; charset=utf-8").send(Readable.from(lines, { objectMode: false }));
  });

  done();
};

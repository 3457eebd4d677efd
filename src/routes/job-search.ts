// GET /v1/jobs: JobSearch, streamed. Each job is written as the gRPC stream delivers it, never
// collected, as {"jobs":[...]} or, when asked with Accept: application/x-ndjson, one job per
// line. The status is decided when the first job (or the end) arrives, so the Manager's
// refusals (a bad regex) are still a proper 4xx. After that, a failure cannot change the
// status: an NDJSON stream ends with one {"error": Problem} line; a JSON body is cut off, so
// that no client mistakes a partial list for a whole one.
import { Readable } from "node:stream";
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import fastJson from "fast-json-stringify";
import type { CurrentJob } from "../gen/norsk/api/manager_pb.js";
import { readWithRetry } from "../grpc/dropped.js";
import type { CallOptions } from "../grpc/types.js";
import { jobToJson } from "../json/index.js";
import { QueryError, searchRequestFromQuery } from "../operations/search-query.js";
import type { SearchQuery } from "../operations/search-query.js";
import { Job, JobList } from "../../schemas/job.js";
import { JobSearchQuery, NdjsonLine } from "../../schemas/search.js";
import { Code, GrpcError } from "../grpc/errors.js";
import { badRequest, toProblem } from "../http/problem.js";
import { serializerOptions } from "../http/validation.js";
import { callOptionsFor } from "../http/call-options.js";
import type { ManagerClient } from "../operations/job-access.js";
import { errorResponses } from "../http/responses.js";
import { JSON_TYPE, NDJSON, preference } from "../http/media-type.js";

export interface SearchRoutesOptions {
  readonly client: ManagerClient;
  /** Deadline of each gRPC call, in ms. */
  readonly requestTimeoutMs: number;
}

export const jobSearchRoutes: FastifyPluginCallbackTypebox<SearchRoutesOptions> = (app, { client, requestTimeoutMs }, done) => {
  // Compiled once: the same serializer fastify would use for a Job response.
  const stringifyJob = fastJson(Job, serializerOptions);

  app.get(
    "/v1/jobs",
    {
      schema: {
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
            content: { "application/json": { schema: JobList }, [NDJSON]: { schema: NdjsonLine } },
          },
          ...errorResponses([400, "a filter is malformed, or the Manager refused it (a bad regular expression)"]),
        },
      },
    },
    async (request, reply) => {
      const { request: search, limit } = parseQuery(request);
      const options = callOptionsFor(request, reply, requestTimeoutMs);
      const { jobs, first } = await startSearch(client, search, options).catch(namingTheParameter);
      const ndjson = prefersNdjson(request.headers.accept);
      const lines = ndjson ? ndjsonBody(request, first, jobs, limit, stringifyJob) : jsonBody(first, jobs, limit, stringifyJob);
      // A stream is sent as it is, not through the response schema: widen the typed reply.
      const untyped: FastifyReply = reply;
      return untyped.type(ndjson ? NDJSON : "application/json; charset=utf-8").send(Readable.from(lines, { objectMode: false }));
    },
  );

  done();
};

function parseQuery(request: FastifyRequest): ReturnType<typeof searchRequestFromQuery> {
  const at = request.url.indexOf("?");
  try {
    return searchRequestFromQuery(at === -1 ? "" : request.url.slice(at + 1));
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    throw badRequest("the query string is invalid", [...error.errors]);
  }
}

/**
 * The Manager's refusal of a regular expression, located: the reference Manager's messages
 * begin with the filter's field, "id_filter.re: " or "tag_filter.re: ", which come from idMatch
 * and tagMatch alone. Other errors, and other Managers' messages, pass unchanged.
 */
function namingTheParameter(error: unknown): never {
  if (error instanceof GrpcError && error.code === Code.INVALID_ARGUMENT) {
    for (const [prefix, parameter] of REGEX_FIELDS) {
      if (error.details.startsWith(prefix)) {
        throw badRequest(error.details, [{ parameter, message: error.details.slice(prefix.length) }]);
      }
    }
  }
  throw error;
}

const REGEX_FIELDS = [
  ["id_filter.re: ", "idMatch"],
  ["tag_filter.re: ", "tagMatch"],
] as const;

type Jobs = AsyncIterator<CurrentJob>;

/**
 * Starts the search and waits for its first job (or its end). Nothing has been sent to the
 * client until then, so a search whose connection went away by then is made once more.
 */
function startSearch(client: ManagerClient, search: SearchQuery["request"], options: CallOptions): Promise<{ jobs: Jobs; first: IteratorResult<CurrentJob> }> {
  return readWithRetry(async () => {
    const jobs = client.jobSearch(search, options)[Symbol.asyncIterator]();
    return { jobs, first: await jobs.next() };
  }, options.signal);
}
type Stringify = (job: ReturnType<typeof jobToJson>) => string;

/** The jobs in order, at most `limit`; stopping early cancels the gRPC stream. */
async function* take(first: IteratorResult<CurrentJob>, jobs: Jobs, limit: number | undefined): AsyncGenerator<CurrentJob> {
  let next = first;
  let count = 0;
  try {
    while (next.done !== true && (limit === undefined || count < limit)) {
      yield next.value;
      count++;
      if (limit !== undefined && count >= limit) break;
      next = await jobs.next();
    }
  } finally {
    await jobs.return?.();
  }
}

async function* jsonBody(first: IteratorResult<CurrentJob>, jobs: Jobs, limit: number | undefined, stringify: Stringify) {
  yield '{"jobs":[';
  let separator = "";
  for await (const current of take(first, jobs, limit)) {
    if (current.job === undefined) continue;
    yield separator + stringify(jobToJson(current.job));
    separator = ",";
  }
  yield "]}";
}

async function* ndjsonBody(
  request: FastifyRequest,
  first: IteratorResult<CurrentJob>,
  jobs: Jobs,
  limit: number | undefined,
  stringify: Stringify,
) {
  try {
    for await (const current of take(first, jobs, limit)) {
      if (current.job !== undefined) yield `${stringify(jobToJson(current.job))}\n`;
    }
  } catch (error) {
    request.log.warn({ err: error }, "job search failed mid-stream");
    yield `${JSON.stringify({ error: toProblem(error, request) })}\n`;
  }
}

/** NDJSON when the client lists it with a higher (or equal) preference than JSON. */
export function prefersNdjson(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const ndjson = preference(accept, (range) => range === NDJSON);
  const json = preference(accept, (range) => range === JSON_TYPE || range === "application/*" || range === "*/*");
  return ndjson.q > 0 && ndjson.q >= json.q;
}

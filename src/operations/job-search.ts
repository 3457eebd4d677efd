// GET /v1/jobs behind its route: the search started, and its answer written as the jobs
// arrive, never collected, as {"jobs":[...]} or, when asked with Accept: application/x-ndjson,
// one job per line. The status is decided when the first job (or the end) arrives, so the
// Manager's refusals (a bad regex) are still a proper 4xx. After that, a failure cannot change
// the status: an NDJSON stream ends with one {"error": Problem} line; a JSON body is cut off,
// so that no client mistakes a partial list for a whole one.
import type { FastifyRequest } from "fastify";
import type { CurrentJob } from "../gen/norsk/api/manager_pb.js";
import { readWithRetry } from "../grpc/dropped.js";
import { Code, GrpcError } from "../grpc/errors.js";
import type { CallOptions } from "../grpc/types.js";
import { JSON_TYPE, NDJSON, preference } from "../http/media-type.js";
import { invalidArgument, toProblem } from "../http/problem.js";
import { jobToJson } from "../json/index.js";
import type { JobJson } from "../json/index.js";
import type { ManagerClient } from "./job-access.js";
import { QueryError, searchRequestFromQuery } from "./search-query.js";
import type { SearchQuery } from "./search-query.js";

/** A search that has delivered its first job, or its end. */
export interface StartedSearch {
  readonly first: IteratorResult<CurrentJob>;
  readonly jobs: AsyncIterator<CurrentJob>;
}

/** A Job's JSON text, as the route's response schema would write it. */
export type Stringify = (job: JobJson) => string;

/** The search a request URL asks for; a 400 naming each malformed parameter. */
export function searchOfUrl(url: string): SearchQuery {
  const at = url.indexOf("?");
  try {
    return searchRequestFromQuery(at === -1 ? "" : url.slice(at + 1));
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    throw invalidArgument("the query string is invalid", { errors: [...error.errors] });
  }
}

/**
 * Starts the search and waits for its first job (or its end). Nothing has been sent to the
 * client until then, so a search whose connection went away by then is made once more.
 */
export function startSearch(client: ManagerClient, search: SearchQuery["request"], options: CallOptions): Promise<StartedSearch> {
  return readWithRetry(async () => {
    const jobs = client.jobSearch(search, options)[Symbol.asyncIterator]();
    return { jobs, first: await jobs.next() };
  }, options.signal).catch(namingTheParameter);
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
        throw invalidArgument(error.details, { errors: [{ parameter, message: error.details.slice(prefix.length) }] });
      }
    }
  }
  throw error;
}

const REGEX_FIELDS = [
  ["id_filter.re: ", "idMatch"],
  ["tag_filter.re: ", "tagMatch"],
] as const;

/** The jobs in order, at most `limit`; stopping early cancels the gRPC stream. */
async function* take({ first, jobs }: StartedSearch, limit: number | undefined): AsyncGenerator<CurrentJob> {
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

/** {"jobs":[...]}, a job at a time; a failure throws, cutting the body short. */
export async function* jsonBody(search: StartedSearch, limit: number | undefined, stringify: Stringify): AsyncGenerator<string> {
  yield '{"jobs":[';
  let separator = "";
  for await (const current of take(search, limit)) {
    if (current.job === undefined) continue;
    yield separator + stringify(jobToJson(current.job));
    separator = ",";
  }
  yield "]}";
}

/** A job per line; a failure is logged and ends the body with an {"error": Problem} line. */
export async function* ndjsonBody(request: FastifyRequest, search: StartedSearch, limit: number | undefined, stringify: Stringify): AsyncGenerator<string> {
  try {
    for await (const current of take(search, limit)) {
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

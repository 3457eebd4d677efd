// GET /v1/jobs behind its route: the search started, and its first job (or its end) awaited,
// so that the status is decided by it: the Manager's refusals (a bad regex) are still a proper
// 4xx, and a Manager that sends nothing within the request timeout a 504. The rest of the
// answer is a SearchBody (search-body.ts), written as the client takes it.
import type { CurrentJob } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { readWithRetry } from "norsk-manager-contract/grpc/dropped.js";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { JSON_TYPE, NDJSON, preference } from "../http/media-type.js";
import { invalidArgument } from "../http/problem.js";
import type { ManagerClient } from "./job-access.js";
import type { StartedSearch } from "./search-body.js";
import { Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { sharedCallKey } from "./shared-calls/key.js";
import type { SharedCalls } from "./shared-calls/calls.js";
import { SharedSearch } from "./shared-calls/search.js";
import { QueryError, searchRequestFromQuery } from "./search-query.js";
import { filterOfMessage } from "../../schemas/search.js";
import type { SearchQuery } from "./search-query.js";

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
    const jobs: AsyncIterator<CurrentJob> = client.jobSearch(search, options)[Symbol.asyncIterator]();
    return { jobs, first: await jobs.next() };
  }, options.signal).catch(namingTheParameter);
}

/** One stream per search shared by several readers, made when the first of them is given its reader. */
const sharedSearches = new WeakMap<StartedSearch, SharedSearch>();

/**
 * startSearch, shared with the identical searches in flight through `searches` when given:
 * each of them then reads the one stream at its own pace (shared-calls/search.ts).
 */
export function startSearchShared(
  searches: SharedCalls<StartedSearch> | undefined,
  client: ManagerClient,
  search: SearchQuery["request"],
  options: CallOptions,
): Promise<StartedSearch> {
  if (searches === undefined) return startSearch(client, search, options);
  const key = sharedCallKey(Manager.method.jobSearch, search, options.metadata);
  return searches.read(key, options, (shared) => startSearch(client, search, shared), (started, own) => {
    let stream = sharedSearches.get(started);
    if (stream === undefined) {
      stream = new SharedSearch(started);
      sharedSearches.set(started, stream);
    }
    return stream.reader(own.signal);
  });
}

/**
 * The Manager's refusal of a filter, in the client's words: a message that begins with a
 * filter's JobFilter path ("id_filter.re: ", as the reference Manager's do) names the query
 * parameter that made it instead (SEARCH_FILTERS, schemas/search.ts). Other errors, and other
 * messages, pass unchanged.
 */
function namingTheParameter(error: unknown): never {
  if (error instanceof GrpcError && error.code === Code.INVALID_ARGUMENT) {
    const about = filterOfMessage(error.details);
    if (about !== undefined) {
      throw invalidArgument(`${about.parameter}: ${about.rest}`, { errors: [{ parameter: about.parameter, message: about.rest }] });
    }
  }
  throw error;
}

/** NDJSON when the client lists it with a higher (or equal) preference than JSON. */
export function prefersNdjson(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  const ndjson = preference(accept, (range) => range === NDJSON);
  const json = preference(accept, (range) => range === JSON_TYPE || range === "application/*" || range === "*/*");
  return ndjson.q > 0 && ndjson.q >= json.q;
}

// The public surface of norsk-manager-client: everything a caller imports is exported here,
// and nothing else is public.
export type { components, operations, paths } from "./gen/openapi.js";
export { OPERATIONS } from "./gen/operations.js";
export type { OperationId } from "./gen/operations.js";
export {
  ConflictError,
  ConnectionError,
  NotFoundError,
  PreconditionFailedError,
  ProblemError,
  RateLimitedError,
  TimeoutError,
  UnavailableError,
} from "./core/problem.js";
export type { Problem, ProblemCode, ProblemItem } from "./core/problem.js";
export type { ClientOptions, Credentials, RequestOptions } from "./core/options.js";

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
export { createClient, METHOD_OF_OPERATION } from "./client.js";
export type { Client } from "./client.js";
export { Pages } from "./core/pages.js";
export type { Page } from "./core/pages.js";
export type { EventMeta, StreamOptions } from "./core/event-stream.js";
export type { EventName, EventsQuery, ManagerEvent, StatusEvent } from "./resources/events.js";
export type { GetOptions, JobFilters, ListQuery, StreamQuery } from "./resources/job-queries.js";
export { etagOf } from "./resources/conditions.js";
export type { JobChange, UpdateOptions } from "./resources/job-update.js";
export type { JobWatch, JobWatchChange, WatchQuery } from "./resources/job-watch.js";
export type { WriteOptions } from "./resources/conditions.js";
export { DEFAULTS } from "./core/options.js";
export type * from "./types.js";
export { bigIntToInt64, bigIntToUint64, fromDate, int64ToBigInt, timestampParts, timestampText, toDate, uint64ToBigInt } from "./values.js";
export { fromSdk, toSdk } from "./sdk-values.js";
export type { ExactSchema, Sdk, SdkShaped } from "./sdk-values.js";
export { EXACT_VALUES } from "./gen/exact-values.js";
export type { TimestampParts } from "./values.js";

// The errors a call throws: a ProblemError for every RFC 9457 problem the gateway answers (or
// sends as an SSE `error` event), one subclass per status callers branch on, made in one place
// (problemError); a ConnectionError when no answer came, a TimeoutError when none came in time.
import type { components } from "../gen/openapi.js";
import { isRetryable } from "./retryable.js";

export type Problem = components["schemas"]["Problem"];
export type ProblemItem = components["schemas"]["ProblemItem"];
/** A problem's `code`: a gRPC status name, generated from the document. */
export type ProblemCode = components["schemas"]["ProblemCode"];

/** A problem answered by the gateway, or sent as the `error` event that ends a stream. */
export class ProblemError extends Error {
  override name = "ProblemError";
  /** The HTTP status. */
  readonly status: number;
  /** The gRPC status name, when the failure has one: `if (e.code === "NOT_FOUND")` narrows. */
  readonly code: ProblemCode | undefined;
  readonly detail: string;
  /** Each thing wrong with the request: the parameter, header or JSON Pointer, and what. Empty when none is listed. */
  readonly errors: readonly ProblemItem[];
  /** The request's X-Request-Id, by which the gateway's log finds it. */
  readonly requestId: string | undefined;
  /** The problem as answered. */
  readonly problem: Problem;
  /** The answer it came in; undefined for a stream's `error` event (the stream's answer was a 200). */
  readonly response: Response | undefined;

  constructor(problem: Problem, response?: Response) {
    super(messageOf(problem));
    this.status = problem.status;
    this.code = problem.code;
    this.detail = problem.detail;
    this.errors = problem.errors ?? [];
    this.requestId = problem.requestId;
    this.problem = problem;
    this.response = response;
  }

  /** Whether the same request may succeed when sent again (src/core/retryable.ts). */
  get retryable(): boolean {
    return isRetryable(this.code, this.status);
  }
}

/** The status, code and detail, and the first few things wrong with where each is. */
function messageOf(problem: Problem): string {
  const items = (problem.errors ?? []).slice(0, 3).map((item) => `${item.pointer ?? item.parameter ?? item.header ?? ""} ${item.message}`.trim());
  const located = items.length === 0 ? "" : ` (${items.join("; ")})`;
  return `${String(problem.status)} ${problem.code ?? problem.title}: ${problem.detail}${located}`;
}

/** 404: the job, node or instance does not exist (or no route matches). */
export class NotFoundError extends ProblemError {
  override name = "NotFoundError";
}

/** 409: a different resource holds the id, a concurrent change won, or a JSON Patch does not apply. */
export class ConflictError extends ProblemError {
  override name = "ConflictError";
}

/** 412: If-Match (or a body's currentHash) is not the resource's ETag; nothing was written. */
export class PreconditionFailedError extends ProblemError {
  override name = "PreconditionFailedError";
}

/** 429: too many requests (the rate limit, or the gateway's write queue). */
export class RateLimitedError extends ProblemError {
  override name = "RateLimitedError";
}

/** 503: the Manager or the gateway cannot serve now; try again after `Retry-After`. */
export class UnavailableError extends ProblemError {
  override name = "UnavailableError";
}

const CLASS_OF_STATUS: ReadonlyMap<number, new (problem: Problem, response?: Response) => ProblemError> = new Map([
  [404, NotFoundError],
  [409, ConflictError],
  [412, PreconditionFailedError],
  [429, RateLimitedError],
  [503, UnavailableError],
]);

/** The error of `problem`: the subclass of its status, or ProblemError itself. */
export function problemError(problem: Problem, response?: Response): ProblemError {
  const Class = CLASS_OF_STATUS.get(problem.status) ?? ProblemError;
  return new Class(problem, response);
}

/** No answer came: the connection failed or was refused, or the answer broke off. */
export class ConnectionError extends Error {
  override name = "ConnectionError";
  readonly retryable = true;
}

/** No answer came within the call's timeout (timeoutMs). */
export class TimeoutError extends Error {
  override name = "TimeoutError";
  readonly retryable = false;

  constructor(timeoutMs: number) {
    super(`no answer within ${String(timeoutMs)} ms`);
  }
}

// Whether a failure may succeed when the same request is sent again: one table, by the
// problem's code, read alike for a problem answer and for an SSE `error` event. Whether a
// request may be sent again at all (it must not make a second change) is the request's
// concern: src/core/transport.ts.
import type { components } from "../gen/openapi.js";

type ProblemCode = components["schemas"]["ProblemCode"];

/**
 * True for the codes of a failure that passes by itself: the Manager or the gateway unavailable
 * (a restart, load shedding, a shutdown) and a quota or rate exhausted. Every other failure
 * answers the request as it was sent, and sending it again gets the same answer.
 */
const RETRYABLE: Readonly<Record<ProblemCode, boolean>> = {
  OK: false,
  CANCELLED: false,
  UNKNOWN: false,
  INVALID_ARGUMENT: false,
  DEADLINE_EXCEEDED: false,
  NOT_FOUND: false,
  ALREADY_EXISTS: false,
  PERMISSION_DENIED: false,
  UNAUTHENTICATED: false,
  RESOURCE_EXHAUSTED: true,
  FAILED_PRECONDITION: false,
  ABORTED: false,
  OUT_OF_RANGE: false,
  UNIMPLEMENTED: false,
  INTERNAL: false,
  UNAVAILABLE: true,
  DATA_LOSS: false,
};

/** The statuses of the codes above, for a problem that carries no code (a proxy's 503). */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** Whether a failure of `code` (or, without one, of `status`) may pass when retried. */
export function isRetryable(code: ProblemCode | undefined, status: number): boolean {
  return code === undefined ? RETRYABLE_STATUSES.has(status) : RETRYABLE[code];
}

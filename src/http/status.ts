// The one table from gRPC status codes to HTTP statuses (grpc-gateway's mapping, docs/ARCHITECTURE.md §5).
import { status as Code } from "@grpc/grpc-js";

export const HTTP_STATUS_OF_CODE: Readonly<Record<Code, number>> = {
  [Code.OK]: 200,
  // 499 "Client Closed Request" (nginx's): the caller went away; no one reads the answer.
  [Code.CANCELLED]: 499,
  [Code.UNKNOWN]: 500,
  [Code.INVALID_ARGUMENT]: 400,
  [Code.DEADLINE_EXCEEDED]: 504,
  [Code.NOT_FOUND]: 404,
  [Code.ALREADY_EXISTS]: 409,
  [Code.PERMISSION_DENIED]: 403,
  [Code.UNAUTHENTICATED]: 401,
  [Code.RESOURCE_EXHAUSTED]: 429,
  // 400 and not 412: FAILED_PRECONDITION is about the system's state (start a completed job),
  // which the client must change first; HTTP's 412 means "a precondition header failed", and
  // is kept for If-Match (see ABORTED below).
  [Code.FAILED_PRECONDITION]: 400,
  // 409 by default: a concurrent change won a test-and-set. When the client asked for the
  // precondition itself (If-Match or currentHash), the jobs routes answer 412 instead.
  [Code.ABORTED]: 409,
  [Code.OUT_OF_RANGE]: 400,
  [Code.UNIMPLEMENTED]: 501,
  [Code.INTERNAL]: 500,
  [Code.UNAVAILABLE]: 503,
  [Code.DATA_LOSS]: 500,
};

function isKnown(code: number): code is Code {
  return Object.hasOwn(HTTP_STATUS_OF_CODE, code);
}

/**
 * The HTTP status of a gRPC status code. A code outside 0-16 (a Manager speaking a newer or
 * broken protocol: 17, 99) is treated as UNKNOWN, as grpc-java's Status.fromCodeValue does,
 * and so is a 500, as grpc-gateway answers any code it does not know; never an invalid HTTP
 * status for fastify to refuse.
 */
export function httpStatusOf(code: Code): number {
  return isKnown(code) ? HTTP_STATUS_OF_CODE[code] : HTTP_STATUS_OF_CODE[Code.UNKNOWN];
}

/** The status name as gRPC spells it, e.g. "NOT_FOUND"; used as the Problem's `code`. UNKNOWN for a code outside 0-16. */
export function codeName(code: Code): string {
  return Code[isKnown(code) ? code : Code.UNKNOWN];
}

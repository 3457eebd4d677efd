// The one table of the ways a request fails (docs/architecture.md, "HTTP surface"): each gRPC
// status code, and each reason HTTP itself gives for a refusal that has no gRPC code, with the HTTP
// status it
// is answered with. Everything else is derived from it: the status of a problem, its `code`,
// the detail a 5xx says instead of the Manager's message, the OpenAPI descriptions of the error
// responses (routes name failures, never statuses: src/http/responses.ts) and the problem
// examples of the document (src/openapi/finish.ts). Changing a mapping is one line here.
import { status as Code } from "@grpc/grpc-js";
import type { ProblemItemJson } from "../../schemas/common.js";

/** A gRPC status name as gRPC spells it ("NOT_FOUND"): the problem's `code`. */
export type CodeName = keyof typeof Code;

interface FailureRow {
  /** The HTTP status answered. */
  readonly status: number;
  /** Reasons only: the problem's `code`, if any. A gRPC code's `code` is its own name. */
  readonly code?: CodeName;
  /** After the code's name where the descriptions list the codes of a status. */
  readonly gloss?: string;
  /**
   * The OpenAPI description of the row's status, given the codes answered with it (each with
   * its gloss), for the one row of each documented status that speaks for it.
   */
  readonly describes?: (codes: readonly string[]) => string;
  /** 5xx only: the detail every problem of the status says (a 5xx never carries internals). */
  readonly generic?: string;
  /** The problem example of the status in the document; a 5xx's detail is its generic one. */
  readonly example?: { readonly detail?: string; readonly errors?: readonly ProblemItemJson[] };
}

const INTERNAL_DETAIL = "internal error; the request id identifies it in the gateway's log";

/**
 * The gRPC codes map as grpc-gateway's HTTPStatusFromCode does, except where a comment says why
 * not; the reasons are the statuses HTTP decides on its own. Table order matters where several
 * rows share a status: the first is the one a problem of that status is taken for.
 */
export const FAILURES = {
  // Not a failure: a Manager that rejects with OK is answered as a 500 (toProblem).
  OK: { status: 200 },
  // 499 "Client Closed Request" (nginx's): the caller went away; no one reads the answer.
  CANCELLED: { status: 499 },
  UNKNOWN: { status: 500 },
  INVALID_ARGUMENT: {
    status: 400,
    describes: (codes) => `the request is invalid (each problem located in \`errors\`), or the Manager refused it (${codes.join(", ")})`,
    example: {
      detail: "Grpc-Timeout must be 1 to 8 digits and a unit (H, M, S, m, u, n), e.g. 500m",
      errors: [{ header: "grpc-timeout", message: "is not a valid gRPC timeout" }],
    },
  },
  DEADLINE_EXCEEDED: {
    status: 504,
    describes: () => "the Manager did not answer in time: within the request timeout (of a list, its first result), or before the Grpc-Timeout",
    generic: "the Manager did not answer before the deadline",
    example: {},
  },
  NOT_FOUND: { status: 404, describes: () => "the resource does not exist", example: { detail: 'job "encoder-1" does not exist' } },
  ALREADY_EXISTS: {
    status: 409,
    describes: (codes) => `the Manager refused the change: ${codes.join(", or ")}`,
    example: { detail: "a different job with this jobId already exists" },
  },
  PERMISSION_DENIED: { status: 403 },
  UNAUTHENTICATED: { status: 401 },
  // No example: the document's 429s (the write queue's) show the bare reason phrase.
  RESOURCE_EXHAUSTED: { status: 429 },
  // 400 and not 412: FAILED_PRECONDITION is about the system's state (start a completed job),
  // which the client must change first; HTTP's 412 means "a precondition header failed", and
  // is kept for If-Match (PRECONDITION_FAILED below).
  FAILED_PRECONDITION: { status: 400 },
  // 409 by default: a concurrent change won a test-and-set. When the client asked for the
  // precondition itself (If-Match or currentHash), the answer is PRECONDITION_FAILED instead.
  ABORTED: { status: 409, gloss: "a concurrent change won" },
  OUT_OF_RANGE: { status: 400 },
  UNIMPLEMENTED: { status: 501, generic: "the Manager does not implement this operation" },
  INTERNAL: { status: 500 },
  UNAVAILABLE: {
    status: 503,
    describes: (codes) => `the Manager cannot be reached (${codes.join(", ")}), or the gateway is overloaded and refuses new requests (Retry-After says when to try again); try again later`,
    generic: "the Manager is unavailable; try again later",
    example: {},
  },
  DATA_LOSS: { status: 500 },

  // HTTP's own reasons, which no gRPC code names.
  /** A request HTTP cannot take (bad framing, a URL that is not UTF-8); labelled as the gateway's own 400s are. */
  BAD_REQUEST: { status: 400, code: "INVALID_ARGUMENT" },
  /** The client's own precondition (If-Match, a body's currentHash) failed: RFC 9110's 412, a failed test-and-set as ABORTED is. */
  PRECONDITION_FAILED: {
    status: 412,
    code: "ABORTED",
    describes: () => 'If-Match (or a non-zero currentHash in the body) does not match the job\'s current ETag, or is "0", a version the Manager cannot test; nothing was written',
    example: { detail: "the job's ETag differs from If-Match" },
  },
  /** Not a gRPC NOT_FOUND: no route has this method and path, so there is no code to report. */
  ROUTE_NOT_FOUND: { status: 404 },
  FORBIDDEN: { status: 403 },
  /** A path served with other methods only (the metrics listener's /metrics). */
  METHOD_NOT_ALLOWED: { status: 405 },
  REQUEST_TIMEOUT: { status: 408 },
  CONTENT_TOO_LARGE: {
    status: 413,
    describes: () => "the request body is larger than the gateway accepts (1 MiB by default)",
    example: { detail: "Request body is too large" },
  },
  URI_TOO_LONG: { status: 414 },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    describes: () => "the request's Content-Type is not one this operation accepts",
    example: { detail: "Content-Type must be application/json" },
  },
  EXPECTATION_FAILED: { status: 417 },
  MISDIRECTED_REQUEST: { status: 421 },
  /**
   * A client sent more than --rate-limit allows in its window (src/server/rate-limit.ts). Its
   * code is the one gRPC gives a quota exceeded, as the write queue's 429 has.
   */
  TOO_MANY_REQUESTS: { status: 429, code: "RESOURCE_EXHAUSTED" },
  REQUEST_HEADER_FIELDS_TOO_LARGE: { status: 431 },
  /** The gateway itself failed (anything thrown that is not a failure of this table). */
  INTERNAL_SERVER_ERROR: {
    status: 500,
    describes: () => "the gateway or the Manager failed; the detail says nothing about internals, the request id finds it in the log",
    generic: INTERNAL_DETAIL,
    example: {},
  },
  /**
   * The Manager answered, but with something the gateway cannot use: a message larger than
   * --max-message-size, one that does not parse (packages/contract/src/grpc/errors.ts, UnusableAnswerError), or
   * data the JSON mirror cannot represent (src/json/errors.ts, UnrepresentableError). Neither
   * the client's fault nor cured by retrying: never a 4xx or a 429. INTERNAL, as gRPC calls a
   * message it cannot parse.
   */
  BAD_GATEWAY: {
    status: 502,
    code: "INTERNAL",
    describes: () => "the Manager sent an answer the gateway cannot use (larger than --max-message-size, undecodable, or holding data JSON cannot carry); the request id finds the cause in the log",
    generic: "the Manager sent an answer the gateway cannot use",
    example: {},
  },
  /**
   * The gateway refuses new requests while its event loop lags or its memory is past a
   * threshold (src/server/load-shedding.ts). UNAVAILABLE, as a gRPC server sheds load; after
   * the Manager's row, so that a 503 from elsewhere is taken for the Manager's.
   */
  OVERLOADED: { status: 503, code: "UNAVAILABLE", generic: "the gateway is overloaded; try again after the Retry-After delay" },
} as const satisfies Readonly<Record<CodeName, FailureRow>> & Readonly<Record<string, FailureRow>>;

/** A way a request fails: a gRPC status name, or one of HTTP's own reasons. */
export type Failure = keyof typeof FAILURES;

/** The HTTP status of a failure, as a literal type where the failure is known. */
export type StatusOf<F extends Failure> = (typeof FAILURES)[F]["status"];

const ROWS: readonly (readonly [Failure, FailureRow])[] = Object.entries(FAILURES) as [Failure, FailureRow][];

export function isCodeName(name: string): name is CodeName {
  return typeof (Code as Record<string, unknown>)[name] === "number";
}

export function statusOf<F extends Failure>(failure: F): StatusOf<F> {
  return FAILURES[failure].status;
}

/** The problem's `code` for a failure: a gRPC code's own name, a reason's code if it has one. */
export function problemCodeOf(failure: Failure): CodeName | undefined {
  const row: FailureRow = FAILURES[failure];
  return isCodeName(failure) ? failure : row.code;
}

/** The HTTP status of each gRPC code (grpc-gateway's HTTPStatusFromCode, with this table's choices). */
export const HTTP_STATUS_OF_CODE: Readonly<Record<Code, number>> = Object.fromEntries(
  ROWS.filter(([name]) => isCodeName(name)).map(([name, row]) => [Code[name as CodeName], row.status]),
) as Record<Code, number>;

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
export function codeName(code: Code): CodeName {
  return Code[isKnown(code) ? code : Code.UNKNOWN] as CodeName;
}

/**
 * The failure of a status that HTTP decided (fastify, node's parser): the reason answered with
 * it, if the table has one.
 */
export function failureOfHttpStatus(status: number): Failure | undefined {
  return ROWS.find(([name, row]) => !isCodeName(name) && row.status === status)?.[0];
}

/**
 * The failure a problem with this status and code was made from, if the table has it; of two
 * with the same status and code (a 503 UNAVAILABLE: the Manager's, or the gateway's overload),
 * the one whose generic detail the problem says.
 */
export function failureAnswered(status: number, code: string | undefined, detail?: string): Failure | undefined {
  const candidates = ROWS.filter(([name, row]) => row.status === status && problemCodeOf(name) === code);
  const saying = candidates.find(([, row]) => row.generic !== undefined && row.generic === detail);
  return (saying ?? candidates[0])?.[0];
}

/**
 * What a 5xx problem of `status` says, whatever the Manager's message was: the generic detail
 * of `failure` when it is known and has one (the gateway's own overload), else the status's.
 */
export function genericDetail(status: number, failure?: Failure): string {
  const own: FailureRow | undefined = failure === undefined ? undefined : FAILURES[failure];
  if (own?.status === status && own.generic !== undefined) return own.generic;
  return ROWS.find(([, row]) => row.status === status && row.generic !== undefined)?.[1].generic ?? INTERNAL_DETAIL;
}

/** The gRPC codes answered with `status`, each with its gloss, in table order. */
function codesOfStatus(status: number): string[] {
  return ROWS.filter(([name, row]) => isCodeName(name) && row.status === status).map(([name, row]) =>
    row.gloss === undefined ? name : `${name} (${row.gloss})`,
  );
}

/** The table's OpenAPI description of an error status (without the reason phrase), if it has one. */
export function statusDescription(status: number): string | undefined {
  const speaker = ROWS.find(([, row]) => row.status === status && row.describes !== undefined)?.[1];
  return speaker?.describes?.(codesOfStatus(status));
}

/** A typical problem of `status`, as the document shows it. */
export interface ProblemSample {
  readonly status: number;
  readonly code?: CodeName;
  readonly detail: string;
  readonly errors?: readonly ProblemItemJson[];
}

/** The table's example problem of `status`, if it has one. */
export function problemSample(status: number): ProblemSample | undefined {
  const found = ROWS.find(([, row]) => row.status === status && row.example !== undefined);
  if (found === undefined) return undefined;
  const [failure, row] = found;
  return sample(failure, row.example?.detail ?? genericDetail(status), row.example?.errors);
}

/** The example of the `default` response (any error a route does not list): a Manager's 429. */
export const OTHER_FAILURE_SAMPLE: ProblemSample = sample("RESOURCE_EXHAUSTED", "too many requests");

function sample(failure: Failure, detail: string, errors?: readonly ProblemItemJson[]): ProblemSample {
  const code = problemCodeOf(failure);
  return { status: statusOf(failure), ...(code === undefined ? {} : { code }), detail, ...(errors === undefined ? {} : { errors }) };
}

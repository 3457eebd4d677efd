// How a request fails, in two parts (docs/architecture.md, "Errors"):
// - the HTTP status of each gRPC status code (grpc-gateway's runtime.HTTPStatusFromCode, with
//   the exceptions commented), for whatever the Manager rejects a call with;
// - the catalogue of the gateway's own failures: the refusals HTTP decides without the Manager
//   (a URL too long, a body too large, a failed If-Match) and the gateway's own 5xx, each with
//   its status, the problem's `code` if it has one, and for a 5xx the only detail it ever says.
// A problem is made from a failure of either kind by name (src/http/problem.ts); its wording in
// the OpenAPI document is the document's (src/openapi/errors.ts).
import { status as Code } from "@grpc/grpc-js";

/** A gRPC status name as gRPC spells it ("NOT_FOUND"): the problem's `code`. */
export type CodeName = keyof typeof Code;

/**
 * The HTTP status of each gRPC code, as grpc-gateway's HTTPStatusFromCode maps it except where a
 * comment says why not.
 */
const STATUS_OF_CODE = {
  // Not a failure: a Manager that rejects with OK is answered as a 500 (toProblem).
  OK: 200,
  // 499 "Client Closed Request" (nginx's): the caller went away; no one reads the answer.
  CANCELLED: 499,
  UNKNOWN: 500,
  INVALID_ARGUMENT: 400,
  DEADLINE_EXCEEDED: 504,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  PERMISSION_DENIED: 403,
  UNAUTHENTICATED: 401,
  RESOURCE_EXHAUSTED: 429,
  // 400 and not 412: FAILED_PRECONDITION is about the system's state (start a completed job),
  // which the client must change first; HTTP's 412 means "a precondition header failed", and
  // is kept for If-Match (PRECONDITION_FAILED below).
  FAILED_PRECONDITION: 400,
  // 409 by default: a concurrent change won a test-and-set. When the client asked for the
  // precondition itself (If-Match or currentHash), the answer is PRECONDITION_FAILED instead.
  ABORTED: 409,
  OUT_OF_RANGE: 400,
  UNIMPLEMENTED: 501,
  INTERNAL: 500,
  UNAVAILABLE: 503,
  DATA_LOSS: 500,
} as const satisfies Readonly<Record<CodeName, number>>;

/** What a 5xx answered for an unexpected failure says: never the failure's own text. */
const INTERNAL_DETAIL = "internal error; the request id identifies it in the gateway's log";

/**
 * What a 5xx made from a gRPC code says instead of the Manager's message (which may hold
 * addresses, paths or stack text); a code not listed says INTERNAL_DETAIL.
 */
const DETAIL_OF_CODE: { readonly [C in CodeName]?: string } = {
  DEADLINE_EXCEEDED: "the Manager did not answer before the deadline",
  UNIMPLEMENTED: "the Manager does not implement this operation",
  UNAVAILABLE: "the Manager is unavailable; try again later",
};

interface OwnFailure {
  /** The HTTP status answered. */
  readonly status: number;
  /** The problem's `code`, if the failure has one: the gRPC code of the same meaning. */
  readonly code?: CodeName;
  /** 5xx only: the detail every problem of the failure says (a 5xx never carries internals). */
  readonly detail?: string;
}

/** The gateway's own failures, which no gRPC code names or which the gateway answers differently. */
export const OWN_FAILURES = {
  /** A request HTTP cannot take (bad framing, a URL that is not UTF-8); labelled as the gateway's own 400s are. */
  BAD_REQUEST: { status: 400, code: "INVALID_ARGUMENT" },
  /** The client's own precondition (If-Match, a body's currentHash) failed: RFC 9110's 412, a failed test-and-set as ABORTED is. */
  PRECONDITION_FAILED: { status: 412, code: "ABORTED" },
  /** Not a gRPC NOT_FOUND: no route has this method and path, so there is no code to report. */
  ROUTE_NOT_FOUND: { status: 404 },
  FORBIDDEN: { status: 403 },
  /** A path served with other methods only; Allow lists them (src/http/negotiation.ts). */
  METHOD_NOT_ALLOWED: { status: 405 },
  /** Accept admits none of the media types the operation answers with (src/http/negotiation.ts). */
  NOT_ACCEPTABLE: { status: 406 },
  REQUEST_TIMEOUT: { status: 408 },
  CONTENT_TOO_LARGE: { status: 413 },
  URI_TOO_LONG: { status: 414 },
  UNSUPPORTED_MEDIA_TYPE: { status: 415 },
  EXPECTATION_FAILED: { status: 417 },
  MISDIRECTED_REQUEST: { status: 421 },
  /**
   * A client sent more than --rate-limit allows in its window (src/server/rate-limit.ts). Its
   * code is the one gRPC gives a quota exceeded, as the write queue's 429 has.
   */
  TOO_MANY_REQUESTS: { status: 429, code: "RESOURCE_EXHAUSTED" },
  REQUEST_HEADER_FIELDS_TOO_LARGE: { status: 431 },
  /**
   * A JSON Patch that does not apply to the resource as it is (a failed `test`, a path that
   * names nothing): RFC 5789's 409, the state of the resource conflicting with the patch. Not
   * 412, which RFC 9110 keeps for precondition header fields (If-Match). FAILED_PRECONDITION, as
   * gRPC names an operation refused for the system's state.
   */
  PATCH_CONFLICT: { status: 409, code: "FAILED_PRECONDITION" },
  /** The gateway itself failed (anything thrown that is not a failure named here or a gRPC code). */
  INTERNAL_SERVER_ERROR: { status: 500, detail: INTERNAL_DETAIL },
  /**
   * The Manager answered, but with something the gateway cannot use: a message larger than
   * --max-message-size, one that does not parse (norsk-manager-contract's UnusableAnswerError),
   * or data the JSON mirror cannot represent (src/json/errors.ts, UnrepresentableError). Neither
   * the client's fault nor cured by retrying: never a 4xx or a 429. INTERNAL, as gRPC calls a
   * message it cannot parse.
   */
  BAD_GATEWAY: { status: 502, code: "INTERNAL", detail: "the Manager sent an answer the gateway cannot use" },
  /**
   * The gateway refuses new requests while its event loop lags or its memory is past a
   * threshold (src/server/load-shedding.ts). UNAVAILABLE, as a gRPC server sheds load.
   */
  OVERLOADED: { status: 503, code: "UNAVAILABLE", detail: "the gateway is overloaded; try again after the Retry-After delay" },
  /** A request that arrives while the gateway shuts down (on a connection kept alive): another replica may serve it. */
  SHUTTING_DOWN: { status: 503, code: "UNAVAILABLE", detail: "the gateway is shutting down; try again after the Retry-After delay" },
  /**
   * The issuer's signing keys (or its discovery document) cannot be fetched, so no bearer token
   * can be verified (src/auth/access.ts): the issuer's fault, not the client's, so never a 401.
   */
  AUTH_KEYS_UNAVAILABLE: { status: 503, code: "UNAVAILABLE", detail: "the token issuer's signing keys cannot be fetched; try again after the Retry-After delay" },
  /**
   * A change succeeded at the Manager, but its audit line could not be written (--audit-log,
   * src/telemetry/audit-log.ts): the client must not take it as done and unaudited, and the
   * operator must know. The detail says the change was made, so the client does not retry blindly.
   */
  AUDIT_LOG_UNWRITABLE: {
    status: 500,
    code: "INTERNAL",
    detail: "the change was made, but the gateway could not write its audit line; the request id identifies it in the gateway's log",
  },
} as const satisfies Readonly<Record<string, OwnFailure>>;

export type OwnFailureName = keyof typeof OWN_FAILURES;

/** A way a request fails: a gRPC status name, or one of the gateway's own failures. */
export type Failure = CodeName | OwnFailureName;

/** The HTTP status of a failure, as a literal type where the failure is known. */
export type StatusOf<F extends Failure> = F extends CodeName
  ? (typeof STATUS_OF_CODE)[F]
  : F extends OwnFailureName
    ? (typeof OWN_FAILURES)[F]["status"]
    : never;

export function isCodeName(name: string): name is CodeName {
  return typeof (Code as Record<string, unknown>)[name] === "number";
}

function isKnown(code: number): code is Code {
  return typeof Code[code] === "string";
}

/**
 * The HTTP status of a gRPC status code. A code outside 0-16 (a Manager speaking a newer or
 * broken protocol: 17, 99) is treated as UNKNOWN, as grpc-java's Status.fromCodeValue does,
 * and so is a 500, as grpc-gateway answers any code it does not know; never an invalid HTTP
 * status for fastify to refuse.
 */
export function httpStatusFromCode(code: Code): number {
  return STATUS_OF_CODE[codeName(code)];
}

/** The status name as gRPC spells it, e.g. "NOT_FOUND"; used as the Problem's `code`. UNKNOWN for a code outside 0-16. */
export function codeName(code: Code): CodeName {
  return Code[isKnown(code) ? code : Code.UNKNOWN] as CodeName;
}

export function statusOf<F extends Failure>(failure: F): StatusOf<F>;
export function statusOf(failure: Failure): number {
  return isCodeName(failure) ? STATUS_OF_CODE[failure] : OWN_FAILURES[failure].status;
}

/** The problem's `code` for a failure: a gRPC code's own name, an own failure's code if it has one. */
export function problemCodeOf(failure: Failure): CodeName | undefined {
  if (isCodeName(failure)) return failure;
  const own: OwnFailure = OWN_FAILURES[failure];
  return own.code;
}

/**
 * What a problem of `failure` says when its status is a 5xx, whatever the error's own text was:
 * the own failure's detail, or the one of the gRPC code, or INTERNAL_DETAIL.
 */
export function redactedDetail(failure: Failure): string {
  if (isCodeName(failure)) return DETAIL_OF_CODE[failure] ?? INTERNAL_DETAIL;
  const own: OwnFailure = OWN_FAILURES[failure];
  return own.detail ?? INTERNAL_DETAIL;
}

/**
 * The own failure a 4xx that HTTP decided (fastify, node's parser) is answered as, if the
 * catalogue has one of that status.
 */
export function ownFailureOfStatus(status: number): OwnFailureName | undefined {
  return (Object.keys(OWN_FAILURES) as OwnFailureName[]).find((name) => OWN_FAILURES[name].status === status);
}

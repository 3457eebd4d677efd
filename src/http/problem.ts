// Every error the gateway answers is an RFC 9457 problem (application/problem+json). This
// module is the one place that turns anything thrown (our own ProblemError, a GrpcError from
// the Manager, fastify's validation and body-parsing errors) into one, and the one place that
// makes sure a 5xx says nothing about internals. A ProblemError names a failure of the table
// (src/http/status.ts), never a status: `notFound(detail)`, `problem("MISDIRECTED_REQUEST", ...)`.
import { STATUS_CODES } from "node:http";
import type { FastifyError } from "fastify";
import type { ProblemItemJson, ProblemJson } from "../../schemas/common.js";
import { Code, GrpcError, TooLargeToSendError, UnusableAnswerError } from "norsk-manager-contract/grpc/errors.js";
import { MAX_LISTED_ISSUES, MirrorError, UnrepresentableError } from "../json/errors.js";
import { JsonBodyError } from "../json/body.js";
import { codeName, failureAnswered, failureOfHttpStatus, genericDetail, httpStatusOf, problemCodeOf, statusOf } from "./status.js";
import type { CodeName, Failure } from "./status.js";
import { validationItems } from "./validation.js";
import type { RequestPart } from "./validation.js";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";


export interface ProblemOptions {
  /** Each thing wrong with the request, located in the body, a parameter or a header. */
  readonly errors?: readonly ProblemItemJson[] | undefined;
  /** How many more things were found wrong than `errors` lists. Default: 0. */
  readonly errorsNotListed?: number | undefined;
}

/** Thrown for an answer that is not the Manager's own: its status and `code` come from the failure. */
export class ProblemError extends Error {
  override readonly name = "ProblemError";
  /** The row of the table this problem answers (src/http/status.ts). */
  readonly failure: Failure;
  readonly status: number;
  readonly code: CodeName | undefined;
  readonly errors: ProblemItemJson[] | undefined;
  readonly errorsNotListed: number;

  constructor(
    failure: Failure,
    readonly detail: string,
    options: ProblemOptions = {},
  ) {
    super(detail);
    this.failure = failure;
    this.status = statusOf(failure);
    this.code = problemCodeOf(failure);
    this.errors = options.errors === undefined ? undefined : [...options.errors];
    this.errorsNotListed = options.errorsNotListed ?? 0;
  }

  /**
   * The error answered as `body` again, e.g. to fail a stream's start with a problem made
   * earlier. Every problem made from a failure or a gRPC status has its failure in the table;
   * any other (fastify's rarer statuses) would be a 500.
   */
  static of(body: ProblemJson): ProblemError {
    const failure = failureAnswered(body.status, body.code, body.detail) ?? "INTERNAL_SERVER_ERROR";
    return new ProblemError(failure, body.detail, { errors: body.errors, errorsNotListed: body.errorsNotListed });
  }
}

/** A problem of `failure` saying `detail`. */
export function problem(failure: Failure, detail: string, options?: ProblemOptions): ProblemError {
  return new ProblemError(failure, detail, options);
}

// The failures the gateway answers by itself most often, by name.
/** The request is invalid: each thing wrong located in `errors`. */
export function invalidArgument(detail: string, options?: ProblemOptions): ProblemError {
  return new ProblemError("INVALID_ARGUMENT", detail, options);
}

export function notFound(detail: string, options?: ProblemOptions): ProblemError {
  return new ProblemError("NOT_FOUND", detail, options);
}

export function alreadyExists(detail: string, options?: ProblemOptions): ProblemError {
  return new ProblemError("ALREADY_EXISTS", detail, options);
}

/** A concurrent change won (a test-and-set lost, a job being deleted); not the client's own precondition. */
export function aborted(detail: string, options?: ProblemOptions): ProblemError {
  return new ProblemError("ABORTED", detail, options);
}

/** The client's own precondition (If-Match, a body's currentHash) failed: 412, code ABORTED. */
export function preconditionFailed(detail: string, options?: ProblemOptions): ProblemError {
  return new ProblemError("PRECONDITION_FAILED", detail, options);
}

export function resourceExhausted(detail: string, options?: ProblemOptions): ProblemError {
  return new ProblemError("RESOURCE_EXHAUSTED", detail, options);
}

export function unavailable(detail: string, options?: ProblemOptions): ProblemError {
  return new ProblemError("UNAVAILABLE", detail, options);
}

export function deadlineExceeded(detail: string, options?: ProblemOptions): ProblemError {
  return new ProblemError("DEADLINE_EXCEEDED", detail, options);
}

export function unsupportedMediaType(detail: string, options?: ProblemOptions): ProblemError {
  return new ProblemError("UNSUPPORTED_MEDIA_TYPE", detail, options);
}


interface RequestFacts {
  readonly id: string;
  readonly url: string;
}

/** Builds the problem for `error` as answered to `request`. */
export function toProblem(error: unknown, request: RequestFacts): ProblemJson {
  const base = describe(error);
  // Only an error status can be answered as a problem (a Manager's OK, or a code fastify would
  // refuse as a status, would not be one).
  const status = base.status >= 400 && base.status <= 599 ? base.status : statusOf("INTERNAL_SERVER_ERROR");
  const body: ProblemJson = {
    type: "about:blank",
    title: STATUS_CODES[status] ?? "Error",
    status,
    // A 5xx never carries a message from below: it may hold addresses, paths or stack text.
    detail: status >= 500 ? genericDetail(status, base.failure) : base.detail,
    instance: request.url,
    requestId: request.id,
  };
  if (base.code !== undefined) body.code = base.code;
  if (base.errors !== undefined && base.errors.length > 0) {
    // Whoever made the list, it is answered MAX_LISTED_ISSUES long at most.
    body.errors = base.errors.slice(0, MAX_LISTED_ISSUES);
    const notListed = (base.notListed ?? 0) + base.errors.length - body.errors.length;
    if (notListed > 0) body.errorsNotListed = notListed;
  }
  return body;
}

interface Described {
  /** Where known: the table's row, whose generic detail a 5xx says. */
  failure?: Failure | undefined;
  status: number;
  detail: string;
  code?: CodeName | undefined;
  errors?: ProblemItemJson[] | undefined;
  notListed?: number | undefined;
}

function described(failure: Failure, detail: string, errors?: readonly ProblemItemJson[], notListed = 0): Described {
  return { failure, status: statusOf(failure), detail, code: problemCodeOf(failure), errors: errors === undefined ? undefined : [...errors], notListed };
}

/** A status HTTP itself chose (fastify's, node's), with the code of the table's reason for it. */
function describedByHttp(status: number, detail: string): Described {
  const failure = failureOfHttpStatus(status);
  return { status, detail, code: failure === undefined ? undefined : problemCodeOf(failure) };
}

function describe(error: unknown): Described {
  if (error instanceof ProblemError) {
    return { failure: error.failure, status: error.status, detail: error.detail, code: error.code, errors: error.errors, notListed: error.errorsNotListed };
  }
  if (error instanceof JsonBodyError) return described("INVALID_ARGUMENT", error.detail, error.errors, error.notListed);
  if (error instanceof MirrorError) return described("INVALID_ARGUMENT", "the request body is invalid", error.errors, error.notListed);
  // The Manager's answer, not the client's request, is at fault: the gateway's 502, whatever
  // grpc-js called it (src/http/status.ts, BAD_GATEWAY).
  if (error instanceof UnusableAnswerError || error instanceof UnrepresentableError) return described("BAD_GATEWAY", "");
  if (error instanceof TooLargeToSendError) {
    return described("CONTENT_TOO_LARGE", "the request is larger than the gateway may send the Manager (--max-message-size)");
  }
  if (error instanceof GrpcError) {
    return { status: httpStatusOf(error.code), detail: error.details, code: codeName(error.code) };
  }
  if (isFastifyError(error)) return describeFastifyError(error);
  return described("INTERNAL_SERVER_ERROR", "");
}

function isFastifyError(error: unknown): error is FastifyError {
  return error instanceof Error && "statusCode" in error && typeof error.statusCode === "number";
}

const WHERE: Readonly<Record<RequestPart, string>> = {
  body: "the request body is invalid",
  querystring: "the query string is invalid",
  params: "the path parameters are invalid",
  headers: "the request headers are invalid",
};

/**
 * fastify's own client errors, in the gateway's words: their messages may quote the request
 * (the URL, the Content-Type), and a problem never echoes raw input.
 */
const FASTIFY_ERRORS: Readonly<Record<string, Omit<Described, "status" | "code">>> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { detail: "the request body is too large" },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    detail: "the request body's media type is not supported",
    errors: [{ header: "content-type", message: "is not a media type this gateway reads" }],
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    detail: "the request body's length does not match its Content-Length",
    errors: [{ header: "content-length", message: "does not match the body's length" }],
  },
  FST_ERR_BAD_URL: { detail: "the URL's path is not valid percent-encoded UTF-8" },
  FST_ERR_MAX_PARAM_LENGTH: { detail: "a segment of the URL's path is too long" },
  FST_ERR_NOT_FOUND: { detail: "no route matches the method and path" },
};

function describeFastifyError(error: FastifyError): Described {
  if (error.validation !== undefined) {
    const part: RequestPart = error.validationContext ?? "body";
    const { items, notListed } = validationItems(error.validation, part);
    return described("INVALID_ARGUMENT", WHERE[part], items, notListed);
  }
  const status = error.statusCode ?? 500;
  if (status < 400 || status >= 500) return described("INTERNAL_SERVER_ERROR", "");
  const known = Object.hasOwn(FASTIFY_ERRORS, error.code) ? FASTIFY_ERRORS[error.code] : undefined;
  return { ...describedByHttp(status, "the request cannot be served"), ...known };
}

/** A catch handler: NOT_FOUND from the Manager becomes a 404 saying `detail`; others pass. */
export function notFoundAs(detail: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof GrpcError && error.code === Code.NOT_FOUND) throw notFound(detail);
    throw error;
  };
}

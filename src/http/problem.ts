// Every error the gateway answers is an RFC 9457 problem (application/problem+json). This
// module is the one place that turns anything thrown (our own ProblemError, a GrpcError from
// the Manager, fastify's validation and body-parsing errors) into one, and the one place that
// makes sure a 5xx says nothing about internals. A ProblemError names a failure (a gRPC code or
// one of the gateway's own, src/http/status.ts), never a status: `notFound(detail)`,
// `problem("MISDIRECTED_REQUEST", ...)`.
import { STATUS_CODES } from "node:http";
import type { FastifyError } from "fastify";
import type { ProblemItemJson, ProblemJson } from "../../schemas/common.js";
import { Code, GrpcError, TooLargeToSendError, UnusableAnswerError } from "norsk-manager-contract/grpc/errors.js";
import { MAX_LISTED_ISSUES, MirrorError, UnrepresentableError } from "../json/errors.js";
import { JsonBodyError } from "../json/body.js";
import { codeName, isCodeName, ownFailureOfStatus, problemCodeOf, redactedDetail, statusOf } from "./status.js";
import type { CodeName, Failure } from "./status.js";
import { validationItems } from "./validation.js";
import { carriesCredential } from "./credential-query.js";
import type { RequestPart } from "./validation.js";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";


export interface ProblemOptions {
  /** Each thing wrong with the request, located in the body, a parameter or a header. */
  readonly errors?: readonly ProblemItemJson[] | undefined;
  /** How many more things were found wrong than `errors` lists. Default: 0. */
  readonly errorsNotListed?: number | undefined;
}

/** What a ProblemError answers. */
interface Answer {
  readonly status: number;
  readonly code: CodeName | undefined;
  readonly detail: string;
  readonly answered: string;
  readonly errors?: readonly ProblemItemJson[] | undefined;
  readonly errorsNotListed?: number | undefined;
}

/**
 * Thrown for an answer that is not the Manager's own: its status and code come from its failure.
 * `detail` is the words it was made with (for the log, and for the problem of a 4xx); a 5xx's
 * problem says `answered`, the failure's redacted detail, instead.
 */
export class ProblemError extends Error {
  override readonly name = "ProblemError";
  readonly status: number;
  readonly code: CodeName | undefined;
  readonly detail: string;
  /** The detail a problem of this error says. */
  readonly answered: string;
  readonly errors: ProblemItemJson[] | undefined;
  readonly errorsNotListed: number;

  private constructor(answer: Answer) {
    super(answer.detail);
    this.status = answer.status;
    this.code = answer.code;
    this.detail = answer.detail;
    this.answered = answer.answered;
    this.errors = answer.errors === undefined ? undefined : [...answer.errors];
    this.errorsNotListed = answer.errorsNotListed ?? 0;
  }

  /** A problem of `failure` saying `detail` (a 5xx: its failure's redacted detail). */
  static of(failure: Failure, detail: string, options: ProblemOptions = {}): ProblemError {
    const status = statusOf(failure);
    const answered = status >= 500 ? redactedDetail(failure) : detail;
    return new ProblemError({ status, code: problemCodeOf(failure), detail, answered, ...options });
  }

  /**
   * The error answered as `body` again, e.g. to fail a stream's start with a problem made
   * earlier: its status, code, detail and errors as they are.
   */
  static answering(body: ProblemJson): ProblemError {
    const code = body.code !== undefined && isCodeName(body.code) ? body.code : undefined;
    return new ProblemError({ ...body, code, answered: body.detail });
  }
}

/** A problem of `failure` saying `detail`. */
export function problem(failure: Failure, detail: string, options?: ProblemOptions): ProblemError {
  return ProblemError.of(failure, detail, options);
}

// The failures the gateway answers by itself most often, by name.
/** The request is invalid: each thing wrong located in `errors`. */
export function invalidArgument(detail: string, options?: ProblemOptions): ProblemError {
  return ProblemError.of("INVALID_ARGUMENT", detail, options);
}

export function notFound(detail: string, options?: ProblemOptions): ProblemError {
  return ProblemError.of("NOT_FOUND", detail, options);
}

export function alreadyExists(detail: string, options?: ProblemOptions): ProblemError {
  return ProblemError.of("ALREADY_EXISTS", detail, options);
}

/** A concurrent change won (a test-and-set lost, a job being deleted); not the client's own precondition. */
export function aborted(detail: string, options?: ProblemOptions): ProblemError {
  return ProblemError.of("ABORTED", detail, options);
}

/** The client's own precondition (If-Match, a body's currentHash) failed: 412, code ABORTED. */
export function preconditionFailed(detail: string, options?: ProblemOptions): ProblemError {
  return ProblemError.of("PRECONDITION_FAILED", detail, options);
}

export function resourceExhausted(detail: string, options?: ProblemOptions): ProblemError {
  return ProblemError.of("RESOURCE_EXHAUSTED", detail, options);
}

export function unavailable(detail: string, options?: ProblemOptions): ProblemError {
  return ProblemError.of("UNAVAILABLE", detail, options);
}

export function deadlineExceeded(detail: string, options?: ProblemOptions): ProblemError {
  return ProblemError.of("DEADLINE_EXCEEDED", detail, options);
}

export function unsupportedMediaType(detail: string, options?: ProblemOptions): ProblemError {
  return ProblemError.of("UNSUPPORTED_MEDIA_TYPE", detail, options);
}


interface RequestFacts {
  readonly id: string;
  readonly url: string;
}

/** Builds the problem for `error` as answered to `request`. */
export function toProblem(error: unknown, request: RequestFacts): ProblemJson {
  const base = describe(error);
  // Only an error status can be answered as a problem (a Manager's OK, or a code fastify would
  // refuse as a status, would not be one): such an answer is an internal error.
  const answerable = base.status >= 400 && base.status <= 599;
  const status = answerable ? base.status : statusOf("INTERNAL_SERVER_ERROR");
  const body: ProblemJson = {
    type: "about:blank",
    title: STATUS_CODES[status] ?? "Error",
    status,
    detail: answerable ? base.detail : redactedDetail("INTERNAL_SERVER_ERROR"),
    instance: instanceOf(request.url),
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

/** A problem's parts as answered: a 5xx's detail is already its failure's redacted one. */
interface Described {
  status: number;
  detail: string;
  code?: CodeName | undefined;
  errors?: ProblemItemJson[] | undefined;
  notListed?: number | undefined;
}

function described(failure: Failure, detail: string, errors?: readonly ProblemItemJson[], notListed = 0): Described {
  const status = statusOf(failure);
  return {
    status,
    // A 5xx never carries a message from below: it may hold addresses, paths or stack text.
    detail: status >= 500 ? redactedDetail(failure) : detail,
    code: problemCodeOf(failure),
    errors: errors === undefined ? undefined : [...errors],
    notListed,
  };
}

/** A 4xx HTTP itself chose (fastify's, node's), with the code of the gateway's own failure of that status. */
function describedByHttp(status: number, detail: string): Described {
  const failure = ownFailureOfStatus(status);
  return { status, detail, code: failure === undefined ? undefined : problemCodeOf(failure) };
}

function describe(error: unknown): Described {
  if (error instanceof ProblemError) {
    return { status: error.status, detail: error.answered, code: error.code, errors: error.errors, notListed: error.errorsNotListed };
  }
  if (error instanceof JsonBodyError) return described("INVALID_ARGUMENT", error.detail, error.errors, error.notListed);
  if (error instanceof MirrorError) return described("INVALID_ARGUMENT", "the request body is invalid", error.errors, error.notListed);
  // The Manager's answer, not the client's request, is at fault: the gateway's 502, whatever
  // grpc-js called it (src/http/status.ts, BAD_GATEWAY).
  if (error instanceof UnusableAnswerError || error instanceof UnrepresentableError) return described("BAD_GATEWAY", "");
  if (error instanceof TooLargeToSendError) {
    return described("CONTENT_TOO_LARGE", "the request is larger than the gateway may send the Manager (--max-message-size)");
  }
  if (error instanceof GrpcError) return described(codeName(error.code), error.details);
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

/**
 * The request's URL as a problem's instance; without its query when that carries a credential
 * (src/http/credential-query.ts), so that an answer (which clients and proxies log) never
 * echoes one.
 */
function instanceOf(url: string): string {
  return carriesCredential(url) ? url.slice(0, url.indexOf("?")) : url;
}

// Every error the gateway answers is an RFC 9457 problem (application/problem+json). This
// module is the one place that turns anything thrown (our own ProblemError, a GrpcError from
// the Manager, fastify's validation and body-parsing errors) into one, and the one place that
// makes sure a 5xx says nothing about internals.
import { STATUS_CODES } from "node:http";
import type { FastifyError } from "fastify";
import type { Static } from "@sinclair/typebox";
import type { ProblemItem, ProblemJson } from "../../schemas/common.js";
import { Code, GrpcError } from "../grpc/errors.js";
import { MirrorError } from "../json/errors.js";
import { JsonBodyError } from "../json/body.js";
import { codeName, httpStatusOf } from "./status.js";
import { validationItems } from "./validation.js";
import type { RequestPart } from "./validation.js";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export type ProblemDetailItem = Static<typeof ProblemItem>;
export type ProblemBody = ProblemJson;

/** Thrown by routes for an answer that is not the Manager's: 400, 404, 412, 415, ... */
export class ProblemError extends Error {
  override readonly name = "ProblemError";

  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors?: ProblemDetailItem[],
    readonly code?: string,
  ) {
    super(detail);
  }
}

export function badRequest(detail: string, errors?: ProblemDetailItem[]): ProblemError {
  return new ProblemError(400, detail, errors, "INVALID_ARGUMENT");
}

interface RequestFacts {
  readonly id: string;
  readonly url: string;
}

/** Builds the problem for `error` as answered to `request`. */
export function toProblem(error: unknown, request: RequestFacts): ProblemBody {
  const base = describe(error);
  // Only an error status can be answered as a problem (a Manager's OK, or a code fastify would
  // refuse as a status, would not be one).
  const status = base.status >= 400 && base.status <= 599 ? base.status : 500;
  const problem: ProblemBody = {
    type: "about:blank",
    title: STATUS_CODES[status] ?? "Error",
    status,
    // A 5xx never carries a message from below: it may hold addresses, paths or stack text.
    detail: status >= 500 ? genericDetail(status) : base.detail,
    instance: request.url,
    requestId: request.id,
  };
  if (base.code !== undefined) problem.code = base.code;
  if (base.errors !== undefined && base.errors.length > 0) problem.errors = base.errors;
  return problem;
}

interface Described {
  status: number;
  detail: string;
  code?: string | undefined;
  errors?: ProblemDetailItem[] | undefined;
}

function describe(error: unknown): Described {
  if (error instanceof ProblemError) {
    return { status: error.status, detail: error.detail, code: error.code, errors: error.errors };
  }
  if (error instanceof JsonBodyError) {
    return { status: 400, detail: error.detail, code: "INVALID_ARGUMENT", errors: [...error.errors] };
  }
  if (error instanceof MirrorError) {
    return { status: 400, detail: "the request body is invalid", code: "INVALID_ARGUMENT", errors: [...error.errors] };
  }
  if (error instanceof GrpcError) {
    return { status: httpStatusOf(error.code), detail: error.details, code: codeName(error.code) };
  }
  if (isFastifyError(error)) return describeFastifyError(error);
  return { status: 500, detail: "" };
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
const FASTIFY_ERRORS: Readonly<Record<string, Omit<Described, "status">>> = {
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
    return { status: 400, detail: WHERE[part], code: "INVALID_ARGUMENT", errors: validationItems(error.validation, part) };
  }
  const status = error.statusCode ?? 500;
  if (status < 400 || status >= 500) return { status: 500, detail: "" };
  const known = Object.hasOwn(FASTIFY_ERRORS, error.code) ? FASTIFY_ERRORS[error.code] : undefined;
  const code = status === 400 ? "INVALID_ARGUMENT" : undefined;
  return { status, detail: "the request cannot be served", code, ...known };
}

function genericDetail(status: number): string {
  if (status === 503) return "the Manager is unavailable; try again later";
  if (status === 504) return "the Manager did not answer before the deadline";
  if (status === 501) return "the Manager does not implement this operation";
  return "internal error; the request id identifies it in the gateway's log";
}

/** A catch handler: NOT_FOUND from the Manager becomes a 404 saying `detail`; others pass. */
export function notFoundAs(detail: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof GrpcError && error.code === Code.NOT_FOUND) throw new ProblemError(404, detail, undefined, "NOT_FOUND");
    throw error;
  };
}

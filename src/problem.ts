// Every error the gateway answers is an RFC 9457 problem (application/problem+json). This
// module is the one place that turns anything thrown (our own ProblemError, a GrpcError from
// the Manager, fastify's validation and body-parsing errors) into one, and the one place that
// makes sure a 5xx says nothing about internals.
import { STATUS_CODES } from "node:http";
import type { FastifyError } from "fastify";
import type { Static } from "@sinclair/typebox";
import type { ProblemItem, ProblemJson } from "../schemas/common.js";
import { GrpcError } from "./grpc/errors.js";
import { MirrorError } from "./json/errors.js";
import { codeName, httpStatusOf } from "./grpc/http-status.js";
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
  const status = base.status;
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

// fastify's own client errors (body too large, bad JSON, wrong media type) carry safe messages.
function describeFastifyError(error: FastifyError): Described {
  if (error.validation !== undefined) {
    const part: RequestPart = error.validationContext ?? "body";
    const where = part === "body" ? "the request body" : part === "querystring" ? "the query string" : `the request ${part}`;
    return {
      status: 400,
      detail: `${where} is invalid`,
      code: "INVALID_ARGUMENT",
      errors: validationItems(error.validation, part),
    };
  }
  const status = error.statusCode ?? 500;
  if (status < 400 || status >= 500) return { status: 500, detail: "" };
  const code = status === 400 ? "INVALID_ARGUMENT" : undefined;
  return { status, detail: error.message, code };
}

function genericDetail(status: number): string {
  if (status === 503) return "the Manager is unavailable; try again later";
  if (status === 504) return "the Manager did not answer before the deadline";
  if (status === 501) return "the Manager does not implement this operation";
  return "internal error; the request id identifies it in the gateway's log";
}

// Response declarations shared by the route plugins. They use fastify's per-media-type form ({description, headers, content}) so that one
// declaration gives both the compiled serializer and the OpenAPI response: errors are
// serialized through the Problem schema under application/problem+json, which is the
// Content-Type the error handler sets.
import { STATUS_CODES } from "node:http";
import { Type } from "@sinclair/typebox";
import type { TNull, TSchema, TString } from "@sinclair/typebox";
import { Problem } from "../../schemas/common.js";
import { PROBLEM_CONTENT_TYPE } from "./problem.js";

/** A JSON response: `schema` under application/json, with optional response headers. */
export function jsonResponse<T extends TSchema>(schema: T, description: string, headers?: Record<string, TString>) {
  return { description, ...(headers === undefined ? {} : { headers }), content: { "application/json": { schema } } };
}

/** A response without a body (204, 304): OpenAPI shows no content for a null schema. */
export function emptyResponse(description: string, headers?: Record<string, TString>): TNull {
  return Type.Null(headers === undefined ? { description } : { description, headers });
}

const ERROR_MEANINGS: Readonly<Record<number, string>> = {
  400: "the request is invalid (each problem located in `errors`), or the Manager refused it (INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE)",
  404: "the resource does not exist",
  409: "the Manager refused the change: ALREADY_EXISTS, or ABORTED (a concurrent change won)",
  412: "If-Match (or a non-zero currentHash in the body) does not match the job's current ETag; nothing was written",
  413: "the request body is larger than the gateway accepts (1 MiB by default)",
  415: "the request's Content-Type is not one this operation accepts",
  500: "the gateway or the Manager failed; the detail says nothing about internals, the request id finds it in the log",
  503: "the Manager cannot be reached (UNAVAILABLE); try again later",
  504: "the Manager did not answer before the deadline (the gateway's, or a shorter Grpc-Timeout)",
};

/** Statuses any call to the Manager can end in, documented on every route that makes one. */
const MANAGER_FAILURES = [500, 503, 504] as const;

export interface ProblemResponse {
  readonly description: string;
  readonly content: { readonly "application/problem+json": { readonly schema: typeof Problem } };
}

export function problemResponse(description: string): ProblemResponse {
  return { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: Problem } } };
}

/**
 * Problem responses for the listed statuses (a status, or [status, what it means here]), plus
 * 500, 503 and 504, which any Manager call may end in, and `default` for the rest (401, 403
 * or 429 from a Manager that enforces them).
 */
export function errorResponses<S extends number>(
  ...entries: (S | readonly [S, string])[]
): Record<S | (typeof MANAGER_FAILURES)[number] | "default", ProblemResponse> {
  const meanings = new Map<number, string | undefined>();
  for (const entry of entries) {
    if (typeof entry === "number") meanings.set(entry, undefined);
    else meanings.set(entry[0], entry[1]);
  }
  for (const status of MANAGER_FAILURES) if (!meanings.has(status)) meanings.set(status, undefined);
  const responses: Record<string, ProblemResponse> = {};
  for (const [status, meaning] of meanings) {
    const text = meaning ?? ERROR_MEANINGS[status] ?? "see the problem's detail";
    responses[status] = problemResponse(`${STATUS_CODES[status] ?? "Error"}: ${text}.`);
  }
  responses.default = problemResponse("Any other error (such as 401, 403 or 429 from a Manager that enforces them), as a problem.");
  return responses as Record<S | (typeof MANAGER_FAILURES)[number] | "default", ProblemResponse>;
}


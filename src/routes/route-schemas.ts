// Schemas shared by the route plugins: path parameters, request headers and responses. The
// responses use fastify's per-media-type form ({description, headers, content}) so that one
// declaration gives both the compiled serializer and the OpenAPI response: errors are
// serialized through the Problem schema under application/problem+json, which is the
// Content-Type the error handler sets.
import { STATUS_CODES } from "node:http";
import { Type } from "@sinclair/typebox";
import type { TNull, TSchema, TString } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import { IdOf, Problem } from "../../schemas/common.js";
import { Code, GrpcError } from "../grpc/errors.js";
import { PROBLEM_CONTENT_TYPE, ProblemError } from "../problem.js";

export const JobIdParams = Type.Object(
  {
    jobId: IdOf("The job's id.", "encoder-1"),
  },
  { additionalProperties: false },
);

const ENTITY_TAG = '^"(0|-?[1-9][0-9]{0,18})"$';

/** Response header: the job's currentHash as a strong entity tag. */
export const ETagHeader = Type.String({
  description: 'The job\'s currentHash as a strong entity tag, e.g. "-3481990684367738963"; send it back in If-Match or If-None-Match.',
  pattern: ENTITY_TAG,
  examples: ['"-3481990684367738963"'],
});

/** Response header: where the created resource lives. */
export const LocationHeader = Type.String({
  description: "Path of the created resource (ids URL-encoded).",
  examples: ["/v1/jobs/encoder-1"],
});

// Request headers. Names are in lower case: with a custom validator compiler fastify matches
// header schemas against Node's lower-cased header names as written. No pattern: the route
// parses these itself and answers 400 naming the header (or 412 for a weak If-Match).
export const IfMatchHeaders = Type.Object({
  "if-match": Type.Optional(
    Type.String({
      description:
        "Only change the job if its ETag is this one (412 otherwise), or `*` for any existing job. One strong entity tag; a weak tag never matches.",
      examples: ["*"],
    }),
  ),
});

export const IfNoneMatchHeaders = Type.Object({
  "if-none-match": Type.Optional(
    Type.String({
      // No example: Swagger UI would send it, and a matching one makes "Try it out" a 304.
      description:
        'Answer 304 Not Modified, without a body, if the job\'s ETag is one of these (weak comparison), e.g. "-3481990684367738963", or for `*`.',
    }),
  ),
});

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

/** A catch handler: NOT_FOUND from the Manager becomes a 404 saying `detail`; others pass. */
export function notFoundAs(detail: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof GrpcError && error.code === Code.NOT_FOUND) throw new ProblemError(404, detail, undefined, "NOT_FOUND");
    throw error;
  };
}

/**
 * A preValidation hook accepting only the listed media types (parameters such as charset
 * aside). fastify parses any JSON-like body it has a parser for; this keeps a merge patch out
 * of PUT and POST, where it would mean something else.
 */
export function acceptOnly(...mediaTypes: string[]): (request: FastifyRequest) => Promise<void> {
  return (request) => {
    const given = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    if (!mediaTypes.includes(given)) {
      return Promise.reject(
        new ProblemError(415, `Content-Type must be ${mediaTypes.join(" or ")}`, [
          { header: "content-type", message: `is ${given === "" ? "missing" : JSON.stringify(given)}` },
        ]),
      );
    }
    return Promise.resolve();
  };
}

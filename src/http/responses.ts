// Response declarations shared by the route plugins. They use fastify's per-media-type form ({description, headers, content}) so that one
// declaration gives both the compiled serializer and the OpenAPI response: errors are
// serialized through the Problem schema under application/problem+json, which is the
// Content-Type the error handler sets.
//
// A route declares the failures an operation can end in by name (src/http/status.ts), with its
// own wording where the document's would be too general; the statuses are computed from the
// failures, so a changed mapping moves every response with it. The meaning of a status the route
// does not word is the document's (src/openapi/errors.ts), which fills in STATUS_MEANING.
import { STATUS_CODES } from "node:http";
import { Type } from "@sinclair/typebox";
import type { TNull, TSchema, TString } from "@sinclair/typebox";
import { ProblemJson } from "../../schemas/common.js";
import { PROBLEM_CONTENT_TYPE } from "./problem.js";
import { problemCodeOf, statusOf } from "./status.js";
import type { Failure, StatusOf } from "./status.js";

/** A JSON response: `schema` under application/json, with optional response headers. */
export function jsonResponse<T extends TSchema>(schema: T, description: string, headers?: Record<string, TString>) {
  return { description, ...(headers === undefined ? {} : { headers }), content: { "application/json": { schema } } };
}

/** A response without a body (204, 304): OpenAPI shows no content for a null schema. */
export function emptyResponse(description: string, headers?: Record<string, TString>): TNull {
  return Type.Null(headers === undefined ? { description } : { description, headers });
}

/**
 * Where a problem response's description says what its status means in general, left to the
 * OpenAPI document to word (src/openapi/errors.ts, describedResponse).
 */
export const STATUS_MEANING = "{status meaning}";

/** Failures any call to the Manager can end in, documented on every route that makes one. */
export const MANAGER_FAILURES = ["INTERNAL", "BAD_GATEWAY", "UNAVAILABLE", "DEADLINE_EXCEEDED"] as const satisfies readonly Failure[];
type ManagerFailure = (typeof MANAGER_FAILURES)[number];

export interface ProblemResponse {
  readonly description: string;
  readonly content: { readonly "application/problem+json": { readonly schema: typeof ProblemJson } };
}

export function problemResponse(description: string): ProblemResponse {
  return { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemJson } } };
}

/** What an operation says failures mean for it, instead of the document's meaning of their status. */
export type Wordings = { readonly [F in Failure]?: string };

/** A failure the operation can end in: by name (the document's meaning of its status), or with the operation's own wording. */
export type Declared = Failure | Wordings;

/** The failures a declaration names. */
type Named<D> = D extends Failure ? D : keyof D & Failure;

/**
 * Problem responses for the declared failures, and no others. Failures that land on one status
 * share its response: the status's meaning once, and the operation's wordings joined, each
 * after the first followed by its code, so that a reader can tell which the Manager answers.
 */
export function declaredProblems<const D extends readonly Declared[]>(...declared: D): Record<StatusOf<Named<D[number]>>, ProblemResponse>;
export function declaredProblems(...declared: Declared[]): Record<number, ProblemResponse> {
  return problemResponses(declared);
}

/**
 * declaredProblems, plus the failures any Manager call may end in (500, 502, 503, 504) where no
 * declared failure has their status, and `default` for the rest (401, 403 or 429 from a Manager
 * that enforces them).
 */
export function errorResponses<const D extends readonly Declared[]>(
  ...declared: D
): Record<StatusOf<Named<D[number]> | ManagerFailure> | "default", ProblemResponse>;
export function errorResponses(...declared: Declared[]): Record<string, ProblemResponse> {
  const responses = problemResponses(declared);
  for (const failure of MANAGER_FAILURES) {
    const status = statusOf(failure);
    if (!(status in responses)) Object.assign(responses, problemResponses([failure]));
  }
  responses.default = problemResponse("Any other error (such as 401, 403 or 429 from a Manager that enforces them, or 429 from the gateway's own rate limit), as a problem.");
  return responses;
}

/** One failure's part in the description of its status. */
interface Part {
  readonly wording: string | undefined;
  readonly code: string | undefined;
}

function problemResponses(declared: readonly Declared[]): Record<string, ProblemResponse> {
  const parts = new Map<number, Part[]>();
  const add = (status: number, part: Part) => parts.set(status, [...(parts.get(status) ?? []), part]);
  for (const entry of declared) {
    if (typeof entry === "string") add(statusOf(entry), { wording: undefined, code: problemCodeOf(entry) });
    else {
      for (const [failure, wording] of Object.entries(entry) as [Failure, string | undefined][]) {
        add(statusOf(failure), { wording, code: problemCodeOf(failure) });
      }
    }
  }
  const responses: Record<string, ProblemResponse> = {};
  for (const [status, ofStatus] of parts) {
    responses[status] = problemResponse(`${STATUS_CODES[status] ?? "Error"}: ${describe(status, ofStatus)}.`);
  }
  return responses;
}

function describe(status: number, parts: readonly Part[]): string {
  const texts: string[] = [];
  for (const [index, { wording, code }] of parts.entries()) {
    const text =
      wording === undefined
        ? STATUS_MEANING
        : index > 0 && code !== undefined
          ? `${wording} (${code})`
          : wording;
    if (!texts.includes(text)) texts.push(text);
  }
  return texts.join(", ");
}

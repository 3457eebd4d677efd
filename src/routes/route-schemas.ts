// Schemas shared by the route plugins: path parameters and the Problem responses.
import { Type } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import { Problem } from "../../schemas/common.js";
import { Code, GrpcError } from "../grpc/errors.js";
import { ProblemError } from "../problem.js";

export const JobIdParams = Type.Object(
  {
    jobId: Type.String({ minLength: 1, maxLength: 256, description: "the job's id (URL-encoded: a / is %2F)", examples: ["encoder-1"] }),
  },
  { additionalProperties: false },
);

/** Response entries for the listed error statuses, each the Problem schema. */
export function errorResponses<S extends number>(...statuses: S[]): Record<S, typeof Problem> {
  const responses = {} as Record<S, typeof Problem>;
  for (const status of statuses) responses[status] = Problem;
  return responses;
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

// Per-request gRPC call options for routes: the Grpc-Timeout header checked (a malformed one is
// a 400, never silently ignored), then docs/ARCHITECTURE.md §5's deadline, metadata and disconnect signal.
import type { FastifyReply, FastifyRequest } from "fastify";
import { callOptions, parseGrpcTimeout } from "../grpc/call-context.js";
import type { CallOptions } from "../grpc/types.js";
import { ProblemError } from "../problem.js";

export function callOptionsFor(request: FastifyRequest, reply: FastifyReply, requestTimeoutMs: number): CallOptions {
  const header = request.headers["grpc-timeout"];
  let grpcTimeoutMs: number | undefined;
  if (header !== undefined) {
    grpcTimeoutMs = typeof header === "string" ? parseGrpcTimeout(header) : undefined;
    if (grpcTimeoutMs === undefined) {
      throw new ProblemError(400, "Grpc-Timeout must be 1 to 8 digits and a unit (H, M, S, m, u, n), e.g. 500m", [
        { header: "grpc-timeout", message: "is not a valid gRPC timeout" },
      ], "INVALID_ARGUMENT");
    }
  }
  return callOptions({
    headers: request.headers,
    requestId: request.id,
    response: reply.raw,
    requestTimeoutMs,
    grpcTimeoutMs,
  });
}

// Per-request gRPC call options for routes: the headers that reach the Manager checked first (a
// malformed Grpc-Timeout, or a header gRPC metadata cannot carry, is a 400 naming it, never
// silently ignored and never an exception inside grpc-js), then docs/ARCHITECTURE.md §5's
// deadline, metadata and disconnect signal.
import type { FastifyReply, FastifyRequest } from "fastify";
import { callOptions, metadataFaults, parseGrpcTimeout } from "../grpc/call-context.js";
import type { HeaderFault } from "../grpc/call-context.js";
import type { CallOptions } from "../grpc/types.js";
import { badRequest } from "../problem.js";

const TIMEOUT_MESSAGE = "must be 1 to 8 digits and a unit (H, M, S, m, u, n), e.g. 500m";

/** Throws a 400 listing every unusable header; otherwise the options of the request's calls. */
export function callOptionsFor(request: FastifyRequest, reply: FastifyReply, requestTimeoutMs: number): CallOptions {
  const header = request.headers["grpc-timeout"];
  const grpcTimeoutMs = typeof header === "string" ? parseGrpcTimeout(header) : undefined;
  const faults: HeaderFault[] = [];
  if (header !== undefined && grpcTimeoutMs === undefined) faults.push({ header: "grpc-timeout", message: TIMEOUT_MESSAGE });
  faults.push(...metadataFaults(request.headers));
  if (faults.length > 0) throw badRequest("the request headers are invalid", faults);
  return callOptions({
    headers: request.headers,
    requestId: request.id,
    response: reply.raw,
    requestTimeoutMs,
    grpcTimeoutMs,
  });
}

// The options of the gRPC calls an HTTP request makes (docs/architecture.md, "Deadlines"): one
// form for a call answered in one piece, one for a list or stream read as the Manager sends it.
// Each takes the request's checked headers (src/http/grpc-headers.ts) and the route's deadlines.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { callHeaders, disconnectSignal } from "../http/grpc-headers.js";

/** What bounds the calls of a request. */
export interface Deadlines {
  /** A call's deadline; of a list or stream, the bound of its start and of each gap. In ms. */
  readonly requestTimeoutMs: number;
  /** The longest total deadline a Grpc-Timeout may set on a list or stream, in ms. */
  readonly maxRequestTimeoutMs: number;
}

/** What a route plugin that calls the Manager is given, whatever its client. */
export interface CallingRouteOptions<C> {
  readonly client: C;
  /** Deadline of each gRPC call, in ms; a Grpc-Timeout header may shorten it. */
  readonly requestTimeoutMs: number;
  /** The longest total deadline a Grpc-Timeout may set on a list, in ms. Default: requestTimeoutMs. */
  readonly maxRequestTimeoutMs?: number | undefined;
}

/** A plugin's deadlines; without a maximum, a Grpc-Timeout cannot lengthen anything. */
export function deadlinesOf(options: Pick<CallingRouteOptions<unknown>, "requestTimeoutMs" | "maxRequestTimeoutMs">): Deadlines {
  return { requestTimeoutMs: options.requestTimeoutMs, maxRequestTimeoutMs: options.maxRequestTimeoutMs ?? options.requestTimeoutMs };
}

/**
 * A call answered in one piece: its deadline is the request timeout, or the request's
 * Grpc-Timeout when that is shorter. A longer Grpc-Timeout changes nothing: such a call takes
 * milliseconds, and a Manager that does not answer within the configured deadline is failing.
 * Throws a 400 listing every unusable header.
 */
export function unaryCallOptions(request: FastifyRequest, reply: FastifyReply, requestTimeoutMs: number): CallOptions {
  const { grpcTimeoutMs, metadata } = callHeaders(request);
  return {
    timeoutMs: grpcTimeoutMs === undefined ? requestTimeoutMs : Math.min(grpcTimeoutMs, requestTimeoutMs),
    metadata,
    signal: disconnectSignal(reply.raw),
  };
}

/** The options of a list or stream: a total deadline (Infinity: none) and the bound of each wait. */
export interface StreamCallOptions extends CallOptions {
  readonly timeoutMs: number;
  readonly idleTimeoutMs: number;
}

/**
 * A list or stream read as the Manager sends it: the request timeout bounds the wait for the
 * first result and for each next one (idleTimeoutMs), not the whole; the whole has a deadline
 * only when the request's Grpc-Timeout sets one, which may be longer than the request timeout,
 * up to maxRequestTimeoutMs. Throws a 400 listing every unusable header.
 */
export function streamCallOptions(request: FastifyRequest, reply: FastifyReply, deadlines: Deadlines): StreamCallOptions {
  const { grpcTimeoutMs, metadata } = callHeaders(request);
  return {
    timeoutMs: grpcTimeoutMs === undefined ? Infinity : Math.min(grpcTimeoutMs, deadlines.maxRequestTimeoutMs),
    idleTimeoutMs: deadlines.requestTimeoutMs,
    metadata,
    signal: disconnectSignal(reply.raw),
  };
}

/**
 * The options of the calls of a change once it has begun: `options` without the client's
 * disconnect signal, its deadline kept. A change whose client leaves is seen through rather than
 * cancelled: a call cancelled after it was sent may or may not have taken effect, while one seen
 * through says what the Manager did, which the audit log records (docs/operations/authentication.md,
 * "Audit log"). What the client's leaving still ends is a change's wait for its turn
 * (src/operations/job-write-queue.ts).
 */
export function seenThrough(options: CallOptions): CallOptions {
  return { ...options, signal: undefined };
}

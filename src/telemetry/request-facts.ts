// Facts about a request that the access log, the metrics and the traces all name the same way.
import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * The template of the route that matched ("/v1/jobs/:jobId"), or null when none did: never
 * the raw path, so that a label or a log field has as many values as there are routes.
 */
export function routeOf(request: FastifyRequest): string | null {
  return request.routeOptions.url ?? null;
}

/** W3C Trace Context: version 00's four fields; a trace id of zeros is invalid. */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;
const ZERO_TRACE = "0".repeat(32);

/** The trace id of a `traceparent` header, if it is a valid one. */
export function traceIdOfHeader(header: string | string[] | undefined): string | undefined {
  if (typeof header !== "string") return undefined;
  const traceId = TRACEPARENT.exec(header)?.[1];
  return traceId === undefined || traceId === ZERO_TRACE ? undefined : traceId;
}

/** What the connection has written so far; undefined without a real socket (app.inject). */
export function bytesWrittenOf(request: FastifyRequest): number | undefined {
  const socket = request.raw.socket as { bytesWritten?: unknown } | null;
  return typeof socket?.bytesWritten === "number" ? socket.bytesWritten : undefined;
}

/** Without a real socket (app.inject), the declared length of the body. */
export function contentLength(reply: FastifyReply): number {
  const header = reply.getHeader("content-length");
  return header === undefined ? 0 : Number(header);
}

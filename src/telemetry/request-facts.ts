// Facts about a request that the access log, the metrics and the traces all name the same way.
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from "fastify";

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

/**
 * nginx's "client closed request": the status logged and counted for a request whose client
 * left (an HTTP/2 stream reset, a connection closed, a body never finished) before any answer
 * was sent. It is never sent; the 200 a reply holds until it is answered would be a lie.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/** Requests whose client left before an answer was begun. */
const leftUnanswered = new WeakSet<FastifyRequest>();

/**
 * An onRequest hook that notes when the client of a request leaves (a stream reset, a connection
 * closed, a body cut off) before an answer was begun. Registered once, before the hooks that
 * read statusAnswered (the access log, the metrics). What fastify answers after that (a 400 for
 * the body it could not finish) reaches no one, so it is not the request's status.
 */
export const watchClientLeaving: onRequestHookHandler = (request, reply, done) => {
  request.raw.once("aborted", () => {
    if (!reply.raw.headersSent) leftUnanswered.add(request);
  });
  done();
};

/**
 * The status a request was answered with, once its answer is over: CLIENT_CLOSED_REQUEST when
 * none was begun before the client left (as watchClientLeaving saw it).
 */
export function statusAnswered(request: FastifyRequest, reply: FastifyReply): number {
  return leftUnanswered.has(request) || !reply.raw.headersSent ? CLIENT_CLOSED_REQUEST : reply.statusCode;
}

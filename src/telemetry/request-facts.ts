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

/** What is known of a request on its arrival, for what its observers say when its answer is over. */
export interface RequestStart {
  /** routeOf(request). */
  readonly route: string | null;
  /** performance.now() on arrival. */
  readonly started: number;
  /** bytesWrittenOf(request) on arrival: a connection carries many requests. */
  readonly written: number | undefined;
  /** request.ip on arrival: a connection gone by the answer's end may no longer know its peer. */
  readonly client: string;
  /** Whether the client left (a stream reset, a connection closed, a body cut off) before an answer was begun. */
  leftUnanswered: boolean;
}

/** One of the things told of each request (the access log, the HTTP metrics). */
export interface RequestObserver {
  /** On arrival, before any hook that may refuse it. Default: nothing. */
  readonly arrived?: (request: FastifyRequest, start: RequestStart) => void;
  /** When its answer is over: sent in full, or cut by the client leaving. */
  readonly ended: (request: FastifyRequest, reply: FastifyReply, start: RequestStart) => void;
}

/**
 * The one onRequest hook of every observer of requests: one record of the arrival and one
 * listener for the answer's end per request, whatever the number of observers. Registered
 * before the hooks that may refuse, so that refused requests are observed too. What fastify
 * answers after the client left (a 400 for the body it could not finish) reaches no one, so it
 * is not the request's status (statusAnswered).
 */
export function observeRequests(observers: readonly RequestObserver[]): onRequestHookHandler {
  return (request, reply, done) => {
    const start: RequestStart = { route: routeOf(request), started: performance.now(), written: bytesWrittenOf(request), client: request.ip, leftUnanswered: false };
    for (const observer of observers) observer.arrived?.(request, start);
    request.raw.once("aborted", () => {
      if (!reply.raw.headersSent) start.leftUnanswered = true;
    });
    reply.raw.once("close", () => {
      for (const observer of observers) observer.ended(request, reply, start);
    });
    done();
  };
}

/** The status a request was answered with, once its answer is over: CLIENT_CLOSED_REQUEST when none was begun before the client left. */
export function statusAnswered(reply: FastifyReply, start: RequestStart): number {
  return start.leftUnanswered || !reply.raw.headersSent ? CLIENT_CLOSED_REQUEST : reply.statusCode;
}

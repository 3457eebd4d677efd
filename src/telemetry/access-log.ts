// The access log: one JSON line per request, written when its answer is over (sent in full,
// or cut because the client went away), through the request's own logger, so that each line
// carries the request id fastify binds to it. Probes and scrapes (/healthz, /readyz, /metrics)
// are left out: a kubelet asks every few seconds, and what matters about readiness, a change
// of state, is logged by the readiness route itself (src/routes/health.ts).
import type { FastifyReply, FastifyRequest } from "fastify";
import { bytesWrittenOf, contentLength, statusAnswered, traceIdOfHeader } from "./request-facts.js";
import type { RequestObserver, RequestStart } from "./request-facts.js";

/** Which requests get a line: every one, those answered 4xx/5xx (or cut), or none. */
export type AccessLogMode = "on" | "errors" | "off";

export const ACCESS_LOG_MODES: readonly AccessLogMode[] = ["on", "errors", "off"];

/** Routes never logged line by line: probes and metric scrapes. */
export const UNLOGGED_ROUTES: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"]);

export interface AccessLogOptions {
  readonly mode: Exclude<AccessLogMode, "off">;
  /** The trace id a line carries. Default: the one of the request's `traceparent` header. */
  readonly traceIdOf?: (request: FastifyRequest) => string | undefined;
}

/**
 * The longest user agent and path a line quotes, in UTF-16 code units; longer ones are cut
 * there and end in LOG_ELLIPSIS, so that a hostile client cannot make its lines any longer.
 */
export const MAX_LOGGED_TEXT = 256;
export const LOG_ELLIPSIS = "…";

/** What one line says, besides the request id its logger binds. */
export interface AccessLine {
  readonly method: string;
  /** The route's template ("/v1/jobs/:jobId"), never the raw path; null when no route matched. */
  readonly route: string | null;
  /**
   * When no route matched: the path asked for, without its query string (which may carry
   * anything a client typed), cut at MAX_LOGGED_TEXT.
   */
  readonly path?: string;
  /** The client's address: the peer's, or the one a proxy of --trust-proxy forwarded. */
  readonly client: string;
  /** The User-Agent header, cut at MAX_LOGGED_TEXT; absent when the request had none. */
  readonly userAgent?: string;
  /** The status sent, or 499 (CLIENT_CLOSED_REQUEST) when the client left before any answer was. */
  readonly status: number;
  /** From the request's arrival to the answer's last byte (or the connection's end), in ms. */
  readonly durationMs: number;
  /** Bytes of the answer written to the connection, status line and headers included. */
  readonly bytes: number;
  readonly traceId?: string;
  /** Who made the request, once authenticated (src/auth/principal.ts); absent without authentication. */
  readonly principal?: string;
  /** Present (true) when the client went away before the answer was complete. */
  readonly aborted?: true;
}

/** The access log as an observer of requests (observeRequests): a line when each answer is over. */
export function accessLog(options: AccessLogOptions): RequestObserver {
  const traceIdOf = options.traceIdOf ?? ((request: FastifyRequest) => traceIdOfHeader(request.headers.traceparent));
  const errorsOnly = options.mode === "errors";
  return {
    ended: (request, reply, start) => {
      if (start.route !== null && UNLOGGED_ROUTES.has(start.route)) return;
      const line = lineOf(request, reply, start, traceIdOf(request));
      if (errorsOnly && line.status < 400 && line.aborted !== true) return;
      request.log.info(line, "request");
    },
  };
}

function lineOf(request: FastifyRequest, reply: FastifyReply, start: RequestStart, traceId: string | undefined): AccessLine {
  const durationMs = Math.round((performance.now() - start.started) * 1000) / 1000;
  const written = bytesWrittenOf(request);
  const bytes = written === undefined ? contentLength(reply) : written - (start.written ?? 0);
  const userAgent = request.headers["user-agent"];
  return {
    method: request.method,
    route: start.route,
    ...(start.route === null ? { path: bounded(pathOf(request.url)) } : {}),
    client: start.client,
    ...(userAgent === undefined ? {} : { userAgent: bounded(userAgent) }),
    status: statusAnswered(reply, start),
    durationMs,
    bytes,
    ...(traceId === undefined ? {} : { traceId }),
    ...(request.principal === null || request.principal.kind === "anonymous" ? {} : { principal: request.principal.id }),
    ...(reply.raw.writableFinished ? {} : { aborted: true as const }),
  };
}

/** The path of a request target, without its query string. */
function pathOf(url: string): string {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
}

function bounded(text: string): string {
  return text.length <= MAX_LOGGED_TEXT ? text : `${text.slice(0, MAX_LOGGED_TEXT)}${LOG_ELLIPSIS}`;
}

// The HTTP server's own limits, so that no client can hold a connection for ever by sending
// slowly or not at all: how long a request's headers, then the whole request, may take to
// arrive; how long an idle keep-alive connection is kept; how many connections are open at
// once. Node enforces each (fastify passes them through); none of them applies to a response
// being sent, so an event stream, or a slow Manager call, is never cut by them. A request cut
// for time is answered with a problem+json by src/http/unrouted.ts, since no route ever sees it.
import type { Server, ServerOptions } from "node:http";
import type { FastifyBaseLogger } from "fastify";

export interface ServerLimits {
  /**
   * ms a client has to send a request's headers, from its first byte (or, for a new connection,
   * from connecting). Must not exceed bodyTimeoutMs. Default: 10 000.
   */
  readonly headerTimeoutMs: number;
  /** ms a client has to send a whole request, headers and body, from its first byte. Default: 30 000. */
  readonly bodyTimeoutMs: number;
  /** ms a keep-alive connection may sit idle between requests before it is closed. Default: 72 000. */
  readonly idleTimeoutMs: number;
  /** Connections open at once; one more is closed as soon as it is accepted. Default: 10 000. */
  readonly maxConnections: number;
}

export const SERVER_LIMITS_DEFAULTS: ServerLimits = {
  // Ample for any real client (headers come in one packet), short enough to free a slow-loris.
  headerTimeoutMs: 10_000,
  // A 1 MiB body (the largest accepted) at 35 KB/s.
  bodyTimeoutMs: 30_000,
  // Longer than the 60 s idle timeout of common load balancers (AWS ALB, nginx), so the balancer
  // closes an idle connection first and never reuses one the gateway is closing (a 502).
  idleTimeoutMs: 72_000,
  // 10 times the 1,000 event-stream clients benchmarked (about 38 KiB each, so some 400 MiB here).
  maxConnections: 10_000,
};

interface LimitOptions {
  readonly requestTimeout: number;
  readonly keepAliveTimeout: number;
  readonly http: ServerOptions;
}

/** fastify's options for `limits`; the connection cap is applied to the server (limitConnections). */
export function serverOptions(limits: ServerLimits): LimitOptions {
  return {
    requestTimeout: limits.bodyTimeoutMs,
    keepAliveTimeout: limits.idleTimeoutMs,
    http: {
      headersTimeout: limits.headerTimeoutMs,
      requestTimeout: limits.bodyTimeoutMs,
      // Node checks both timeouts on this interval (30 s by default, which made a 60 s header
      // timeout fire after up to 90 s); a quarter of the shorter keeps them within 25 %.
      connectionsCheckingInterval: checkingInterval(limits),
      // node would answer a missing Host with an empty 400 of its own; app.ts's onRequest hook
      // answers it as a problem instead.
      requireHostHeader: false,
    },
  };
}

/**
 * fastify's options for HTTPS with `tls`: one listener for HTTP/2 and HTTP/1.1, chosen by ALPN
 * (a client that offers no ALPN gets HTTP/1.1). fastify passes none of the HTTP/1.1 limits to
 * such a server: applyHttp1Limits sets them. An HTTP/2 connection with no stream open is
 * closed after the idle timeout; node has no header or body timeout for HTTP/2 streams, whose
 * flow control bounds what a slow client holds.
 */
export function secureServerOptions(limits: ServerLimits, tls: { readonly cert: Buffer; readonly key: Buffer }): SecureLimitOptions {
  return { http2: true, https: { allowHTTP1: true, cert: tls.cert, key: tls.key }, http2SessionTimeout: limits.idleTimeoutMs };
}

interface SecureLimitOptions {
  readonly http2: true;
  readonly https: { readonly allowHTTP1: true; readonly cert: Buffer; readonly key: Buffer };
  readonly http2SessionTimeout: number;
}

/** The HTTP/1.1 limits of serverOptions, set on an HTTPS server that also speaks HTTP/2. */
export function applyHttp1Limits(server: object, limits: ServerLimits): void {
  const { http } = serverOptions(limits);
  Object.assign(server, {
    headersTimeout: http.headersTimeout,
    requestTimeout: http.requestTimeout,
    keepAliveTimeout: limits.idleTimeoutMs,
    connectionsCheckingInterval: http.connectionsCheckingInterval,
    requireHostHeader: http.requireHostHeader,
  });
}

function checkingInterval(limits: ServerLimits): number {
  return Math.min(1_000, Math.max(10, Math.floor(Math.min(limits.headerTimeoutMs, limits.bodyTimeoutMs) / 4)));
}

/** How often, at most, the log says that connections were turned away. */
const DROP_LOG_INTERVAL_MS = 60_000;

/** Caps the open connections of `server` at `max`, and logs (at most once a minute) when it turns some away. */
export function limitConnections(server: Server, max: number, log: FastifyBaseLogger): void {
  server.maxConnections = max;
  let dropped = 0;
  let loggedAt = -Infinity;
  server.on("drop", () => {
    dropped++;
    if (Date.now() - loggedAt < DROP_LOG_INTERVAL_MS) return;
    loggedAt = Date.now();
    log.warn({ maxConnections: max, dropped }, "connection limit reached; new connections are closed");
  });
}


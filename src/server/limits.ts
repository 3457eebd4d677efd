// The HTTP server's own limits, so that no client can hold a connection for ever by sending
// slowly or not at all: how long a request's headers, then the whole request, may take to
// arrive; how long an idle keep-alive connection is kept; how many connections are open at
// once. Node enforces each (fastify passes them through); none of them applies to a response
// being sent, so an event stream, or a slow Manager call, is never cut by them. A request cut
// for time is answered with a problem+json by src/http/unrouted.ts, since no route ever sees it.
import { maxHeaderSize } from "node:http";
import type { Server, ServerOptions } from "node:http";
import { constants as http2 } from "node:http2";
import type { Http2SecureServer, Http2ServerRequest, Http2ServerResponse, ServerHttp2Session } from "node:http2";
import type { FastifyBaseLogger } from "fastify";
import { problem } from "../http/problem.js";
import { requestTimeoutDetail } from "../http/unrouted.js";

/** The server's limits: the settings of the same names (src/config.ts), which give each its default and its reason. */
export interface ServerLimits {
  /** ms a client has to send a request's headers, from its first byte (or, for a new connection, from connecting); at most bodyTimeoutMs. */
  readonly headerTimeoutMs: number;
  /** ms a client has to send a whole request, headers and body, from its first byte. */
  readonly bodyTimeoutMs: number;
  /** ms a keep-alive connection may sit idle between requests before it is closed. */
  readonly idleTimeoutMs: number;
  /** Connections open at once; one more is closed as soon as it is accepted. */
  readonly maxConnections: number;
  /** Requests (streams) in flight at once on one HTTP/2 connection; one more is refused. */
  readonly maxStreams: number;
}

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
      // Node checks both timeouts on this interval (by default one that lets a timeout fire
      // up to that much late); a quarter of the shorter keeps them within 25 %.
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
 * such a server: applyHttp1Limits sets them. HTTP/2 gets its own: at most maxStreams streams
 * at once per connection (nghttp2 refuses one more with REFUSED_STREAM), a header list no
 * larger than HTTP/1.1's request head (node's maxHeaderSize; a larger one is reset), a TLS
 * handshake within the header timeout, and a connection with no stream open closed after the
 * idle timeout. applyHttp2Limits adds the deadlines of each stream.
 */
export function secureServerOptions(limits: ServerLimits, tls: { readonly cert: Buffer; readonly key: Buffer; readonly clientCa?: Buffer | undefined }): SecureLimitOptions {
  return {
    http2: true,
    https: {
      allowHTTP1: true,
      cert: tls.cert,
      key: tls.key,
      // A client certificate is required and verified in the handshake: a connection without
      // one signed by these CAs never reaches HTTP.
      ...(tls.clientCa === undefined ? {} : { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true }),
      handshakeTimeout: limits.headerTimeoutMs,
      settings: { maxConcurrentStreams: limits.maxStreams, maxHeaderListSize: maxHeaderSize },
    },
    http2SessionTimeout: limits.idleTimeoutMs,
  };
}

interface SecureLimitOptions {
  readonly http2: true;
  readonly https: {
    readonly allowHTTP1: true;
    readonly cert: Buffer;
    readonly key: Buffer;
    readonly ca?: Buffer;
    readonly requestCert?: boolean;
    readonly rejectUnauthorized?: boolean;
    readonly handshakeTimeout: number;
    readonly settings: { readonly maxConcurrentStreams: number; readonly maxHeaderListSize: number };
  };
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

/**
 * The deadlines of each HTTP/2 stream of `server`, which node leaves unbounded: a request's
 * body must arrive in full within bodyTimeoutMs of its headers, or it is answered with the
 * 408 problem HTTP/1.1 gives (through the body's reader when a route reads it, so that it is
 * logged and counted like any answer) and its stream closed; and a connection on which a
 * header block was begun and left unfinished for headerTimeoutMs is closed (nghttp2 holds
 * such a block without telling node, so each connection is looked at on the interval node
 * checks HTTP/1.1's timeouts on).
 */
export function applyHttp2Limits(server: Http2SecureServer, limits: ServerLimits): void {
  server.on("request", (request: Http2ServerRequest, response: Http2ServerResponse) => {
    if (request.httpVersionMajor !== 2 || request.complete) return;
    const timer = setTimeout(() => {
      bodyTimedOut(request, response, limits);
    }, limits.bodyTimeoutMs);
    timer.unref();
    const clear = (): void => {
      clearTimeout(timer);
    };
    request.once("end", clear);
    request.stream.once("close", clear);
  });
  const sessions = new Map<ServerHttp2Session, HeaderWatch>();
  server.on("session", (session: ServerHttp2Session) => {
    const watch: HeaderWatch = { delivered: 0, pending: 0, since: 0 };
    sessions.set(session, watch);
    session.on("stream", (stream) => {
      watch.delivered = Math.max(watch.delivered, stream.id ?? 0);
    });
    session.once("close", () => sessions.delete(session));
  });
  const interval = setInterval(() => {
    const now = Date.now();
    for (const [session, watch] of sessions) {
      if (headerBlockStalled(session, watch, now, limits.headerTimeoutMs)) session.destroy();
    }
  }, checkingInterval(limits));
  interval.unref();
  server.once("close", () => {
    clearInterval(interval);
  });
}

/**
 * True when an HTTP/2 request's header list (RFC 9113 §6.5.2's size: each name and value and
 * 32 octets) is larger than HTTP/1.1's request head may be. nghttp2 resets such a stream once
 * the client has acknowledged the server's settings; one sent before that reaches node whole.
 */
export function headerListTooLarge(request: { readonly httpVersionMajor: number; readonly rawHeaders: readonly string[] }): boolean {
  if (request.httpVersionMajor !== 2) return false;
  let size = 0;
  for (const field of request.rawHeaders) size += field.length + 16;
  return size > maxHeaderSize;
}

/** What is known of a connection's header blocks: the last stream node was given, the one begun after it, since when. */
interface HeaderWatch {
  delivered: number;
  pending: number;
  since: number;
}

/**
 * True when a header block begun on `session` (nghttp2 has processed a stream node was not
 * given) has been left so for `timeoutMs`. A stream nghttp2 refused (one past maxStreams, a
 * header list too large) looks the same, and its connection goes the same way unless
 * another stream follows: such a client is not one to wait for.
 */
function headerBlockStalled(session: ServerHttp2Session, watch: HeaderWatch, now: number, timeoutMs: number): boolean {
  if (session.destroyed || session.closed) return false;
  const last = session.state.lastProcStreamID ?? 0;
  if (last <= watch.delivered) {
    watch.pending = 0;
    return false;
  }
  if (watch.pending !== last) {
    watch.pending = last;
    watch.since = now;
    return false;
  }
  return now - watch.since >= timeoutMs;
}

/** The body deadline of an HTTP/2 request passed: answer 408 as HTTP/1.1 does, or cancel the stream when it cannot be answered. */
function bodyTimedOut(request: Http2ServerRequest, response: Http2ServerResponse, limits: ServerLimits): void {
  if (request.complete || request.stream.destroyed) return;
  if (!response.headersSent && request.listenerCount("error") > 0) {
    // fastify's body reader hands the error to the error handler, which answers a ProblemError
    // with its failure's status (src/http/problem.ts).
    // Once the answer has gone out, resetEarlyAnswers (src/server/early-answer.ts) resets the
    // stream, so that what the client still sends is not read. A client that does not take the
    // answer (its flow-control window shut) gets as long again, then the stream is cancelled.
    request.emit("error", problem("REQUEST_TIMEOUT", requestTimeoutDetail("body", limits)));
    const untaken = setTimeout(() => {
      request.stream.close(http2.NGHTTP2_CANCEL);
    }, limits.bodyTimeoutMs);
    untaken.unref();
    request.stream.once("close", () => {
      clearTimeout(untaken);
    });
    return;
  }
  request.stream.close(http2.NGHTTP2_CANCEL);
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


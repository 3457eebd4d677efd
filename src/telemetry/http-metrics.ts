// The HTTP metrics of each request: counted in flight from its arrival, and counted, timed and
// sized when its answer is over (sent, or cut by the client leaving, as the access log does).
import type { FastifyRequest, onRequestHookHandler } from "fastify";
import type { GatewayMetrics } from "./metrics.js";
import { bytesWrittenOf, contentLength, routeOf, statusAnswered } from "./request-facts.js";

/** The route label of a request that matched no route. */
export const UNROUTED = "unrouted";

/** Request bodies read, by request, until the answer is over. */
const bodyBytes = new WeakMap<FastifyRequest, number>();

/** Records the size of a request body the gateway read (its JSON parser calls this). */
export function noteRequestBody(request: FastifyRequest, bytes: number): void {
  bodyBytes.set(request, bytes);
}

export function httpMetricsHook(metrics: GatewayMetrics): onRequestHookHandler {
  return (request, reply, done) => {
    const method = request.method;
    const route = routeOf(request) ?? UNROUTED;
    const started = performance.now();
    const written = bytesWrittenOf(request);
    metrics.httpInFlight.inc({ method, route });
    reply.raw.once("close", () => {
      const status = String(statusAnswered(request, reply));
      metrics.httpInFlight.dec({ method, route });
      metrics.httpRequests.inc({ method, route, status });
      metrics.httpDuration.observe({ method, route, status }, (performance.now() - started) / 1000);
      const after = bytesWrittenOf(request);
      const sent = written === undefined || after === undefined ? contentLength(reply) : after - written;
      metrics.httpResponseBytes.observe({ method, route }, sent);
      const read = bodyBytes.get(request);
      if (read !== undefined) metrics.httpRequestBytes.observe({ method, route }, read);
    });
    done();
  };
}

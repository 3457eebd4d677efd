// The HTTP metrics of each request: counted in flight from its arrival, and counted, timed and
// sized when its answer is over (sent, or cut by the client leaving, as the access log does).
import type { FastifyRequest } from "fastify";
import type { GatewayMetrics } from "./metrics.js";
import { bytesWrittenOf, contentLength, statusAnswered } from "./request-facts.js";
import type { RequestObserver } from "./request-facts.js";

/** The route label of a request that matched no route. */
export const UNROUTED = "unrouted";

/** Request bodies read, by request, until the answer is over. */
const bodyBytes = new WeakMap<FastifyRequest, number>();

/** Records the size of a request body the gateway read (its JSON parser calls this). */
export function noteRequestBody(request: FastifyRequest, bytes: number): void {
  bodyBytes.set(request, bytes);
}

/** The HTTP metrics as an observer of requests (observeRequests). */
export function httpMetrics(metrics: GatewayMetrics): RequestObserver {
  return {
    arrived: (request, start) => {
      metrics.httpInFlight.inc({ method: request.method, route: start.route ?? UNROUTED });
    },
    ended: (request, reply, start) => {
      const method = request.method;
      const route = start.route ?? UNROUTED;
      const status = String(statusAnswered(reply, start));
      metrics.httpInFlight.dec({ method, route });
      metrics.httpRequests.inc({ method, route, status });
      metrics.httpDuration.observe({ method, route, status }, (performance.now() - start.started) / 1000);
      const after = bytesWrittenOf(request);
      const sent = start.written === undefined || after === undefined ? contentLength(reply) : after - start.written;
      metrics.httpResponseBytes.observe({ method, route }, sent);
      const read = bodyBytes.get(request);
      if (read !== undefined) metrics.httpRequestBytes.observe({ method, route }, read);
    },
  };
}

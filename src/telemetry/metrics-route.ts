// Where Prometheus scrapes: GET /metrics on the gateway's own port, or, with --metrics-port, on
// a listener of its own (so that the metrics can be kept off the network the API is served on).
// Either way outside /v1 and outside the OpenAPI document, as /openapi.json is: it is the
// operator's text exposition format, not part of the API, and with --metrics-port the API's
// port does not serve it at all.
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { PROBLEM_CONTENT_TYPE, problem, toProblem } from "../http/problem.js";
import { requestIdOf } from "../http/request-id.js";
import type { GatewayMetrics } from "./metrics.js";
import { needs } from "../auth/scopes.js";

export const METRICS_PATH = "/metrics";

/** GET (and HEAD) /metrics on `app`. */
export function addMetricsRoute(app: FastifyInstance, metrics: GatewayMetrics): void {
  app.get(METRICS_PATH, { schema: { hide: true }, config: needs("metrics:read") }, async (_request, reply) => {
    const { contentType, text } = await metrics.exposition();
    return reply.type(contentType).header("cache-control", "no-store").send(text);
  });
}

export interface MetricsListener {
  /** e.g. http://127.0.0.1:9464 */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * A plain HTTP listener that answers GET /metrics and nothing else (a 404 or 405 problem). It
 * needs no framework: one path, no body, no parameters.
 */
export async function listenMetrics(metrics: GatewayMetrics, port: number, host: string): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    void answer(metrics, request, response);
  });
  // Scrapes come every few seconds; keep-alive must not hold a shutdown for long.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { url: `http://${shown}:${address.port}`, close: () => closeServer(server) };
}

async function answer(metrics: GatewayMetrics, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = (request.url ?? "").split("?")[0];
  const facts = { id: requestIdOf(request.headers["x-request-id"]), url: path ?? "" };
  if (path !== METRICS_PATH) {
    sendProblem(response, toProblem(problem("ROUTE_NOT_FOUND", "this listener serves /metrics only"), facts));
    return;
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    response.setHeader("allow", "GET, HEAD");
    sendProblem(response, toProblem(problem("METHOD_NOT_ALLOWED", "/metrics is read with GET"), facts));
    return;
  }
  try {
    const { contentType, text } = await metrics.exposition();
    response.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
    response.end(request.method === "HEAD" ? undefined : text);
  } catch {
    sendProblem(response, toProblem(problem("INTERNAL_SERVER_ERROR", ""), facts));
  }
}

function sendProblem(response: ServerResponse, body: { readonly status: number; readonly requestId?: string }): void {
  response.writeHead(body.status, { "content-type": PROBLEM_CONTENT_TYPE, "x-request-id": body.requestId ?? "" });
  response.end(JSON.stringify(body));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => { resolve(); });
    server.closeIdleConnections();
  });
}

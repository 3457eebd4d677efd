// Load shedding (src/server/load-shedding.ts), with thresholds forced: a heap threshold of one
// byte (always exceeded once sampled) and an event-loop delay threshold that a deliberately
// blocked loop exceeds and an idle one does not. A shed request is a 503 problem with
// Retry-After, reaches nothing and writes nothing; the probes and /metrics are still answered;
// the gateway answers normally again once the loop has caught up; an event stream opened before
// the pressure keeps being sent through it.
import { afterEach, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import type { AppOptions } from "../../src/app.js";
import { GatewayMetrics } from "../../src/telemetry/metrics.js";
import { JSON_HEADERS, startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { eventually, startListeningGateway } from "../helpers/listening-gateway.js";
import { openRaw } from "../helpers/raw-socket.js";
import type { RawConnection } from "../helpers/raw-socket.js";
import { parseExposition, valueOf } from "../telemetry/prometheus-text.js";

let gw: TestGateway | undefined;
const connections: RawConnection[] = [];

afterEach(async () => {
  for (const connection of connections.splice(0)) connection.socket.destroy();
  await gw?.close();
  gw = undefined;
});

/** A gateway app, ready: shedding starts two samples after that. */
async function gatewayWith(options: Omit<AppOptions, "connection">): Promise<TestGateway> {
  gw = await startTestGateway(options);
  await gw.app.ready();
  return gw;
}

/** Holds the event loop for `ms`: what a burst of synchronous work does to the gateway. */
function blockLoop(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: the loop runs nothing else meanwhile
  }
}

/**
 * Keeps the event loop lagging, as a saturated gateway's does: every turn of the loop holds it
 * for `ms`, and requests are served in the gaps. Returns what ends it.
 */
function lagLoop(ms: number): () => void {
  const timer = setInterval(() => { blockLoop(ms); }, 1);
  return () => { clearInterval(timer); };
}

function isUnderPressure(app: FastifyInstance): boolean {
  return (app as FastifyInstance & { isUnderPressure(): boolean }).isUnderPressure();
}

const OVERLOADED = {
  type: "about:blank",
  title: "Service Unavailable",
  status: 503,
  detail: "the gateway is overloaded; try again after the Retry-After delay",
  code: "UNAVAILABLE",
} as const;

/** The value of `name` (with `labels`) at /metrics. */
async function metric(app: FastifyInstance, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const scraped = await app.inject({ method: "GET", url: "/metrics" });
  expect(scraped.statusCode).toBe(200);
  return valueOf(parseExposition(scraped.body), name, labels);
}

describe("past the heap threshold", () => {
  it("refuses new requests with 503 problem+json and Retry-After, writes nothing, answers the probes and /metrics, and counts each one", async () => {
    const metrics = new GatewayMetrics();
    const gateway = await gatewayWith({ metrics, shedHeapUsedBytes: 1, shedRetryAfterS: 7, sheddingSampleIntervalMs: 20 });
    const { app } = gateway;
    await eventually(() => isUnderPressure(app), "the first sample of the heap");
    // The samples that cover the start are not acted on.
    await new Promise((resolve) => setTimeout(resolve, 2 * 20));

    const create = await app.inject({
      method: "POST",
      url: "/v1/jobs",
      headers: { ...JSON_HEADERS, "x-request-id": "shed-1" },
      payload: { jobId: "shed-1", startDateTime: "2026-12-24T18:00:00Z" },
    });
    expect(create.statusCode).toBe(503);
    expect(create.headers["retry-after"]).toBe("7");
    expect(create.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(create.headers["x-request-id"]).toBe("shed-1");
    expect(create.json()).toEqual({ ...OVERLOADED, instance: "/v1/jobs", requestId: "shed-1" });

    const read = await app.inject({ method: "GET", url: "/v1/jobs/shed-1" });
    expect(read.statusCode).toBe(503);
    expect(read.json()).toMatchObject(OVERLOADED);
    // No route matched: shed all the same (nothing is cheaper than not routing).
    expect((await app.inject({ method: "GET", url: "/no/such/path" })).statusCode).toBe(503);

    expect((await app.inject({ method: "GET", url: "/healthz" })).json()).toEqual({ status: "ok" });
    expect((await app.inject({ method: "GET", url: "/readyz" })).json()).toEqual({ status: "ready" });
    expect(await metric(app, "gateway_requests_shed_total", { reason: "heap_used" })).toBe(3);
    expect(await metric(app, "http_requests_total", { method: "POST", route: "/v1/jobs", status: "503" })).toBe(1);
    expect(await gateway.jobs()).toEqual([]);
  });
});

describe("at start-up", () => {
  it("does not act on the samples that cover the start: shedding begins two samples after the app is ready", async () => {
    const sampleIntervalMs = 500;
    const { app } = await gatewayWith({ shedHeapUsedBytes: 1, sheddingSampleIntervalMs: sampleIntervalMs });
    const ready = performance.now();
    const early = await app.inject({ method: "GET", url: "/v1/jobs/none" });
    // Only meaningful if it was asked within the two samples; it is, unless the machine stalled.
    if (performance.now() - ready < 2 * sampleIntervalMs) expect(early.statusCode).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 2 * sampleIntervalMs + 50));
    expect((await app.inject({ method: "GET", url: "/v1/jobs/none" })).statusCode).toBe(503);
  });
});

describe("past the event-loop delay threshold", () => {
  // Each turn of a lagging loop takes 150 ms, three times the threshold; an idle loop's mean
  // delay is a few ms, even on a loaded machine.
  const shedding = { shedEventLoopDelayMs: 50, sheddingSampleIntervalMs: 200, shedRetryAfterS: 2 };
  const LAG_MS = 150;
  let stopLag: (() => void) | undefined;

  afterEach(() => {
    stopLag?.();
    stopLag = undefined;
  });

  /** Until a sample has found the loop idle: starting the gateway (imports, the Manager) lags it. */
  async function settled(app: FastifyInstance): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 2 * shedding.sheddingSampleIntervalMs));
    await eventually(() => !isUnderPressure(app), "a sample of an idle loop");
  }

  it("sheds while the loop lags, and answers normally once it has caught up", async () => {
    const metrics = new GatewayMetrics();
    const { app } = await gatewayWith({ metrics, ...shedding });
    await settled(app);
    expect((await app.inject({ method: "GET", url: "/v1/jobs/none" })).statusCode).toBe(404);

    stopLag = lagLoop(LAG_MS);
    await eventually(() => isUnderPressure(app), "a sample of the lagging loop");
    const shed = await app.inject({ method: "GET", url: "/v1/jobs/none" });
    expect(shed.statusCode).toBe(503);
    expect(shed.headers["retry-after"]).toBe("2");
    expect(shed.json()).toMatchObject(OVERLOADED);
    expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);

    stopLag();
    await eventually(() => !isUnderPressure(app), "a sample of the loop caught up");
    expect((await app.inject({ method: "GET", url: "/v1/jobs/none" })).statusCode).toBe(404);
    expect(await metric(app, "gateway_requests_shed_total", { reason: "event_loop_delay" })).toBe(1);
  });

  it("does not cut an event stream opened before the pressure: its heartbeats keep coming through it", async () => {
    const listening = await startListeningGateway({ ...shedding, sseHeartbeatMs: 50 });
    gw = listening;
    await settled(listening.app);
    const stream = await openRaw(listening.url, "GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n");
    connections.push(stream);
    await eventually(() => stream.received().includes("event: initialDataComplete\n"), "the stream's start");

    stopLag = lagLoop(LAG_MS);
    await eventually(() => isUnderPressure(listening.app), "a sample of the lagging loop");
    const refused = await fetch(`${listening.url}/v1/jobs/none`);
    expect(refused.status).toBe(503);
    await refused.arrayBuffer();
    const heartbeats = stream.received().split(": heartbeat\n").length;
    await eventually(() => stream.received().split(": heartbeat\n").length >= heartbeats + 3, "heartbeats during the shedding");
    expect(isUnderPressure(listening.app)).toBe(true);
    stopLag();
    expect(stream.isOpen()).toBe(true);
    expect(stream.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(stream.received()).not.toContain("event: error");
  });
});

describe("with no threshold", () => {
  it("registers nothing: a blocked loop sheds nothing", async () => {
    // The heap and RSS thresholds are off by default; the event-loop delay's is turned off.
    const { app } = await gatewayWith({ shedEventLoopDelayMs: 0 });
    expect(app.hasDecorator("isUnderPressure")).toBe(false);
    blockLoop(300);
    expect((await app.inject({ method: "GET", url: "/v1/jobs/none" })).statusCode).toBe(404);
  });
});

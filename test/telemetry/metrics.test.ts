// /metrics after a scripted run, read as Prometheus reads it: exact counts of what the script
// did, over HTTP and over gRPC, streams included, and label sets that stay bounded however many
// job ids are asked for. The gateway is the one main.ts starts, in front of a reference Manager.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { loggedGatewaysPerTest } from "./log-capture.js";
import { parseExposition, seriesOf, valueOf } from "./prometheus-text.js";
import type { Sample } from "./prometheus-text.js";

const gateways = loggedGatewaysPerTest();

async function scrape(url: string): Promise<Sample[]> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parseExposition(await response.text());
}

const MANAGER = "norsk.api.manager.Manager";
const HEALTH = "grpc.health.v1.Health";

async function request(url: string, init: RequestInit = {}): Promise<number> {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return response.status;
}

describe("/metrics", () => {
  it("counts a scripted run exactly: HTTP by route template, method and status; gRPC by method and code; readiness", async () => {
    const logged = await gateways.start();
    const { url } = logged;
    // The start-up check of the Manager is a Health/Check too; wait for it to be counted.
    await expect.poll(async () => valueOf(await scrape(`${url}/metrics`), "grpc_client_calls_total", { method: "Check" })).toBe(1);
    const job = JSON.stringify({ jobId: "metrics-1", startDateTime: "2026-12-24T18:00:00Z" });
    const json = { "content-type": "application/json" };
    expect(await request(`${url}/v1/jobs`, { method: "POST", headers: json, body: job })).toBe(201);
    expect(await request(`${url}/v1/jobs/metrics-1`)).toBe(200);
    expect(await request(`${url}/v1/jobs/metrics-1`)).toBe(200);
    expect(await request(`${url}/v1/jobs/metrics-none`)).toBe(404);
    expect(await request(`${url}/v1/jobs/metrics-1`, { method: "PUT", headers: { ...json, "if-match": '"1"' }, body: job })).toBe(412);
    expect(await request(`${url}/v1/jobs`, { method: "POST", headers: json, body: "{" })).toBe(400);
    expect(await request(`${url}/no/such/path`)).toBe(404);
    expect(await request(`${url}/readyz`)).toBe(200);

    const samples = await scrape(`${url}/metrics`);
    const http = (method: string, route: string, status: string) => valueOf(samples, "http_requests_total", { method, route, status });
    expect(http("POST", "/v1/jobs", "201")).toBe(1);
    expect(http("GET", "/v1/jobs/:jobId", "200")).toBe(2);
    expect(http("GET", "/v1/jobs/:jobId", "404")).toBe(1);
    expect(http("PUT", "/v1/jobs/:jobId", "412")).toBe(1);
    expect(http("POST", "/v1/jobs", "400")).toBe(1);
    expect(http("GET", "unrouted", "404")).toBe(1);
    expect(http("GET", "/readyz", "200")).toBe(1);
    // One scrape before this one (the poll may have taken several: at least one).
    expect(http("GET", "/metrics", "200")).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, "http_request_duration_seconds_count", { method: "GET", route: "/v1/jobs/:jobId", status: "200" })).toBe(2);
    // This scrape is the one request in flight.
    expect(valueOf(samples, "http_requests_in_flight", { method: "GET", route: "/metrics" })).toBe(1);
    expect(valueOf(samples, "http_requests_in_flight", { method: "GET", route: "/v1/jobs/:jobId" })).toBe(0);
    // Bodies read: the create, the PUT, the malformed one ("{" is one byte).
    expect(valueOf(samples, "http_request_body_bytes_count", { method: "POST", route: "/v1/jobs" })).toBe(2);
    expect(valueOf(samples, "http_request_body_bytes_sum", { method: "POST", route: "/v1/jobs" })).toBe(Buffer.byteLength(job) + 1);
    expect(valueOf(samples, "http_response_bytes_count", { method: "GET", route: "/v1/jobs/:jobId" })).toBe(3);

    const grpc = (service: string, method: string, code: string) => valueOf(samples, "grpc_client_calls_total", { service, method, code });
    expect(grpc(MANAGER, "CreateJob", "OK")).toBe(1);
    // Each read of one job is a JobSearch for its id; the PUT is UpdateJob's compare-and-swap on
    // the hash of If-Match, which the Manager refuses (ABORTED, answered 412).
    expect(grpc(MANAGER, "JobSearch", "OK")).toBe(3);
    expect(grpc(MANAGER, "UpdateJob", "ABORTED")).toBe(1);
    expect(grpc(HEALTH, "Check", "OK")).toBe(2);
    expect(seriesOf(samples, "grpc_client_calls_total").map((labels) => labels.method).sort()).toEqual(["Check", "CreateJob", "JobSearch", "UpdateJob"]);
    expect(valueOf(samples, "grpc_client_call_duration_seconds_count", { method: "CreateJob", code: "OK" })).toBe(1);
    expect(valueOf(samples, "grpc_client_calls_in_flight", { method: "CreateJob" })).toBe(0);
    expect(valueOf(samples, "grpc_channel_state", { channel: "unary", state: "READY" })).toBe(1);
    expect(valueOf(samples, "grpc_channel_state", { channel: "unary", state: "TRANSIENT_FAILURE" })).toBe(0);
    expect(valueOf(samples, "gateway_manager_ready")).toBe(1);
    // Run from the sources, as here, there is no build and so no commit: the label is empty.
    const { version } = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(seriesOf(samples, "gateway_build_info")).toEqual([{ version, commit: "", node: process.version }]);
    expect(valueOf(samples, "gateway_build_info", { version, commit: "", node: process.version })).toBe(1);
    // prom-client's process metrics.
    for (const name of ["nodejs_eventloop_lag_seconds", "process_resident_memory_bytes", "nodejs_heap_size_used_bytes"]) {
      expect(valueOf(samples, name)).toBeTypeOf("number");
    }
  });

  it("counts open event streams, the events each client was sent, and heartbeats", async () => {
    const logged = await gateways.start(["--sse-heartbeat", "40"]);
    const { url } = logged;
    const controller = new AbortController();
    const response = await fetch(`${url}/v1/events`, { headers: { accept: "application/x-ndjson" }, signal: controller.signal });
    const reader = response.body?.getReader();
    let text = "";
    const decoder = new TextDecoder();
    while (!text.includes("heartbeat")) {
      const chunk = await reader?.read();
      text += decoder.decode(chunk?.value as Uint8Array | undefined);
    }
    const received = text.split("\n").filter((line) => line !== "" && !line.includes('"heartbeat"')).length;
    expect(received).toBeGreaterThanOrEqual(1); // at least initialDataComplete
    let samples = await scrape(`${url}/metrics`);
    const labels = { route: "/v1/events", format: "ndjson" };
    expect(valueOf(samples, "gateway_streams_open", labels)).toBe(1);
    expect(valueOf(samples, "gateway_stream_events_total", labels)).toBe(received);
    expect(valueOf(samples, "gateway_stream_heartbeats_total", labels)).toBeGreaterThanOrEqual(1);
    expect(valueOf(samples, "grpc_client_calls_in_flight", { method: "EventStream" })).toBe(1);
    controller.abort();
    await expect.poll(async () => valueOf(await scrape(`${url}/metrics`), "gateway_streams_open", labels)).toBe(0);
    samples = await scrape(`${url}/metrics`);
    expect(valueOf(samples, "grpc_client_calls_total", { method: "EventStream", code: "CANCELLED" })).toBe(1);
    expect(valueOf(samples, "http_requests_total", { method: "GET", route: "/v1/events", status: "200" })).toBe(1);
  });

  it("keeps label sets bounded: 1,000 different job ids are one series per route and status", async () => {
    const logged = await gateways.start();
    const { url } = logged;
    for (let i = 0; i < 1000; i += 50) {
      const batch = Array.from({ length: 50 }, (_, j) => request(`${url}/v1/jobs/bounded-${String(i + j)}`));
      expect(new Set(await Promise.all(batch))).toEqual(new Set([404]));
    }
    const samples = await scrape(`${url}/metrics`);
    const text = JSON.stringify(samples);
    expect(text).not.toContain("bounded-");
    expect(valueOf(samples, "http_requests_total", { method: "GET", route: "/v1/jobs/:jobId", status: "404" })).toBe(1000);
    expect(seriesOf(samples, "http_requests_total")).toHaveLength(1);
    expect(seriesOf(samples, "http_request_duration_seconds_count")).toHaveLength(1);
    expect(seriesOf(samples, "grpc_client_calls_total").filter((labels) => labels.method === "JobSearch")).toHaveLength(1);
  });

  it("follows the channel between probes: gateway_manager_ready falls to 0 when the Manager goes away, and is 1 again when it is back, with no /readyz asked", async () => {
    const own = await startManager({ port: 0, dataDir: IN_MEMORY });
    let back: RunningManager | undefined;
    try {
      const logged = await gateways.start([], { manager: own.address });
      const { url } = logged;
      const ready = async (): Promise<number | undefined> => valueOf(await scrape(`${url}/metrics`), "gateway_manager_ready");
      await expect.poll(ready).toBe(1);
      await own.close();
      await expect.poll(ready, { timeout: 15_000 }).toBe(0);
      back = await startManager({ port: own.port, dataDir: IN_MEMORY });
      // grpc-js reconnects with back-off (1 s, then longer): within some seconds.
      await expect.poll(ready, { timeout: 30_000, interval: 200 }).toBe(1);
      const samples = await scrape(`${url}/metrics`);
      expect(valueOf(samples, "http_requests_total", { route: "/readyz" })).toBeUndefined();
    } finally {
      await back?.close();
      await own.close();
    }
  }, 60_000);

  it("with --metrics-port, serves /metrics on a listener of its own, and not on the API's port", async () => {
    const logged = await gateways.start(["--metrics-port", "0"]);
    const { gateway, url } = logged;
    expect(gateway.metricsUrl).not.toBe(`${url}/metrics`);
    expect(await request(`${url}/v1/jobs/private-1`)).toBe(404);
    const samples = await scrape(gateway.metricsUrl);
    expect(valueOf(samples, "http_requests_total", { method: "GET", route: "/v1/jobs/:jobId", status: "404" })).toBe(1);
    const onApi = await fetch(`${url}/metrics`);
    expect(onApi.status).toBe(404);
    expect(onApi.headers.get("content-type")).toBe("application/problem+json; charset=utf-8");
    const elsewhere = await fetch(gateway.metricsUrl.replace(/\/metrics$/, "/v1/jobs"));
    expect(elsewhere.status).toBe(404);
    expect(await elsewhere.json()).toMatchObject({ status: 404, detail: "this listener serves /metrics only" });
    const posted = await fetch(gateway.metricsUrl, { method: "POST" });
    expect(posted.status).toBe(405);
    expect(posted.headers.get("allow")).toBe("GET, HEAD");
  });
});

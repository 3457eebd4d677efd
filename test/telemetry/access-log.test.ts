// The access log as an operator reads it: real requests over real connections to the gateway
// as main.ts starts it, and the JSON lines its logger wrote.
import { describe, expect, it } from "vitest";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import { openRaw } from "../helpers/raw-socket.js";
import { eventually } from "../helpers/listening-gateway.js";
import { loggedGatewaysPerTest } from "./log-capture.js";
import { LOG_ELLIPSIS, MAX_LOGGED_TEXT } from "../../src/telemetry/access-log.js";
import type { LoggedGateway, LogLine } from "./log-capture.js";

const gateways = loggedGatewaysPerTest();

function gatewayWith(argv: readonly string[] = []): Promise<LoggedGateway> {
  return gateways.start(argv);
}

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

/** Waits for the access line of the request with `requestId`. */
async function lineOf(gateway: LoggedGateway, requestId: string): Promise<LogLine> {
  await eventually(() => gateway.access().some((line) => line.requestId === requestId), `the access line of ${requestId}`);
  const found = gateway.access().filter((line) => line.requestId === requestId);
  expect(found).toHaveLength(1);
  return found[0] ?? {};
}

describe("the access log (--access-log, on by default)", () => {
  it("writes one info line per request with method, route template, status, duration, bytes, request id and trace id", async () => {
    const gateway = await gatewayWith();
    const created = await fetch(`${gateway.url}/v1/jobs`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "post-1" },
      body: JSON.stringify({ jobId: "log-1", startDateTime: "2026-12-24T18:00:00Z" }),
    });
    expect(created.status).toBe(201);
    expect(await lineOf(gateway, "post-1")).toMatchObject({ method: "POST", route: "/v1/jobs", status: 201 });
    const read = await fetch(`${gateway.url}/v1/jobs/log-1`, { headers: { "x-request-id": "get-1", traceparent: TRACEPARENT } });
    expect(read.status).toBe(200);
    await read.text();
    const line = await lineOf(gateway, "get-1");
    expect(line).toMatchObject({ level: 30, msg: "request", method: "GET", route: "/v1/jobs/:jobId", status: 200, traceId: TRACE_ID });
    expect(line.durationMs).toBeTypeOf("number");
    expect(line.durationMs as number).toBeGreaterThan(0);
    expect(line.bytes as number).toBeGreaterThan(Number(read.headers.get("content-length")));
    expect(line).not.toHaveProperty("aborted");
    // The raw path is never logged, only the template.
    expect(JSON.stringify(line)).not.toContain("log-1");
  });

  it("counts exactly the bytes written to the connection, and logs a 404 with no route", async () => {
    const gateway = await gatewayWith();
    const raw = await openRaw(gateway.url, "GET /v1/nope HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: raw-1\r\nConnection: close\r\n\r\n");
    await raw.closed(5_000);
    const line = await lineOf(gateway, "raw-1");
    expect(line).toMatchObject({ method: "GET", route: null, status: 404, bytes: Buffer.byteLength(raw.received(), "latin1") });
    expect(line).not.toHaveProperty("traceId");
  });

  it("names the client by its address and user agent, and an unmatched request by its path without the query string", async () => {
    const gateway = await gatewayWith();
    const res = await fetch(`${gateway.url}/v1/nope/deeper?token=secret-1&x=2`, { headers: { "x-request-id": "who-1", "user-agent": "ops-probe/1.0" } });
    expect(res.status).toBe(404);
    const line = await lineOf(gateway, "who-1");
    expect(line).toMatchObject({ route: null, path: "/v1/nope/deeper", client: "127.0.0.1", userAgent: "ops-probe/1.0", status: 404 });
    expect(JSON.stringify(line)).not.toContain("secret-1");
  });

  it("names a matched request by its route template only, and leaves out a user agent the client did not send", async () => {
    const gateway = await gatewayWith();
    const raw = await openRaw(gateway.url, "GET /v1/jobs/who-2?x=1 HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: who-2\r\nConnection: close\r\n\r\n");
    await raw.closed(5_000);
    const line = await lineOf(gateway, "who-2");
    expect(line).toMatchObject({ route: "/v1/jobs/:jobId", client: "127.0.0.1", status: 404 });
    expect(line).not.toHaveProperty("path");
    expect(line).not.toHaveProperty("userAgent");
  });

  it(`cuts a hostile user agent and path at ${String(MAX_LOGGED_TEXT)} characters`, async () => {
    const gateway = await gatewayWith();
    const long = "A".repeat(6_000);
    const res = await fetch(`${gateway.url}/${long}?q=1`, { headers: { "x-request-id": "long-1", "user-agent": long } });
    expect(res.status).toBe(404);
    const line = await lineOf(gateway, "long-1");
    expect(line.userAgent).toBe(`${"A".repeat(MAX_LOGGED_TEXT)}${LOG_ELLIPSIS}`);
    expect(line.path).toBe(`/${"A".repeat(MAX_LOGGED_TEXT - 1)}${LOG_ELLIPSIS}`);
    expect(JSON.stringify(line).length).toBeLessThan(2_000);
  });

  it("leaves out /healthz and /readyz, and a malformed traceparent", async () => {
    const gateway = await gatewayWith();
    for (const path of ["/healthz", "/readyz", "/healthz"]) expect((await fetch(`${gateway.url}${path}`)).status).toBe(200);
    const res = await fetch(`${gateway.url}/v1/jobs/missing-1`, { headers: { "x-request-id": "after-probes", traceparent: "00-zz-00f067aa0ba902b7-01" } });
    expect(res.status).toBe(404);
    const line = await lineOf(gateway, "after-probes");
    expect(line).toMatchObject({ route: "/v1/jobs/:jobId", status: 404 });
    expect(line).not.toHaveProperty("traceId");
    expect(gateway.access()).toHaveLength(1);
  });

  it("logs an event stream the client leaves as aborted, with the status it was answered", async () => {
    const gateway = await gatewayWith();
    const controller = new AbortController();
    const res = await fetch(`${gateway.url}/v1/events`, { headers: { "x-request-id": "sse-1" }, signal: controller.signal });
    expect(res.status).toBe(200);
    const reader = res.body?.getReader();
    await reader?.read();
    controller.abort();
    const line = await lineOf(gateway, "sse-1");
    expect(line).toMatchObject({ method: "GET", route: "/v1/events", status: 200, aborted: true });
    expect(line.bytes as number).toBeGreaterThan(0);
  });

  it("logs a request whose client left before its body arrived in full as 499, not as the 400 answered to no one", async () => {
    const gateway = await gatewayWith();
    const head = "POST /v1/jobs HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: cut-1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n";
    const raw = await openRaw(gateway.url, head);
    // The 100 Continue says the request reached the gateway; then part of the body, and gone.
    await eventually(() => raw.received().includes("100 Continue"), "100 Continue");
    raw.socket.write('{"jobId": "cut-1"', "latin1");
    raw.socket.destroy();
    expect(await lineOf(gateway, "cut-1")).toMatchObject({ method: "POST", route: "/v1/jobs", status: 499 });
  });

  it("with --access-log errors, logs only 4xx and 5xx answers", async () => {
    const gateway = await gatewayWith(["--access-log", "errors"]);
    expect((await fetch(`${gateway.url}/openapi.json`, { headers: { "x-request-id": "ok-1" } })).status).toBe(200);
    expect((await fetch(`${gateway.url}/v1/jobs/missing-2`, { headers: { "x-request-id": "nf-1" } })).status).toBe(404);
    expect(await lineOf(gateway, "nf-1")).toMatchObject({ status: 404 });
    expect(gateway.access().map((line) => line.requestId)).toEqual(["nf-1"]);
  });

  it("with --access-log off, logs no request", async () => {
    const gateway = await gatewayWith(["--access-log", "off"]);
    expect((await fetch(`${gateway.url}/v1/jobs/missing-3`)).status).toBe(404);
    expect((await fetch(`${gateway.url}/openapi.json`)).status).toBe(200);
    expect(gateway.access()).toEqual([]);
  });
});

describe("readiness in the log", () => {
  it("logs the Manager failing /readyz once per change of state, at warn, without a stack, and its recovery at warn", async () => {
    const own = await startManager({ port: 0, dataDir: IN_MEMORY });
    const port = Number(own.address.split(":").at(-1));
    const gateway = await gateways.start([], { manager: own.address });
    const readiness = (): LogLine[] => gateway.lines.filter((line) => String(line.msg).startsWith("the Manager "));
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
    await own.close();
    for (let i = 0; i < 4; i++) expect((await fetch(`${gateway.url}/readyz`)).status).toBe(503);
    const back = await startManager({ port, dataDir: IN_MEMORY });
    let seen: LogLine[] = [];
    try {
      await expect.poll(async () => (await fetch(`${gateway.url}/readyz`)).status, { timeout: 20_000, interval: 200 }).toBe(200);
      expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
      // Before the Manager goes away again, which is a change of state of its own.
      seen = readiness();
    } finally {
      await back.close();
    }
    expect(seen.map((line) => [line.level, line.msg])).toEqual([
      [30, "the Manager is serving"],
      [40, "the Manager cannot be reached"],
      [40, "the Manager is serving again"],
    ]);
    expect(seen[1]).toMatchObject({ code: "UNAVAILABLE" });
    expect(seen[1]?.reason).toBeTypeOf("string");
    // Neither the readiness lines nor anything else logged for the probes carries a stack.
    expect(gateway.lines.filter((line) => line.level === 50)).toEqual([]);
    expect(JSON.stringify(gateway.lines)).not.toContain('"stack"');
  }, 30_000);
});

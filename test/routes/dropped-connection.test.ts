// When the Manager closes the HTTP/2 connection under a call (a GOAWAY with an error, as a Node
// Manager does after too many cancelled streams), a read is made once more and succeeds; a
// second loss, or a write, is a 503 problem, never a 500; a started event stream ends with an
// `error` event carrying that 503. The gateway talks to a real reference Manager through a
// proxy that closes the connection under the calls a test chooses.
import { STATUS_CODES } from "node:http";
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SSE_RETRY_MS } from "../../schemas/events.js";
import type { FastifyInstance, LightMyRequestResponse } from "fastify";
import { gatewayTo } from "../helpers/gateway.js";
import type { GatewayUnderTest } from "../helpers/gateway.js";
import { startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { startDroppingProxy } from "../helpers/dropping-proxy.js";
import type { DroppingProxy } from "../helpers/dropping-proxy.js";

let manager: RunningManager;
let proxy: DroppingProxy;
let gateway: GatewayUnderTest;
let app: FastifyInstance;
let url: string;
let job: Record<string, unknown>;

beforeAll(async () => {
  manager = await startManager({ port: 0, dataDir: ":memory:" });
  proxy = await startDroppingProxy(manager.address);
  gateway = await gatewayTo(proxy.address, { listen: true });
  ({ app, url } = gateway);
  const created = await app.inject({ method: "POST", url: "/v1/jobs", headers: { "content-type": "application/json" }, payload: { jobId: "x", startDateTime: "2026-01-01T00:00:00Z" } });
  expect(created.statusCode).toBe(201);
  job = created.json();
});
afterAll(async () => {
  await gateway.close();
  await proxy.close();
  await manager.close();
});

/** Calls of `method` the proxy receives while `action` runs. */
async function counting<T>(method: string, action: () => Promise<T>): Promise<{ result: T; calls: number }> {
  const before = proxy.calls.get(method) ?? 0;
  const result = await action();
  return { result, calls: (proxy.calls.get(method) ?? 0) - before };
}

function expectUnavailable(res: LightMyRequestResponse, instance: string): void {
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(res.json()).toEqual({
    type: "about:blank",
    title: STATUS_CODES[503],
    status: 503,
    detail: "the Manager is unavailable; try again later",
    instance,
    code: "UNAVAILABLE",
    requestId: res.headers["x-request-id"],
  });
}

describe("a read whose connection the Manager closes", () => {
  it("GET /v1/jobs/{jobId} is made once more: 200 with the job, after 2 JobSearch calls", async () => {
    proxy.drop("JobSearch", 1);
    const { result, calls } = await counting("JobSearch", () => app.inject({ method: "GET", url: "/v1/jobs/x" }));
    expect(result.statusCode).toBe(200);
    expect(result.json()).toEqual(job);
    expect(calls).toBe(2);
  });

  it("GET /v1/jobs/{jobId} that loses its connection twice is a 503 problem, after exactly 2 JobSearch calls", async () => {
    proxy.drop("JobSearch", 2);
    const { result, calls } = await counting("JobSearch", () => app.inject({ method: "GET", url: "/v1/jobs/x" }));
    expectUnavailable(result, "/v1/jobs/x");
    expect(calls).toBe(2);
  });

  it("GET /v1/jobs/{jobId}/instances is made once more: 200", async () => {
    proxy.drop("JobSearch", 1);
    const { result, calls } = await counting("JobSearch", () => app.inject({ method: "GET", url: "/v1/jobs/x/instances" }));
    expect(result.statusCode).toBe(200);
    expect(result.json()).toEqual({ instances: [] });
    expect(calls).toBe(2);
  });

  it("GET /v1/jobs (a search that has sent nothing yet) is made once more: 200 with the jobs", async () => {
    proxy.drop("JobSearch", 1);
    const { result, calls } = await counting("JobSearch", () => app.inject({ method: "GET", url: "/v1/jobs?id=x" }));
    expect(result.statusCode).toBe(200);
    expect(result.json()).toEqual({ jobs: [job] });
    expect(calls).toBe(2);
  });
});

describe("a write whose connection the Manager closes", () => {
  it("PUT is not made again (it may have been applied): a 503 problem after exactly 1 UpdateJob call", async () => {
    proxy.drop("UpdateJob", 1);
    const { result, calls } = await counting("UpdateJob", () =>
      app.inject({ method: "PUT", url: "/v1/jobs/x", headers: { "content-type": "application/json" }, payload: { jobId: "x", startDateTime: "2026-01-01T00:00:00Z" } }),
    );
    expectUnavailable(result, "/v1/jobs/x");
    expect(calls).toBe(1);
  });
});

/** Opens GET /v1/events and collects what arrives until `until(text)` holds; resolves with the status and text. */
function readEvents(until: (text: string) => boolean): Promise<{ status: number; text: string; requestId: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/v1/events`, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
        if (until(text)) {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, text, requestId: String(res.headers["x-request-id"]) });
        }
      });
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, text, requestId: String(res.headers["x-request-id"]) });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("an event stream whose connection the Manager closes", () => {
  it("is opened once more when that happens before the stream started: 200 and the current picture", async () => {
    proxy.drop("EventStream", 1);
    const { result, calls } = await counting("EventStream", () => readEvents((text) => text.includes("event: initialDataComplete")));
    expect(result.status).toBe(200);
    expect(result.text).toBe(`retry: ${String(SSE_RETRY_MS)}\n\nid: 1\nevent: initialDataComplete\ndata: {"health":[]}\n\n`);
    expect(calls).toBe(2);
  });

  it("ends with an `error` event carrying a 503 problem when that happens after it started", async () => {
    proxy.dropAfter("EventStream", 1);
    const { result, calls } = await counting("EventStream", () => readEvents((text) => text.includes("event: error")));
    expect(result.status).toBe(200);
    const frames = result.text.split("\n\n").filter((frame) => frame !== "");
    expect(frames.slice(0, 2)).toEqual([`retry: ${String(SSE_RETRY_MS)}`, 'id: 1\nevent: initialDataComplete\ndata: {"health":[]}']);
    const error = frames.find((frame) => frame.startsWith("event: error"));
    const data = JSON.parse(String(error?.split("\ndata: ")[1])) as Record<string, unknown>;
    expect(data).toEqual({
      type: "about:blank",
      title: STATUS_CODES[503],
      status: 503,
      detail: "the Manager is unavailable; try again later",
      instance: "/v1/events",
      code: "UNAVAILABLE",
      requestId: result.requestId,
    });
    expect(calls).toBe(1);
  });
});

// Per-client rate limits (src/server/rate-limit.ts) in front of a reference Manager: exact
// counts (N allowed with the RateLimit headers counting down, the next one a 429 problem with
// Retry-After), a new window after the old one ends, clients kept apart by address, by
// Authorization or by authenticated principal, probes and /metrics never counted, and a refused write that writes nothing.
import { afterEach, describe, expect, it } from "vitest";
import { ApiKeys } from "../../src/auth/api-keys.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";
import type { LightMyRequestResponse } from "fastify";
import type { AppOptions } from "../../src/app.js";
import { parseRate } from "../../src/server/rate-limit.js";
import { GatewayMetrics } from "../../src/telemetry/metrics.js";
import { JSON_HEADERS, startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { parseExposition, valueOf } from "../telemetry/prometheus-text.js";

let gw: TestGateway | undefined;

afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

async function gatewayWith(options: Omit<AppOptions, "connection">): Promise<TestGateway> {
  gw = await startTestGateway(options);
  return gw;
}

const MINUTE = 60_000;

function get(url: string, headers: Record<string, string> = {}, remoteAddress = "127.0.0.1"): Promise<LightMyRequestResponse> {
  if (gw === undefined) throw new Error("no gateway");
  return gw.app.inject({ method: "GET", url, headers, remoteAddress });
}

describe("--rate-limit's form", () => {
  it.each([
    ["100/s", 100, 1_000],
    ["6000/m", 6_000, MINUTE],
    ["50/10s", 50, 10_000],
    ["1000/h", 1_000, 3_600_000],
    ["1/2m", 1, 2 * MINUTE],
  ])("reads %s as %i requests per %i ms", (text, max, windowMs) => {
    expect(parseRate(text)).toEqual({ max, windowMs });
  });

  it.each(["0/s", "100", "100/", "100/d", "100/0s", "-1/s", "1.5/s", " 1/s"])("refuses %j", (text) => {
    expect(() => parseRate(text)).toThrow(/not a rate/);
  });
});

describe("a client within and past its limit", () => {
  it("answers exactly N requests, counting down RateLimit-Remaining, then a 429 problem with Retry-After and the RateLimit headers", async () => {
    await gatewayWith({ rateLimit: "3/m" });
    for (const remaining of ["2", "1", "0"]) {
      const allowed = await get("/v1/jobs/none");
      expect(allowed.statusCode).toBe(404);
      expect(allowed.headers["ratelimit-limit"]).toBe("3");
      expect(allowed.headers["ratelimit-remaining"]).toBe(remaining);
      expect(Number(allowed.headers["ratelimit-reset"])).toBeGreaterThan(0);
      expect(Number(allowed.headers["ratelimit-reset"])).toBeLessThanOrEqual(60);
    }
    const refused = await get("/v1/jobs/none", { "x-request-id": "limited-1" });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(refused.headers["x-request-id"]).toBe("limited-1");
    expect(refused.headers["ratelimit-limit"]).toBe("3");
    expect(refused.headers["ratelimit-remaining"]).toBe("0");
    const retryAfter = Number(refused.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers["ratelimit-reset"]).toBe(String(retryAfter));
    expect(refused.json()).toEqual({
      type: "about:blank",
      title: "Too Many Requests",
      status: 429,
      detail: `more than 3 requests in a minute; try again in ${String(retryAfter)} s`,
      instance: "/v1/jobs/none",
      requestId: "limited-1",
      code: "RESOURCE_EXHAUSTED",
    });
    // Every route counts against the same allowance.
    expect((await get("/v1/jobs")).statusCode).toBe(429);
  });

  it("allows N again once the window has passed", async () => {
    await gatewayWith({ rateLimit: "2/s" });
    expect((await get("/v1/jobs/none")).statusCode).toBe(404);
    expect((await get("/v1/jobs/none")).statusCode).toBe(404);
    const refused = await get("/v1/jobs/none");
    expect(refused.statusCode).toBe(429);
    expect(refused.headers["retry-after"]).toBe("1");
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const again = await get("/v1/jobs/none");
    expect(again.statusCode).toBe(404);
    expect(again.headers["ratelimit-remaining"]).toBe("1");
    expect((await get("/v1/jobs/none")).statusCode).toBe(404);
    expect((await get("/v1/jobs/none")).statusCode).toBe(429);
  });

  it("never counts nor refuses /healthz, /readyz and /metrics, and counts the refusals there", async () => {
    const metrics = new GatewayMetrics();
    await gatewayWith({ metrics, rateLimit: "1/m" });
    expect((await get("/v1/jobs/none")).statusCode).toBe(404);
    expect((await get("/v1/jobs/none")).statusCode).toBe(429);
    expect((await get("/v1/jobs/none")).statusCode).toBe(429);
    for (let i = 0; i < 5; i += 1) {
      for (const path of ["/healthz", "/readyz", "/metrics"]) {
        const probe = await get(path);
        expect(probe.statusCode).toBe(200);
        expect(probe.headers).not.toHaveProperty("ratelimit-limit");
      }
    }
    const samples = parseExposition((await get("/metrics")).body);
    expect(valueOf(samples, "gateway_requests_rate_limited_total")).toBe(2);
    expect(valueOf(samples, "http_requests_total", { route: "/v1/jobs/:jobId", status: "429" })).toBe(2);
  });
});

describe("clients", () => {
  it("are told apart by address: one client's refusals leave another's allowance whole", async () => {
    await gatewayWith({ rateLimit: "2/m" });
    expect((await get("/v1/jobs/none", {}, "10.0.0.1")).statusCode).toBe(404);
    expect((await get("/v1/jobs/none", {}, "10.0.0.1")).statusCode).toBe(404);
    expect((await get("/v1/jobs/none", {}, "10.0.0.1")).statusCode).toBe(429);
    // The same credentials from another address are another client.
    const other = await get("/v1/jobs/none", { authorization: "Bearer a" }, "10.0.0.2");
    expect(other.statusCode).toBe(404);
    expect(other.headers["ratelimit-remaining"]).toBe("1");
  });

  it("are told apart by Authorization with key \"authorization\", whatever their address; without one, by address", async () => {
    await gatewayWith({ rateLimit: "2/m", rateLimitKey: "authorization" });
    const alice = { authorization: "Bearer alice" };
    expect((await get("/v1/jobs/none", alice, "10.0.0.1")).statusCode).toBe(404);
    expect((await get("/v1/jobs/none", alice, "10.0.0.2")).statusCode).toBe(404);
    expect((await get("/v1/jobs/none", alice, "10.0.0.3")).statusCode).toBe(429);
    // Another token from alice's first address has its own allowance.
    const bob = await get("/v1/jobs/none", { authorization: "Bearer bob" }, "10.0.0.1");
    expect(bob.statusCode).toBe(404);
    expect(bob.headers["ratelimit-remaining"]).toBe("1");
    // No Authorization: the address is the client, apart from the tokens sent from it.
    expect((await get("/v1/jobs/none", {}, "10.0.0.1")).statusCode).toBe(404);
    expect((await get("/v1/jobs/none", {}, "10.0.0.1")).statusCode).toBe(404);
    expect((await get("/v1/jobs/none", {}, "10.0.0.1")).statusCode).toBe(429);
  });

  it("are told apart by principal with key \"principal\": two API keys from one address have their own allowances", async () => {
    const entry = (name: string) => ({ name, key: `key-of-${name}`, scopes: ["jobs:read"] });
    const keys = await apiKeysFile([entry("alice"), entry("bob")]);
    try {
      await gatewayWith({ rateLimit: "2/m", rateLimitKey: "principal", access: { apiKeys: new ApiKeys(keys.file) } });
      const alice = { "x-api-key": "key-of-alice" };
      expect((await get("/v1/jobs/none", alice, "10.0.0.1")).statusCode).toBe(404);
      expect((await get("/v1/jobs/none", alice, "10.0.0.1")).statusCode).toBe(404);
      expect((await get("/v1/jobs/none", alice, "10.0.0.1")).statusCode).toBe(429);
      const bob = await get("/v1/jobs/none", { "x-api-key": "key-of-bob" }, "10.0.0.1");
      expect(bob.statusCode).toBe(404);
      expect(bob.headers["ratelimit-remaining"]).toBe("1");
      // Without a principal (an open route), the address is the client, apart from the keys sent from it.
      expect((await get("/openapi.json", {}, "10.0.0.1")).headers["ratelimit-remaining"]).toBe("1");
    } finally {
      await keys.remove();
    }
  });
});

describe("a refused write", () => {
  it("writes nothing: the job stays as the last PUT allowed left it", async () => {
    const gateway = await gatewayWith({ rateLimit: "2/m" });
    const job = { jobId: "limited", startDateTime: "2026-12-24T18:00:00Z", description: "first" };
    expect((await gateway.app.inject({ method: "POST", url: "/v1/jobs", headers: JSON_HEADERS, payload: job })).statusCode).toBe(201);
    const put = (description: string) =>
      gateway.app.inject({ method: "PUT", url: "/v1/jobs/limited", headers: JSON_HEADERS, payload: { ...job, description } });
    expect((await put("second")).statusCode).toBe(200);
    const refused = await put("third");
    expect(refused.statusCode).toBe(429);
    const stored = await gateway.jobs();
    expect(stored.map((one) => [one.jobId?.jobId, one.description])).toEqual([["limited", "second"]]);
  });
});

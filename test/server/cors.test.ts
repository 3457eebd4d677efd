// CORS (src/server/cors.ts with the cross-site guard): off unless origins are configured; with
// them, preflights for every route answered for those origins only, the documented response
// headers exposed, credentials only when asked for, and "*" only when asked for. Through
// app.inject; test/e2e/cors-browser.test.ts runs a real browser against it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORS_METHODS, EXPOSED_HEADERS, PREFLIGHT_MAX_AGE_S } from "../../src/server/cors.js";
import type { AppSettings } from "../../src/app.js";
import { JSON_HEADERS, startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";

const UI = "https://ui.example.com";
const OTHER = "https://other.example.com";
const JOB = { startDateTime: "2026-01-01T00:00:00Z" };

/** Every route of the API, as a preflight would ask for it. */
const ROUTES: readonly [string, string][] = [
  ["GET", "/v1/jobs"],
  ["POST", "/v1/jobs"],
  ["POST", "/v1/jobs:search"],
  ["GET", "/v1/jobs/j1"],
  ["PUT", "/v1/jobs/j1"],
  ["PATCH", "/v1/jobs/j1"],
  ["DELETE", "/v1/jobs/j1"],
  ["POST", "/v1/jobs/j1/complete"],
  ["GET", "/v1/jobs/j1/instances"],
  ["POST", "/v1/jobs/j1/instances"],
  ["GET", "/v1/events"],
  ["GET", "/v1/status"],
  ["GET", "/healthz"],
];

const corsHeaders = (headers: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith("access-control-")));

function preflight(gw: TestGateway, method: string, url: string, origin: string, requestHeaders = "content-type, if-match") {
  return gw.app.inject({
    method: "OPTIONS",
    url,
    headers: { host: "localhost", origin, "access-control-request-method": method, "access-control-request-headers": requestHeaders },
  });
}

function withCors(cors: Partial<Pick<AppSettings, "corsOrigins" | "corsCredentials">>): () => TestGateway {
  let gw: TestGateway | undefined;
  beforeAll(async () => {
    gw = await startTestGateway(cors);
  });
  afterAll(async () => {
    await gw?.close();
  });
  return () => {
    if (gw === undefined) throw new Error("not started");
    return gw;
  };
}

describe("with --cors-origin https://ui.example.com", () => {
  const gw = withCors({ corsOrigins: [UI] });

  it.each(ROUTES)("answers the preflight of %s %s for that origin with 204 and its permissions", async (method, url) => {
    const res = await preflight(gw(), method, url, UI);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe("");
    expect(corsHeaders(res.headers)).toEqual({
      "access-control-allow-origin": UI,
      "access-control-allow-methods": CORS_METHODS.join(", "),
      "access-control-allow-headers": "content-type, if-match",
      "access-control-expose-headers": EXPOSED_HEADERS.join(", "),
      "access-control-max-age": String(PREFLIGHT_MAX_AGE_S),
    });
    expect(res.headers.vary).toMatch(/\bOrigin\b/);
  });

  it.each(ROUTES)("refuses the preflight of %s %s from another origin with a 403 problem naming it", async (method, url) => {
    const res = await preflight(gw(), method, url, OTHER);
    expect(res.statusCode).toBe(403);
    expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(corsHeaders(res.headers)).toEqual({});
    expect(res.json()).toMatchObject({
      status: 403,
      detail: "a page of another origin may not call this API",
      errors: [{ header: "origin", message: `"${OTHER}" is not an allowed origin (--cors-origin)` }],
    });
  });

  it("lets that origin's page create a job (POST), and exposes ETag, Location and X-Request-Id to it", async () => {
    const res = await gw().app.inject({ method: "POST", url: "/v1/jobs", headers: { ...JSON_HEADERS, host: "localhost", origin: UI }, payload: { ...JOB, jobId: "cors-put" } });
    expect(res.statusCode).toBe(201);
    expect(res.headers["access-control-allow-origin"]).toBe(UI);
    expect(res.headers["access-control-expose-headers"]).toBe("ETag, Location, X-Request-Id, Retry-After, Link, Deprecation, Sunset, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset");
    expect(res.headers["access-control-allow-credentials"]).toBeUndefined();
    expect(res.headers.etag).toBeDefined();
    expect(res.headers.location).toBe("/v1/jobs/cors-put");
  });

  it("gives that origin's page the problem of a failed request to read, with the CORS headers", async () => {
    const res = await gw().app.inject({ method: "GET", url: "/v1/jobs/nobody", headers: { host: "localhost", origin: UI } });
    expect(res.statusCode).toBe(404);
    expect(res.headers["access-control-allow-origin"]).toBe(UI);
  });

  it("refuses another origin's PUT with 403 and writes nothing", async () => {
    const res = await gw().app.inject({ method: "PUT", url: "/v1/jobs/cors-evil", headers: { ...JSON_HEADERS, host: "localhost", origin: OTHER }, payload: { ...JOB, jobId: "cors-evil" } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ errors: [{ header: "origin", message: `"${OTHER}" is not an allowed origin (--allowed-origin or --cors-origin)` }] });
    expect((await gw().jobs()).map((job) => job.jobId?.jobId)).not.toContain("cors-evil");
  });

  it("sends no Access-Control-Allow-Origin to another origin's GET, so its page cannot read the answer", async () => {
    const res = await gw().app.inject({ method: "GET", url: "/healthz", headers: { host: "localhost", origin: OTHER } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("matches the origin as a browser writes it: exactly, scheme and port included", async () => {
    for (const origin of ["http://ui.example.com", "https://ui.example.com:8443", "https://ui.example.com.evil.example"]) {
      expect((await preflight(gw(), "PUT", "/v1/jobs/j1", origin)).statusCode).toBe(403);
    }
  });
});

describe("with --cors-origin and --cors-credentials", () => {
  const gw = withCors({ corsOrigins: [UI], corsCredentials: true });

  it("allows credentials on the preflight and on the answer", async () => {
    expect((await preflight(gw(), "PUT", "/v1/jobs/j1", UI)).headers["access-control-allow-credentials"]).toBe("true");
    const res = await gw().app.inject({ method: "GET", url: "/healthz", headers: { host: "localhost", origin: UI } });
    expect(res.headers["access-control-allow-credentials"]).toBe("true");
  });
});

describe("with --cors-origin '*'", () => {
  const gw = withCors({ corsOrigins: ["*"] });

  it("answers any origin's preflight with Access-Control-Allow-Origin *", async () => {
    const res = await preflight(gw(), "PATCH", "/v1/jobs/j1", OTHER);
    expect(res.statusCode).toBe(204);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
  });

  it("lets any origin's page change things", async () => {
    const res = await gw().app.inject({ method: "POST", url: "/v1/jobs", headers: { ...JSON_HEADERS, host: "localhost", origin: OTHER }, payload: { ...JOB, jobId: "cors-any" } });
    expect(res.statusCode).toBe(201);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
  });
});

describe("without --cors-origin (the default)", () => {
  const gw = withCors({});

  it("sends no CORS header, and refuses a preflight from another origin with 403", async () => {
    const res = await preflight(gw(), "PUT", "/v1/jobs/j1", UI);
    expect(res.statusCode).toBe(403);
    expect(corsHeaders(res.headers)).toEqual({});
    const get = await gw().app.inject({ method: "GET", url: "/healthz", headers: { host: "localhost", origin: UI } });
    expect(corsHeaders(get.headers)).toEqual({});
  });

  it("answers a plain OPTIONS (no preflight) with 405 and the methods the path serves, as there is no OPTIONS route", async () => {
    const res = await gw().app.inject({ method: "OPTIONS", url: "/v1/jobs", headers: { host: "localhost" } });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe("GET, HEAD, POST");
  });
});

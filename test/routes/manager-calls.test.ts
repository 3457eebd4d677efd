// How requests become gRPC calls, seen from a Manager that records what it receives: deadlines
// (default and Grpc-Timeout), forwarded metadata, cancellation on disconnect, 5xx hygiene.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { request as httpRequest } from "node:http";
import { Code, GrpcError } from "norsk-manager-contract/grpc/index.js";
import { gatewayTo } from "../helpers/gateway.js";
import type { FastifyInstance } from "fastify";
import { stubGateway } from "../helpers/stub-manager.js";
import type { ManagerStub, StubGateway } from "../helpers/stub-manager.js";

interface Seen {
  metadata: Map<string, string>;
  deadline: number | undefined;
  aborted: boolean;
  startedAt: number;
  endedAt: number;
}
const seen: Seen = { metadata: new Map(), deadline: undefined, aborted: false, startedAt: 0, endedAt: 0 };
let behaviour: "hang" | "leak" = "hang";

async function hang(signal: AbortSignal): Promise<never> {
  await new Promise<void>((resolve) => {
    signal.addEventListener("abort", () => {
      resolve();
    });
  });
  seen.aborted = true;
  seen.endedAt = Date.now();
  throw new GrpcError(Code.CANCELLED, "cancelled");
}

// Only the calls these tests make do anything; the rest answer UNIMPLEMENTED.
const impl: ManagerStub = {
  deleteJob: async (_request, context) => {
    seen.metadata = new Map(context.metadata);
    seen.deadline = context.deadline;
    seen.startedAt = Date.now();
    if (behaviour === "leak") throw new GrpcError(Code.INTERNAL, "panic: nil map at /srv/manager/store.go:42 (10.1.2.3:6790)");
    return hang(context.signal);
  },
  jobSearch: async function* (_request, context) {
    seen.deadline = context.deadline;
    seen.startedAt = Date.now();
    yield* [];
    await hang(context.signal);
  },
};

let gw: StubGateway;
let app: FastifyInstance;

beforeAll(async () => {
  gw = await stubGateway(impl, { requestTimeoutMs: 1_500 });
  app = gw.app;
  await app.listen({ port: 0, host: "127.0.0.1" });
});

afterAll(async () => {
  await gw.close();
});

beforeEach(() => {
  behaviour = "hang";
  seen.aborted = false;
  seen.metadata = new Map();
  seen.startedAt = 0;
  seen.deadline = undefined;
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("calls to the Manager", () => {
  it("ends a call at the configured deadline with 504", async () => {
    const sent = Date.now();
    const res = await app.inject({ method: "DELETE", url: "/v1/jobs/x" });
    // The Manager saw the configured 1.5 s deadline, counted from when the call started: the
    // deadline is set before the Manager sees the call, so it is at most 1.5 s after that
    // (plus the clocks' rounding), however long a busy machine took to start it.
    expect((seen.deadline ?? 0) - sent).toBeGreaterThan(1_000);
    expect((seen.deadline ?? Infinity) - seen.startedAt).toBeLessThanOrEqual(1_550);
    expect(res.statusCode).toBe(504);
    expect(res.json()).toMatchObject({ code: "DEADLINE_EXCEEDED", status: 504 });
    await until(() => seen.aborted);
    expect(seen.aborted).toBe(true);
  });

  it("shortens the deadline to a valid Grpc-Timeout", async () => {
    const res = await app.inject({ method: "DELETE", url: "/v1/jobs/x", headers: { "grpc-timeout": "100m" } });
    expect(res.statusCode).toBe(504);
    // The deadline the Manager received is the header's 100 ms, not the configured 1.5 s.
    expect((seen.deadline ?? Infinity) - seen.startedAt).toBeLessThanOrEqual(150);
  });

  it("never lengthens the deadline beyond the configured one", async () => {
    const res = await app.inject({ method: "DELETE", url: "/v1/jobs/x", headers: { "grpc-timeout": "1H" } });
    expect(res.statusCode).toBe(504);
    expect((seen.deadline ?? Infinity) - seen.startedAt).toBeLessThanOrEqual(1_550);
  });

  it("forwards only the allow-listed headers as metadata", async () => {
    await app.inject({
      method: "DELETE",
      url: "/v1/jobs/x",
      headers: {
        "grpc-timeout": "50m",
        authorization: "Bearer token",
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "x-request-id": "req-42",
        "grpc-metadata-tenant": "acme",
        cookie: "secret=1",
        "x-forwarded-for": "203.0.113.9",
      },
    });
    expect(seen.metadata.get("authorization")).toBe("Bearer token");
    expect(seen.metadata.get("traceparent")).toBe("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    expect(seen.metadata.get("x-request-id")).toBe("req-42");
    expect(seen.metadata.get("tenant")).toBe("acme");
    expect(seen.metadata.has("cookie")).toBe(false);
    expect(seen.metadata.has("x-forwarded-for")).toBe(false);
    expect(seen.metadata.has("grpc-metadata-tenant")).toBe(false);
  });

  it("cancels the gRPC call when the HTTP client disconnects", async () => {
    const address = app.server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    const req = httpRequest({ host: "127.0.0.1", port: address.port, path: "/v1/jobs/x", method: "GET" });
    req.on("error", () => undefined);
    req.end();
    await until(() => seen.startedAt > 0 && Date.now() - seen.startedAt > 50);
    seen.aborted = false;
    const disconnectedAt = Date.now();
    req.destroy();
    await until(() => seen.aborted);
    expect(seen.aborted).toBe(true);
    // Cancelled by the disconnect, before the deadline would have ended it.
    expect(seen.endedAt).toBeGreaterThanOrEqual(disconnectedAt);
    expect(seen.endedAt).toBeLessThan(seen.deadline ?? 0);
  });

  it("says nothing about internals in a 5xx", async () => {
    behaviour = "leak";
    const res = await app.inject({ method: "DELETE", url: "/v1/jobs/x" });
    expect(res.statusCode).toBe(500);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.body).not.toMatch(/panic|\/srv\/|10\.1\.2\.3|store\.go/);
    expect(res.json()).toMatchObject({ status: 500, code: "INTERNAL" });
  });
});

describe("readiness", () => {
  it("is not ready when the Manager does not serve grpc.health.v1 SERVING", async () => {
    // This Manager has no health service: the check fails (UNIMPLEMENTED), so 503.
    const res = await app.inject({ method: "GET", url: "/readyz" });
    expect(res.statusCode).toBe(503);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  });

  it("is not ready when nothing listens at the Manager's address, and still alive", async () => {
    const lonely = await gatewayTo("127.0.0.1:1", { requestTimeoutMs: 500 });
    try {
      expect((await lonely.app.inject({ method: "GET", url: "/readyz" })).statusCode).toBe(503);
      expect((await lonely.app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
      const res = await lonely.app.inject({ method: "GET", url: "/v1/jobs/a" });
      expect(res.statusCode).toBe(503);
      expect(res.body).not.toContain("127.0.0.1:1");
    } finally {
      await lonely.close();
    }
  });
});

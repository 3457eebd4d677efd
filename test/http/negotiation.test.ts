// HTTP semantics read from the routes (src/http/negotiation.ts) and Retry-After on every 503
// (src/http/retry-after.ts): a known path with a method it is not served with is a 405 whose
// Allow lists the methods it is (HEAD with GET; OPTIONS where CORS answers preflights), an
// unknown path a 404 still; an Accept that admits nothing the operation answers with is a 406
// naming the header; every 503 (the Manager unreachable, /readyz, a shutdown) has Retry-After.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { CurrentJobSchema, JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { acceptQ, admitsAny } from "../../src/http/media-type.js";
import { gatewayTo, startTestGateway } from "../helpers/gateway.js";
import type { GatewayUnderTest, TestGateway } from "../helpers/gateway.js";
import { openRaw } from "../helpers/raw-socket.js";
import { stubGateway } from "../helpers/stub-manager.js";
import type { StubGateway } from "../helpers/stub-manager.js";

const HOST = { host: "localhost" };

describe("acceptQ", () => {
  it.each([
    ["application/json", "application/json", 1],
    ["*/*", "application/json", 1],
    ["application/*;q=0.5", "application/json", 0.5],
    ["text/csv", "application/json", 0],
    ["*/*, application/json;q=0", "application/json", 0],
    ["application/json;q=0, application/*", "application/json", 0],
    ["application/json;q=0.2, application/json;q=0.7", "application/json", 0.7],
    ["application/json;q=x, text/csv", "application/json", 0],
    ["APPLICATION/JSON", "application/json", 1],
  ])("for Accept %j and %s is %d", (accept, type, q) => {
    expect(acceptQ(accept, type)).toBe(q);
  });

  it("admits anything when Accept is absent or blank", () => {
    expect(admitsAny(undefined, ["application/json"])).toBe(true);
    expect(admitsAny("  ", ["application/json"])).toBe(true);
    expect(admitsAny("text/csv", ["application/json", "application/x-ndjson"])).toBe(false);
  });
});

describe("a gateway in front of the reference Manager", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw.close();
  });

  it.each([
    ["PUT", "/healthz", "GET, HEAD"],
    ["DELETE", "/v1/jobs", "GET, HEAD, POST"],
    ["POST", "/v1/jobs/j1", "GET, HEAD, PUT, PATCH, DELETE"],
    ["GET", "/v1/jobs/j1/complete", "POST"],
    ["OPTIONS", "/v1/jobs/j1/instances", "GET, HEAD, POST"],
  ])("answers %s %s with 405, a problem, and Allow: %s", async (method, url, allow) => {
    const response = await gw.app.inject({ method: method as "GET", url, headers: HOST });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 405, title: "Method Not Allowed", detail: `${method} is not served at this path; Allow lists the methods that are` });
  });

  it("still answers 404, without Allow, for a path no route serves", async () => {
    const response = await gw.app.inject({ method: "DELETE", url: "/v1/nothing?x=1", headers: HOST });
    expect(response.statusCode).toBe(404);
    expect(response.headers.allow).toBeUndefined();
  });

  it.each([
    ["text/csv"],
    ["application/json;q=0"],
    ["*/*, application/json;q=0"],
    ["application/x-ndjson"],
  ])("answers GET /v1/jobs/{id} with Accept %j with a 406 naming the header", async (accept) => {
    const response = await gw.app.inject({ method: "GET", url: "/v1/jobs/j1", headers: { ...HOST, accept } });
    expect(response.statusCode).toBe(406);
    expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 406, errors: [{ header: "accept", message: "admits none of application/json" }] });
  });

  it.each([["application/json"], ["*/*"], ["application/*"], ["text/csv, application/json;q=0.1"], [""]])(
    "serves GET /v1/jobs/{id} with Accept %j (404 from the Manager, not 406)",
    async (accept) => {
      const response = await gw.app.inject({ method: "GET", url: "/v1/jobs/absent", headers: { ...HOST, accept } });
      expect(response.statusCode).toBe(404);
    },
  );

  it("serves the job list as NDJSON and refuses it as CSV", async () => {
    const ndjson = await gw.app.inject({ method: "GET", url: "/v1/jobs", headers: { ...HOST, accept: "application/x-ndjson" } });
    expect(ndjson.statusCode).toBe(200);
    const csv = await gw.app.inject({ method: "GET", url: "/v1/jobs", headers: { ...HOST, accept: "text/csv" } });
    expect(csv.statusCode).toBe(406);
    expect(csv.json<{ detail: string }>().detail).toContain("application/json, application/x-ndjson");
  });

  it("refuses an event stream to a client that accepts only JSON", async () => {
    const response = await gw.app.inject({ method: "GET", url: "/v1/events", headers: { ...HOST, accept: "application/json" } });
    expect(response.statusCode).toBe(406);
  });

  it("does not negotiate an answer without content: DELETE with Accept: text/csv reaches the Manager", async () => {
    const response = await gw.app.inject({ method: "DELETE", url: "/v1/jobs/absent", headers: { ...HOST, accept: "text/csv" } });
    expect(response.statusCode).toBe(404);
  });
});

describe("with CORS on", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ corsOrigins: ["https://ui.example.com"] });
  });
  afterAll(async () => {
    await gw.close();
  });

  it("lists OPTIONS in Allow, as preflights are answered on every path", async () => {
    const response = await gw.app.inject({ method: "PUT", url: "/healthz", headers: HOST });
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe("GET, HEAD, OPTIONS");
  });

  it("does not take the preflight's catch-all for a known path", async () => {
    const response = await gw.app.inject({ method: "GET", url: "/v1/nothing", headers: HOST });
    expect(response.statusCode).toBe(404);
    expect(response.headers.allow).toBeUndefined();
  });
});

describe("Retry-After on every 503", () => {
  let gw: GatewayUnderTest;
  beforeAll(async () => {
    // Nothing listens there: every call to the Manager is UNAVAILABLE.
    gw = await gatewayTo("127.0.0.1:1", { shedRetryAfterS: 7 });
  });
  afterAll(async () => {
    await gw.close();
  });

  it.each([["/v1/jobs/j1"], ["/readyz"], ["/v1/jobs"]])("GET %s with the Manager unreachable is a 503 with Retry-After", async (url) => {
    const response = await gw.app.inject({ method: "GET", url, headers: HOST });
    expect(response.statusCode).toBe(503);
    expect(response.headers["retry-after"]).toBe("7");
  });
});

describe("a request that arrives while the gateway shuts down", () => {
  let gw: StubGateway;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });

  beforeAll(async () => {
    gw = await stubGateway({
      jobSearch: async function* () {
        await held;
        yield create(CurrentJobSchema, { job: create(JobSchema, { jobId: { jobId: "slow" } }) });
      },
    }, { requestTimeoutMs: 10_000 });
  });
  afterAll(() => {
    release();
    gw.manager.close();
  });

  it("is a 503 problem with Retry-After, not fastify's bare JSON", async () => {
    const url = await gw.app.listen({ port: 0, host: "127.0.0.1" });
    // A request in flight, held by the stub Manager until the shutdown has begun; its
    // connection stays open after its answer (it was not idle when the server closed), and the
    // next request on it arrives while the gateway shuts down.
    const raw = await openRaw(url, "GET /v1/jobs/slow HTTP/1.1\r\nHost: localhost\r\n\r\n");
    while (gw.manager.calls.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const closed = gw.app.close();
    // The shutdown has begun once the server stops listening (after the preClose hooks).
    while (gw.app.server.listening) await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    while (!raw.received().endsWith("}")) await new Promise((resolve) => setTimeout(resolve, 10));
    const first = raw.received().length;
    raw.socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await raw.closed(10_000);
    await closed;
    const second = raw.received().slice(first);
    expect(second).toMatch(/^HTTP\/1\.1 503 /);
    expect(second).toMatch(/\r\nretry-after: 5\r\n/i);
    expect(second).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(second).toContain('"detail":"the gateway is shutting down; try again after the Retry-After delay"');
  });
});

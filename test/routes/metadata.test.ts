// Which request headers reach the Manager as gRPC metadata, seen from a Manager that records
// what it receives: the allow-listed ones as sent, and a header that metadata cannot carry or
// that would override a reserved key refused with a 400 naming it before any call starts, on
// REST routes and on the event streams alike.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { emptyPicture, statusHello, stubGateway } from "../helpers/stub-manager.js";
import type { StubGateway } from "../helpers/stub-manager.js";

let gw: StubGateway;

beforeAll(async () => {
  // The RPCs behind ROUTES, each answering as plainly as it can.
  gw = await stubGateway({ createJob: () => ({ hash: 1n }), deleteJob: () => ({}), createStatusChannel: statusHello, eventStream: emptyPicture });
});
afterAll(async () => {
  await gw.close();
});
beforeEach(() => {
  gw.manager.reset();
});

const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

/** A route of each kind: unary, unary with a body, and both event streams. */
const ROUTES = [
  { name: "DELETE /v1/jobs/x", method: "DELETE", url: "/v1/jobs/x" },
  {
    name: "POST /v1/jobs",
    method: "POST",
    url: "/v1/jobs",
    payload: { jobId: "j", startDateTime: "2026-01-01T00:00:00Z" },
  },
  { name: "GET /v1/events", method: "GET", url: "/v1/events" },
  { name: "GET /v1/status", method: "GET", url: "/v1/status" },
] as const;

function metadataOf(index = 0): Record<string, string> {
  const call = gw.manager.calls[index];
  if (call === undefined) throw new Error("the Manager received no call");
  const seen = Object.fromEntries(call.metadata);
  // grpc-js adds its own; they are not the client's doing.
  delete seen["user-agent"];
  delete seen["grpc-accept-encoding"];
  return seen;
}

describe("metadata the Manager receives", () => {
  it.each(ROUTES)("is the allow-listed headers as sent, on $name", async (route) => {
    const res = await gw.app.inject({
      ...route,
      headers: {
        authorization: "Bearer a",
        traceparent: TRACEPARENT,
        tracestate: "vendor=1,other=2",
        "x-request-id": "req-7",
        "grpc-metadata-tenant": "acme",
        cookie: "session=1",
      },
    });
    expect(res.statusCode).toBeLessThan(300);
    expect(metadataOf()).toEqual({
      authorization: "Bearer a",
      traceparent: TRACEPARENT,
      tracestate: "vendor=1,other=2",
      "x-request-id": "req-7",
      tenant: "acme",
    });
  });
});

describe("headers that cannot become metadata", () => {
  it("refuses Grpc-Metadata-Authorization and Grpc-Metadata-X-Request-Id, naming both, and calls nothing", async () => {
    const res = await gw.app.inject({
      method: "DELETE",
      url: "/v1/jobs/x",
      headers: {
        authorization: "Bearer a",
        "grpc-metadata-authorization": "other",
        "grpc-metadata-x-request-id": "spoofed",
        "x-request-id": "req-8",
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(res.json()).toEqual({
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      detail: "the request headers are invalid",
      instance: "/v1/jobs/x",
      requestId: "req-8",
      code: "INVALID_ARGUMENT",
      errors: [
        { header: "grpc-metadata-authorization", message: "cannot set authorization: send it as the Authorization header" },
        { header: "grpc-metadata-x-request-id", message: "cannot set x-request-id: send it as the X-Request-Id header" },
      ],
    });
    expect(gw.manager.calls).toEqual([]);
  });

  const BAD = [
    { header: "grpc-metadata-a!b", value: "x" },
    { header: "authorization", value: "Bearer caf\u00e9" },
    { header: "authorization", value: "Bearer a\tb" },
    // UTF-8 "café" as node hands it over: one latin1 character per byte.
    { header: "grpc-metadata-foo", value: "caf\u00c3\u00a9" },
    { header: "tracestate", value: "a=\u00ff" },
    { header: "grpc-metadata-traceparent", value: TRACEPARENT },
    { header: "grpc-metadata-grpc-timeout", value: "1S" },
    { header: "grpc-metadata-connection", value: "close" },
    { header: "grpc-metadata-content-length", value: "1" },
    { header: "grpc-metadata-blob-bin", value: "AAEC" },
  ] as const;

  const CASES = ROUTES.flatMap((route) => BAD.map((bad) => ({ ...route, ...bad })));

  it.each(CASES)("refuses $header: $value on $name with a 400 naming it, and calls nothing", async ({ header, value, ...route }) => {
    const res = await gw.app.inject({ ...route, headers: { [header]: value } });
    expect(res.statusCode).toBe(400);
    expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    const problem = res.json<{ detail: string; errors: { header: string }[] }>();
    expect(problem.detail).toBe("the request headers are invalid");
    expect(problem.errors.map((e) => e.header)).toEqual([header]);
    expect(gw.manager.calls).toEqual([]);
  });
});

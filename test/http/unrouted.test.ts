// Requests that never reach a route, sent as raw bytes to a listening gateway (app.inject cannot
// send most of them): each is answered with a problem like every other answer, quoting nothing
// of the request, its instance a urn:uuid naming the occurrence; and nothing is written.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";
import { openRaw, parseResponse } from "../helpers/raw-socket.js";

let gw: ListeningGateway;

beforeAll(async () => {
  gw = await startListeningGateway();
});
afterAll(async () => {
  await gw.close();
});

interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Writes `bytes` (as UTF-8) on a fresh connection and reads the one answer, until the server closes it. */
async function send(bytes: string): Promise<RawAnswer> {
  const connection = await openRaw(gw.url, Buffer.from(bytes, "utf8").toString("latin1"));
  await connection.closed(15_000);
  const { statusLine, headers, body } = parseResponse(connection.received());
  return { status: Number(statusLine.split(" ")[1]), headers, body: Buffer.from(body, "latin1").toString("utf8") };
}

const UNROUTED_INSTANCE = /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LONG = "a".repeat(100_000);

const CASES = [
  { name: "bad percent-encoding", bytes: "GET /v1/jobs/%ZZ HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", status: 400, detail: "the URL's path is not valid percent-encoded UTF-8", quoted: "%ZZ" },
  { name: "percent-encoded invalid UTF-8", bytes: "GET /v1/jobs/%C3%28 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", status: 400, detail: "the URL's path is not valid percent-encoded UTF-8", quoted: "%C3%28" },
  { name: "a path segment over the router's limit", bytes: `GET /v1/jobs/${"b".repeat(3000)} HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`, status: 414, detail: "a segment of the URL's path is too long", quoted: "bbbbbbbb" },
  { name: "a 100 KB URL", bytes: `GET /v1/jobs/${LONG} HTTP/1.1\r\nHost: h\r\n\r\n`, status: 431, detail: "the request line and headers together are larger than 16384 bytes", quoted: "aaaaaaaa" },
  { name: "a 100 KB header", bytes: `GET /v1/jobs HTTP/1.1\r\nHost: h\r\nX-Big: ${LONG}\r\n\r\n`, status: 431, detail: "the request line and headers together are larger than 16384 bytes", quoted: "aaaaaaaa" },
  {
    name: "bad chunking",
    // A name the gateway serves: the headers are whole, so a Host it does not serve would be
    // refused (421) by the cross-site guard before the body is read.
    bytes: 'POST /v1/jobs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{"jobId":"chunked","startDateTime":"2026-01-01T00:00:00Z"}\r\n0\r\n\r\n',
    status: 400,
    detail: "the chunked request body is malformed",
    quoted: "ZZ",
  },
  {
    name: "Content-Length with Transfer-Encoding",
    bytes: 'POST /v1/jobs HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 58\r\nTransfer-Encoding: chunked\r\n\r\n3a\r\n{"jobId":"smuggled","startDateTime":"2026-01-01T00:00:00Z"}\r\n0\r\n\r\n',
    status: 400,
    detail: "Content-Length and Transfer-Encoding must not be sent together",
    quoted: "smuggled",
  },
  { name: "a request line that is not HTTP", bytes: "HELLO <script>\r\n\r\n", status: 400, detail: "the request is not valid HTTP/1.1", quoted: "script" },
  { name: "a control character in a header", bytes: "GET /v1/jobs HTTP/1.1\r\nHost: h\r\nX-A: a\u0001secret\r\n\r\n", status: 400, detail: "a request header holds a character HTTP does not allow", quoted: "secret" },
] as const;

describe("requests node or the router cannot take", () => {
  it.each(CASES)("answers $name with a $status problem that quotes nothing, and writes nothing", async ({ bytes, status, detail, quoted }) => {
    const answer = await send(bytes);
    expect(answer.status).toBe(status);
    expect(answer.headers["content-type"]).toMatch(/^application\/problem\+json(; charset=utf-8)?$/);
    const requestId = answer.headers["x-request-id"] ?? "";
    expect(requestId).not.toBe("");
    expect(JSON.parse(answer.body)).toEqual({
      type: "about:blank",
      title: expect.any(String) as unknown,
      status,
      detail,
      instance: expect.stringMatching(UNROUTED_INSTANCE) as unknown,
      requestId,
      ...(status === 400 ? { code: "INVALID_ARGUMENT" } : {}),
    });
    expect(answer.body).not.toContain(quoted);
    expect(await gw.jobs()).toEqual([]);
  });

  it("names a fresh occurrence in each instance", async () => {
    const [first, second] = await Promise.all([CASES[0], CASES[0]].map((c) => send(c.bytes)));
    const instances = [first, second].map((a) => (JSON.parse(a?.body ?? "{}") as { instance: string }).instance);
    expect(new Set(instances).size).toBe(2);
  });

  it("keeps a valid X-Request-Id for a URL the router refuses", async () => {
    const answer = await send("GET /v1/jobs/%ZZ HTTP/1.1\r\nHost: h\r\nX-Request-Id: trace-42\r\nConnection: close\r\n\r\n");
    expect(answer.headers["x-request-id"]).toBe("trace-42");
    expect(JSON.parse(answer.body)).toMatchObject({ status: 400, requestId: "trace-42" });
  });
});

describe("requests node would answer itself", () => {
  it("answers an HTTP/1.1 request without Host with a 400 problem naming the header", async () => {
    const answer = await send("GET /healthz HTTP/1.1\r\nX-Request-Id: no-host\r\nConnection: close\r\n\r\n");
    expect(answer.status).toBe(400);
    expect(answer.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(JSON.parse(answer.body)).toEqual({
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      detail: "the request has no Host header",
      instance: "/healthz",
      requestId: "no-host",
      code: "INVALID_ARGUMENT",
      errors: [{ header: "host", message: "is required in HTTP/1.1" }],
    });
  });

  it("answers a HEAD it cannot read with a problem's headers and no content", async () => {
    const answer = await send("HEAD /\u00e9 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n[]");
    expect(answer.status).toBe(400);
    expect(answer.headers["content-type"]).toBe("application/problem+json");
    expect(Number(answer.headers["content-length"])).toBeGreaterThan(0);
    expect(answer.body).toBe("");
  });

  it("still serves an HTTP/1.0 request without Host", async () => {
    const answer = await send("GET /healthz HTTP/1.0\r\n\r\n");
    expect(answer.status).toBe(200);
  });

  it("answers an expectation other than 100-continue with a 417 problem naming Expect", async () => {
    const answer = await send("GET /healthz HTTP/1.1\r\nHost: h\r\nExpect: teapot\r\nConnection: close\r\n\r\n");
    expect(answer.status).toBe(417);
    expect(answer.headers["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(answer.body)).toEqual({
      type: "about:blank",
      title: "Expectation Failed",
      status: 417,
      detail: "the only expectation this gateway meets is 100-continue",
      instance: expect.stringMatching(UNROUTED_INSTANCE) as unknown,
      requestId: answer.headers["x-request-id"],
      errors: [{ header: "expect", message: "is not 100-continue" }],
    });
  });
});

describe("fastify's own refusals", () => {
  it("answers an unknown route with a 404 problem that does not quote the path in its detail", async () => {
    const res = await gw.app.inject({ method: "GET", url: "/v1/nowhere", headers: { "x-request-id": "r-404" } });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      type: "about:blank",
      title: "Not Found",
      status: 404,
      detail: "no route matches the method and path",
      instance: "/v1/nowhere",
      requestId: "r-404",
    });
  });

  it("says which part of the request is invalid in plain words: the path parameters", async () => {
    const res = await gw.app.inject({ method: "GET", url: `/v1/jobs/${"a".repeat(300)}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ detail: "the path parameters are invalid", errors: [{ parameter: "jobId" }] });
  });

  it("answers a write in a media type it has no reader for with a 415 naming Content-Type, without quoting it", async () => {
    const res = await gw.app.inject({ method: "POST", url: "/v1/jobs", headers: { "content-type": "text/x-secret-type" }, payload: "x" });
    expect(res.statusCode).toBe(415);
    expect(res.body).not.toContain("secret");
    expect(res.json()).toMatchObject({
      status: 415,
      // The cross-site guard (src/server/cross-site.ts) refuses it before the body is read.
      detail: "a request that changes something takes a JSON body (application/json, application/merge-patch+json or application/json-patch+json), or none",
      errors: [{ header: "content-type", message: "is not a JSON media type" }],
    });
  });
});

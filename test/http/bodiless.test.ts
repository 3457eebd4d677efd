// Answers without content (src/http/bodiless.ts), read off a real socket, since fastify's
// inject and every HTTP client hide what the headers announce: a 304 or 204 has no
// Content-Type, no Content-Length and no bytes of body; a 202 without a body says so with
// Content-Length: 0; a HEAD announces the GET's length. On one keep-alive connection, the
// answer after a 304 is read intact, which a stray Content-Length would break.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isBodiless } from "../../src/http/bodiless.js";
import { startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";
import { openRaw, parseResponse } from "../helpers/raw-socket.js";
import type { RawResponse } from "../helpers/raw-socket.js";

const HANG_MS = 5_000;
const JOB = { jobId: "bodiless-1", startDateTime: "2026-12-24T18:00:00Z", description: "no body here" };

let gw: ListeningGateway;
let etag: string;
let getLength: number;

beforeAll(async () => {
  gw = await startListeningGateway();
  const created = await fetch(`${gw.url}/v1/jobs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(JOB) });
  etag = created.headers.get("etag") ?? "";
  getLength = (await (await fetch(`${gw.url}/v1/jobs/${JOB.jobId}`)).arrayBuffer()).byteLength;
});

afterAll(async () => {
  await gw.close();
});

/** Sends one request with Connection: close and returns everything received until the server closes. */
async function exchangeText(method: string, path: string, headers: Record<string, string> = {}, body = ""): Promise<string> {
  const lines = [`${method} ${path} HTTP/1.1`, "Host: 127.0.0.1", "Connection: close", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (body !== "") lines.push("Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`);
  const connection = await openRaw(gw.url, `${lines.join("\r\n")}\r\n\r\n${body}`);
  await connection.closed(HANG_MS);
  return connection.received();
}

async function exchange(method: string, path: string, headers: Record<string, string> = {}, body = ""): Promise<RawResponse> {
  return parseResponse(await exchangeText(method, path, headers, body));
}

/** No content, and no header that describes content. */
function expectNoContent(answer: RawResponse, statusLine: string): void {
  expect(answer.statusLine).toBe(statusLine);
  expect(answer.headers).not.toHaveProperty("content-type");
  expect(answer.headers).not.toHaveProperty("content-length");
  expect(answer.headers).not.toHaveProperty("transfer-encoding");
  expect(answer.body).toBe("");
}

describe("bodiless statuses", () => {
  it("are 1xx, 204 and 304", () => {
    expect([100, 103, 199, 204, 304].map(isBodiless)).toEqual([true, true, true, true, true]);
    expect([200, 201, 202, 205, 300, 400, 412].map(isBodiless)).toEqual([false, false, false, false, false, false, false]);
  });
});

describe("304 Not Modified", () => {
  it("GET: the ETag and request id, no Content-Type, no Content-Length, no body", async () => {
    const answer = await exchange("GET", `/v1/jobs/${JOB.jobId}`, { "If-None-Match": etag, "X-Request-Id": "cond-get-1" });
    expectNoContent(answer, "HTTP/1.1 304 Not Modified");
    expect(answer.headers.etag).toBe(etag);
    expect(answer.headers["x-request-id"]).toBe("cond-get-1");
  });

  it("HEAD: the same headers as the GET's 304", async () => {
    const answer = await exchange("HEAD", `/v1/jobs/${JOB.jobId}`, { "If-None-Match": etag });
    expectNoContent(answer, "HTTP/1.1 304 Not Modified");
    expect(answer.headers.etag).toBe(etag);
  });

  it("on a keep-alive connection, the answer after it is read whole", async () => {
    const get = (extra: string) => `GET /v1/jobs/${JOB.jobId} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`;
    const connection = await openRaw(gw.url, get(`If-None-Match: ${etag}\r\n`) + get("Connection: close\r\n"));
    await connection.closed(HANG_MS);
    const text = connection.received();
    const second = text.indexOf("HTTP/1.1 200 OK");
    expectNoContent(parseResponse(text.slice(0, second)), "HTTP/1.1 304 Not Modified");
    const ok = parseResponse(text.slice(second));
    expect(Number(ok.headers["content-length"])).toBe(Buffer.byteLength(ok.body));
    expect(JSON.parse(ok.body)).toMatchObject({ jobId: JOB.jobId, currentHash: JSON.parse(etag) as string });
  });
});

describe("HEAD 200", () => {
  it("announces the GET's Content-Type and Content-Length and sends no body", async () => {
    const answer = await exchange("HEAD", `/v1/jobs/${JOB.jobId}`);
    expect(answer.statusLine).toBe("HTTP/1.1 200 OK");
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(Number(answer.headers["content-length"])).toBe(getLength);
    expect(answer.body).toBe("");
  });
});

describe("204 No Content", () => {
  it("DELETE /v1/jobs/{jobId}/instances/{role}", async () => {
    const started = await fetch(`${gw.url}/v1/jobs/${JOB.jobId}/instances`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ role: "main", nodeId: "n-1" }),
    });
    expect(started.status).toBe(201);
    expectNoContent(await exchange("DELETE", `/v1/jobs/${JOB.jobId}/instances/main?nodeId=n-1`), "HTTP/1.1 204 No Content");
  });

  it("POST /v1/jobs/{jobId}/complete", async () => {
    expectNoContent(await exchange("POST", `/v1/jobs/${JOB.jobId}/complete`), "HTTP/1.1 204 No Content");
  });

  it("DELETE /v1/jobs/{jobId}", async () => {
    expectNoContent(await exchange("DELETE", `/v1/jobs/${JOB.jobId}`), "HTTP/1.1 204 No Content");
  });
});

describe("202 Accepted without a body", () => {
  it("DELETE /v1/nodes/{nodeId}: Content-Length: 0, no Content-Type, no body", async () => {
    const node = { nodeId: "bodiless-node", region: "eu-west-1", instanceType: "c5.large" };
    expect((await fetch(`${gw.url}/v1/nodes/aws`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(node) })).status).toBe(202);
    const answer = await exchange("DELETE", `/v1/nodes/${node.nodeId}`);
    expect(answer.statusLine).toBe("HTTP/1.1 202 Accepted");
    expect(answer.headers["content-length"]).toBe("0");
    expect(answer.headers).not.toHaveProperty("content-type");
    expect(answer.body).toBe("");
  });
});

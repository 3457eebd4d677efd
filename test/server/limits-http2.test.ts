// HTTP/2's limits (src/server/limits.ts: secureServerOptions, applyHttp2Limits) on the real TLS
// listener of an app in front of a reference Manager: what the server advertises, streams past
// --max-streams refused, a header list past HTTP/1.1's cap refused, a body that does not arrive
// in time answered with HTTP/1.1's 408 problem, and a header block or TLS handshake left
// unfinished cut. Deadlines are short here so that the tests wait little; none is timed.
import { connect as tcpConnect } from "node:net";
import { maxHeaderSize } from "node:http";
import { connect, constants as http2Constants } from "node:http2";
import type { ClientHttp2Session, IncomingHttpHeaders } from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { makeCertificates } from "../helpers/certificates.js";
import type { Certificates } from "../helpers/certificates.js";
import { FLAG, FRAME, frame, headerBlock, rawSession } from "../helpers/h2-frames.js";
import { GatewayMetrics } from "../../src/telemetry/metrics.js";

const MAX_STREAMS = 4;
const HEADER_TIMEOUT_MS = 300;
const BODY_TIMEOUT_MS = 400;
/** RFC 9113 §7 error codes. */
const REFUSED_STREAM = 0x7;

const metrics = new GatewayMetrics();
let certs: Certificates;
let gw: TestGateway;
let port = 0;
let url = "";

beforeAll(async () => {
  certs = makeCertificates(["localhost", "127.0.0.1"]);
  gw = await startTestGateway({
    tls: { cert: certs.read(certs.server.cert), key: certs.read(certs.server.key) },
    maxStreams: MAX_STREAMS, headerTimeoutMs: HEADER_TIMEOUT_MS, bodyTimeoutMs: BODY_TIMEOUT_MS,
    metrics,
  });
  await gw.app.listen({ port: 0, host: "127.0.0.1" });
  const address = gw.app.server.address();
  port = typeof address === "object" && address !== null ? address.port : 0;
  url = `https://localhost:${port}`;
});

afterAll(async () => {
  await gw.close();
  certs.remove();
});

function session(): ClientHttp2Session {
  return connect(url, { ca: certs.read(certs.ca.cert), servername: "localhost" });
}

const authority = (): string => `localhost:${port}`;
const post = (path: string): Record<string, string> => ({ ":method": "POST", ":scheme": "https", ":path": path, ":authority": authority(), "content-type": "application/json" });

describe("HTTP/2 limits", () => {
  it("advertises --max-streams and HTTP/1.1's header size as its settings", async () => {
    const client = session();
    const settings = await new Promise<{ maxConcurrentStreams?: number; maxHeaderListSize?: number }>((resolve) => client.once("remoteSettings", resolve));
    client.close();
    expect(settings.maxConcurrentStreams).toBe(MAX_STREAMS);
    expect(settings.maxHeaderListSize).toBe(maxHeaderSize);
  });

  it("refuses each stream past --max-streams with REFUSED_STREAM, and serves the ones within it", async () => {
    const raw = await rawSession(port, certs.read(certs.ca.cert));
    // Unfinished POSTs (no END_STREAM), all at once, without waiting for the server's SETTINGS.
    const ids = Array.from({ length: MAX_STREAMS + 2 }, (_, i) => 2 * i + 1);
    raw.write(Buffer.concat(ids.map((id) => frame(FRAME.HEADERS, FLAG.END_HEADERS, id, headerBlock(post("/v1/jobs"))))));
    const refused = await Promise.all(ids.slice(MAX_STREAMS).map((id) => raw.next((f) => f.type === FRAME.RST_STREAM && f.streamId === id)));
    expect(refused.map((f) => f.payload.readUInt32BE(0))).toEqual([REFUSED_STREAM, REFUSED_STREAM]);
    // The first ones are served: each is answered 408 when its body does not come.
    const answered = await Promise.all(ids.slice(0, MAX_STREAMS).map((id) => raw.next((f) => f.type === FRAME.HEADERS && f.streamId === id)));
    expect(answered).toHaveLength(MAX_STREAMS);
    expect(raw.frames.filter((f) => f.type === FRAME.RST_STREAM && f.streamId < 2 * MAX_STREAMS && f.payload.readUInt32BE(0) === REFUSED_STREAM)).toEqual([]);
    raw.socket.destroy();
  });

  it("refuses a 100 KB header list, which HTTP/1.1 would refuse too, and keeps the connection for the next request", async () => {
    const raw = await rawSession(port, certs.read(certs.ca.cert));
    // 100 headers of 1 KB: nghttp2 refuses any single field over 64 KB as a compression error.
    const big = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-big-${i}`, "a".repeat(1_000)]));
    const block = headerBlock({ ":method": "GET", ":scheme": "https", ":path": "/healthz", ":authority": authority(), ...big });
    // Split into frames of 16 KB, the smallest maximum frame size a server may have.
    const pieces = Array.from({ length: Math.ceil(block.length / 16_384) }, (_, i) => block.subarray(i * 16_384, (i + 1) * 16_384));
    // After the server's SETTINGS are acknowledged: nghttp2 applies its own only then.
    await raw.next((f) => f.type === FRAME.SETTINGS && (f.flags & FLAG.ACK) === 0);
    raw.write(Buffer.concat(pieces.map((piece, i) => frame(i === 0 ? FRAME.HEADERS : FRAME.CONTINUATION, (i === pieces.length - 1 ? FLAG.END_HEADERS : 0) | (i === 0 ? FLAG.END_STREAM : 0), 1, piece))));
    const refusal = await raw.next((f) => (f.type === FRAME.RST_STREAM && f.streamId === 1) || f.type === FRAME.GOAWAY || (f.type === FRAME.HEADERS && f.streamId === 1));
    raw.socket.destroy();
    expect(refusal.type).toBe(FRAME.RST_STREAM);
  });

  it("answers 431 to a 100 KB header list sent before the server's settings were acknowledged", async () => {
    const raw = await rawSession(port, certs.read(certs.ca.cert));
    const big = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-big-${i}`, "a".repeat(1_000)]));
    const block = headerBlock({ ":method": "GET", ":scheme": "https", ":path": "/healthz", ":authority": authority(), ...big });
    const pieces = Array.from({ length: Math.ceil(block.length / 16_384) }, (_, i) => block.subarray(i * 16_384, (i + 1) * 16_384));
    // Written at once: the acknowledgement of the server's settings can only come after it.
    raw.write(Buffer.concat(pieces.map((piece, i) => frame(i === 0 ? FRAME.HEADERS : FRAME.CONTINUATION, (i === pieces.length - 1 ? FLAG.END_HEADERS : 0) | (i === 0 ? FLAG.END_STREAM : 0), 1, piece))));
    const answer = await raw.next((f) => (f.type === FRAME.HEADERS && f.streamId === 1) || f.type === FRAME.RST_STREAM || f.type === FRAME.GOAWAY);
    raw.socket.destroy();
    expect(answer.type).toBe(FRAME.HEADERS);
    // :status 431 is not in HPACK's static table: a literal whose value is the text "431".
    expect(answer.payload.includes(Buffer.from("431"))).toBe(true);
  });

  it("answers a body that does not arrive within --body-timeout with HTTP/1.1's 408 problem, and the connection serves on", async () => {
    const client = session();
    const stream = client.request(post("/v1/jobs"), { endStream: false });
    stream.write('{"jobId":');
    const answer = await new Promise<{ headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      let headers: IncomingHttpHeaders = {};
      let body = "";
      stream.setEncoding("utf8");
      stream.on("response", (h) => { headers = h; });
      stream.on("data", (chunk: string) => { body += chunk; });
      stream.on("end", () => { resolve({ headers, body }); });
      stream.on("error", reject);
    });
    expect(answer.headers[":status"]).toBe(408);
    expect(answer.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 408, detail: `the request did not arrive in full within ${BODY_TIMEOUT_MS} ms` });
    const health = client.request({ ":path": "/healthz" });
    const status = await new Promise<unknown>((resolve) => health.once("response", (h) => { resolve(h[":status"]); }));
    health.resume();
    expect(status).toBe(200);
    // The POST's stream is still open for writing on the client's side: close() would wait for it.
    client.destroy();
  });

  it("closes a connection whose header block was left unfinished for --header-timeout", async () => {
    const raw = await rawSession(port, certs.read(certs.ca.cert));
    const block = headerBlock({ ":method": "GET", ":scheme": "https", ":path": "/healthz", ":authority": authority() });
    // No END_HEADERS: a CONTINUATION should follow, and never does.
    raw.write(frame(FRAME.HEADERS, FLAG.END_STREAM, 1, block.subarray(0, 10)));
    await raw.closed;
    expect(raw.frames.some((f) => f.type === FRAME.HEADERS)).toBe(false);
  });

  it("closes a connection whose TLS handshake does not come within --header-timeout", async () => {
    const socket = tcpConnect({ host: "127.0.0.1", port });
    await new Promise<void>((resolve) => socket.once("close", () => { resolve(); }));
    expect(socket.bytesRead).toBe(0);
  });

  it("counts a stream the client reset before any answer as 499 (client closed request), and writes nothing of its body", async () => {
    const closedBefore = await countOf("499");
    const raw = await rawSession(port, certs.read(certs.ca.cert));
    // A whole job, but no END_STREAM: more was to come when the client reset the stream.
    const job = Buffer.from(JSON.stringify({ jobId: "cut-off", startDateTime: "2026-01-01T00:00:00Z" }));
    raw.write(Buffer.concat([frame(FRAME.HEADERS, FLAG.END_HEADERS, 1, headerBlock(post("/v1/jobs"))), frame(FRAME.DATA, 0, 1, job)]));
    while ((await inFlight()) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const cancel = Buffer.alloc(4);
    cancel.writeUInt32BE(http2Constants.NGHTTP2_CANCEL);
    raw.write(frame(FRAME.RST_STREAM, 0, 1, cancel));
    while ((await countOf("499")) === closedBefore) await new Promise((resolve) => setTimeout(resolve, 5));
    raw.socket.destroy();
    expect(await countOf("499")).toBe(closedBefore + 1);
    expect((await gw.jobs()).map((j) => j.jobId)).not.toContain("cut-off");
  });
});

async function countOf(status: string, method = "POST"): Promise<number> {
  const metric = await metrics.httpRequests.get();
  return metric.values.filter((v) => v.labels.status === status && v.labels.method === method).reduce((sum, v) => sum + v.value, 0);
}

async function inFlight(): Promise<number> {
  const metric = await metrics.httpInFlight.get();
  return metric.values.filter((v) => v.labels.method === "POST").reduce((sum, v) => sum + v.value, 0);
}

// The HTTP server's limits (src/server/limits.ts), over raw sockets to a listening gateway with
// short timeouts: a request that does not arrive in time is answered 408 (problem+json) and
// closed, an idle keep-alive connection is closed, one connection over the cap is closed at
// once, and an event stream outlives every one of these timeouts.
import { afterEach, describe, expect, it } from "vitest";
import type { AppOptions } from "../../src/app.js";
import { startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";
import { openRaw, parseResponse } from "../helpers/raw-socket.js";
import type { RawConnection } from "../helpers/raw-socket.js";

/** Bound on waiting for the server to act: generous, since it only catches a hang. */
const HANG_MS = 5_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let gw: ListeningGateway | undefined;
const connections: RawConnection[] = [];

async function gatewayWith(options: Omit<AppOptions, "connection">): Promise<ListeningGateway> {
  gw = await startListeningGateway(options);
  return gw;
}

async function open(url: string, bytes = ""): Promise<RawConnection> {
  const connection = await openRaw(url, bytes);
  connections.push(connection);
  return connection;
}

afterEach(async () => {
  for (const connection of connections.splice(0)) connection.socket.destroy();
  await gw?.close();
  gw = undefined;
});

describe("request timeouts", () => {
  it("answers a body shorter than its Content-Length with 408 problem+json and closes, after the body timeout; nothing is written", async () => {
    const gateway = await gatewayWith({ headerTimeoutMs: 300, bodyTimeoutMs: 600 });
    const head = "POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\nX-Request-Id: slow-body-1\r\n\r\n";
    const connection = await open(gateway.url, `${head}{"jobId":`);
    await connection.closed(HANG_MS);
    const answer = parseResponse(connection.received());
    expect(answer.statusLine).toBe("HTTP/1.1 408 Request Timeout");
    expect(answer.headers["content-type"]).toBe("application/problem+json");
    expect(answer.headers["x-request-id"]).toBe("slow-body-1");
    expect(JSON.parse(answer.body)).toEqual({
      type: "about:blank",
      title: "Request Timeout",
      status: 408,
      detail: "the request did not arrive in full within 600 ms",
      instance: expect.stringMatching(/^urn:uuid:/) as unknown,
      requestId: "slow-body-1",
    });
    expect(await gateway.jobs()).toEqual([]);
  });

  it.each([
    ["half-sent headers", "GET /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: appl"],
    ["a connection that sends nothing", ""],
  ])("answers %s with 408 problem+json and closes, after the header timeout", async (_name, bytes) => {
    const { url } = await gatewayWith({ headerTimeoutMs: 300, bodyTimeoutMs: 60_000 });
    const connection = await open(url, bytes);
    await connection.closed(HANG_MS);
    const answer = parseResponse(connection.received());
    expect(answer.statusLine).toBe("HTTP/1.1 408 Request Timeout");
    expect(answer.headers["content-type"]).toBe("application/problem+json");
    expect(JSON.parse(answer.body)).toEqual({
      type: "about:blank",
      title: "Request Timeout",
      status: 408,
      detail: "the request's headers did not arrive within 300 ms",
      instance: expect.stringMatching(/^urn:uuid:/) as unknown,
      requestId: expect.stringMatching(UUID) as unknown,
    });
  });

  it("answers bytes that are not HTTP with 400 problem+json", async () => {
    const { url } = await gatewayWith({});
    const connection = await open(url, "HELLO THERE\r\n\r\n");
    await connection.closed(HANG_MS);
    const answer = parseResponse(connection.received());
    expect(answer.statusLine).toBe("HTTP/1.1 400 Bad Request");
    expect(JSON.parse(answer.body)).toMatchObject({ status: 400, detail: "the request is not valid HTTP/1.1" });
  });

  it("closes a keep-alive connection left idle after its answer, after the idle timeout", async () => {
    const { url } = await gatewayWith({ idleTimeoutMs: 300 });
    const connection = await open(url, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await connection.closed(HANG_MS);
    const answer = parseResponse(connection.received());
    expect(answer.statusLine).toBe("HTTP/1.1 200 OK");
    expect(answer.headers.connection).toBe("keep-alive");
  });
});

describe("the connection cap", () => {
  it("closes the connection over the cap at once, unanswered, keeps serving the others, and accepts again once one closes", async () => {
    const { url } = await gatewayWith({ maxConnections: 3, headerTimeoutMs: 30_000, bodyTimeoutMs: 30_000 });
    const held = [await open(url), await open(url), await open(url)];
    const over = await open(url, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await over.closed(HANG_MS);
    expect(over.received()).toBe("");
    expect(held.map((connection) => connection.isOpen())).toEqual([true, true, true]);

    held[0]?.socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    await held[0]?.closed(HANG_MS);
    expect(parseResponse(held[0]?.received() ?? "").statusLine).toBe("HTTP/1.1 200 OK");

    const next = await open(url, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    await next.closed(HANG_MS);
    expect(parseResponse(next.received()).statusLine).toBe("HTTP/1.1 200 OK");
  });
});

describe("an event stream", () => {
  it("stays open past the header, body and idle timeouts, with heartbeats further apart than all of them", async () => {
    const { url } = await gatewayWith({
      headerTimeoutMs: 300, bodyTimeoutMs: 300, idleTimeoutMs: 300,
      sseHeartbeatMs: 500,
    });
    const connection = await open(url, "GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n");
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect(connection.isOpen()).toBe(true);
    const text = connection.received();
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toContain("event: initialDataComplete\n");
    expect(text.split(": heartbeat\n").length - 1).toBeGreaterThanOrEqual(2);
  });
});

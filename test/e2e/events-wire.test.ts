// The event streams as bytes on the wire, read with node's own HTTP client: heartbeats while
// nothing happens, NDJSON on request, the bound on a client that stops reading (to the byte in
// test/sse/stream-body.test.ts, where no socket buffers blur it), and the answers before a
// stream starts (ordinary problem+json). What else docs/guide/events.md says of them: events-readme.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import { SSE_RETRY_MS } from "../../schemas/events.js";
import { eventually, startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";
import { emptyPicture, stubGateway, untilAborted } from "../helpers/stub-manager.js";
import { openStream } from "../helpers/wire-stream.js";
import { gatewayTo } from "../helpers/gateway.js";
import { create } from "@bufbuild/protobuf";
import { WireType } from "@bufbuild/protobuf/wire";
import { EventStreamEventSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";

let gw: ListeningGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/**
 * Creates a job and reads the answer whole: an answer left unread (a large job's) keeps its
 * connection busy, and the gateway's close then waits for it.
 */
async function post(g: ListeningGateway, body: object): Promise<Response> {
  const response = await fetch(`${g.url}/v1/jobs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  return response;
}

describe("the stream on the wire", () => {
  it("sends a heartbeat comment when nothing happens", async () => {
    gw = await startListeningGateway({ sseHeartbeatMs: 100 });
    const stream = await openStream(`${gw.url}/v1/events`);
    expect(stream.response.statusCode).toBe(200);
    expect(stream.response.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(stream.response.headers["cache-control"]).toBe("no-cache");
    expect(stream.response.headers["x-request-id"]).toEqual(expect.any(String));
    await eventually(() => stream.state.text.split(": heartbeat\n\n").length > 3, "three heartbeats", 2_000);
    expect(stream.state.text).toMatch(/^retry: \d+\n\nid: 1\nevent: initialDataComplete\ndata: \{"health":\[\]\}\n\n(: heartbeat\n\n)+$/);
    stream.close();
  });

  it("sends NDJSON, one {event, data} per line, heartbeats included, when asked", async () => {
    gw = await startListeningGateway({ sseHeartbeatMs: 100 });
    const stream = await openStream(`${gw.url}/v1/events`, { accept: "application/x-ndjson" });
    expect(stream.response.headers["content-type"]).toBe("application/x-ndjson");
    await eventually(() => stream.state.text.includes("heartbeat"), "a heartbeat");
    expect((await post(gw, { jobId: "nd", startDateTime: "2026-01-01T00:00:00Z" })).status).toBe(201);
    await eventually(() => stream.state.text.includes("jobUpdated"), "jobUpdated");
    const lines = stream.state.text.trimEnd().split("\n").map((line) => JSON.parse(line) as { event: string; data?: { jobWithHistory?: { job?: { jobId?: string } } } });
    expect(lines[0]).toEqual({ event: "initialDataComplete", data: { health: [] } });
    const updates = lines.filter((l) => l.event !== "heartbeat" && l.event !== "initialDataComplete");
    expect(updates.map((l) => [l.event, l.data?.jobWithHistory?.job?.jobId])).toEqual([["jobUpdated", "nd"]]);
    expect(lines.filter((l) => l.event === "heartbeat").every((l) => l.data === undefined)).toBe(true);
    stream.close();
  });

  it("closes a client that falls too far behind with a last error event, and releases its gRPC stream", async () => {
    gw = await startListeningGateway({ sseBufferBytes: 64 * 1024, sseHeartbeatMs: 60_000 });
    const stream = await openStream(`${gw.url}/v1/events`, { "x-request-id": "slow-1" });
    await eventually(() => stream.state.text.includes("initialDataComplete"), "initialDataComplete");
    stream.response.pause(); // the client stops reading
    const description = "x".repeat(200_000);
    let created = 0;
    // Each create is a ~200 kB event, more than the 64 KiB the client may have waiting behind
    // the one in flight: the second one queued behind another ends the stream.
    while (gw.manager.stats().openEventStreams > 0 && created < 300) {
      expect((await post(gw, { jobId: `big-${created++}`, startDateTime: "2026-01-01T00:00:00Z", description })).status).toBe(201);
    }
    expect(gw.manager.stats().openEventStreams).toBe(0);
    stream.response.resume();
    await eventually(() => stream.state.ended, "the end of the response", 10_000);
    const last = stream.state.text.trimEnd().split("\n\n").at(-1) ?? "";
    expect(last.startsWith("event: error\ndata: ")).toBe(true);
    expect(JSON.parse(last.slice("event: error\ndata: ".length))).toEqual({
      type: "about:blank",
      title: "Too Many Requests",
      status: 429,
      code: "RESOURCE_EXHAUSTED",
      detail: "the client fell more than 65536 bytes behind; reconnect",
      instance: "/v1/events",
      requestId: "slow-1",
    });
    // How far behind it was let fall: the picture, the events its socket took before it
    // stopped reading and the one in flight, each whole, then the error.
    const frames = stream.state.text.trimEnd().split("\n\n").slice(1);
    expect(frames[0]).toBe('id: 1\nevent: initialDataComplete\ndata: {"health":[]}');
    const events = frames.slice(1, -1);
    expect(events.length).toBeGreaterThanOrEqual(1);
    // Whether the event that put it over the limit is among them depends on whether it had been
    // handed to the response before the judgement; none past it is.
    expect(events.length).toBeLessThanOrEqual(created);
    events.forEach((frame, i) => {
      expect(frame.startsWith(`id: ${i + 2}\nevent: jobUpdated\ndata: {`)).toBe(true);
      expect(frame.endsWith("}")).toBe(true);
    });
  });
});

/** The jobUpdated frames of `text` that have arrived whole (a frame ends with a blank line). */
function completeUpdates(text: string): string[] {
  return text.split("\n\n").slice(0, -1).filter((frame) => frame.includes("event: jobUpdated"));
}

describe("large events", () => {
  it("delivers a 600 KB job's jobUpdated (job and previous version) to three clients reading along, none of them closed", async () => {
    gw = await startListeningGateway({ sseHeartbeatMs: 60_000 }); // --sse-buffer's default, 1 MiB
    const g = gw;
    const streams = await Promise.all([1, 2, 3].map(() => openStream(`${g.url}/v1/events`)));
    for (const stream of streams) await eventually(() => stream.state.text.includes("initialDataComplete"), "initialDataComplete");
    const description = "d".repeat(600_000);
    expect((await post(g, { jobId: "large", startDateTime: "2026-01-01T00:00:00Z", description })).status).toBe(201);
    const patched = await fetch(`${g.url}/v1/jobs/large`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ description: "e".repeat(600_000) }),
    });
    expect(patched.status).toBe(200);
    await patched.arrayBuffer();
    for (const stream of streams) {
      await eventually(() => completeUpdates(stream.state.text).length === 2, "both jobUpdated events, whole", 10_000);
    }
    for (const stream of streams) {
      expect(stream.state.text).not.toContain("event: error");
      const updates = completeUpdates(stream.state.text);
      const last = JSON.parse(updates[1]?.split("\ndata: ")[1] ?? "") as { jobWithHistory: { job: { description: string }; history: unknown[] } };
      expect(last.jobWithHistory.job.description).toBe("e".repeat(600_000));
      stream.close();
    }
  });
});

describe("before the stream starts: ordinary problem+json", () => {
  it.each([
    ["/v1/events?pendingWindowS=-1", "pendingWindowS"],
    ["/v1/events?pendingWindowS=1.5", "pendingWindowS"],
    ["/v1/events?pendingWindowS=soon", "pendingWindowS"],
    ["/v1/events?pendingWindowS=2147483648", "pendingWindowS"],
    ["/v1/events?since=1", "since"],
    ["/v1/status?verbose=1", "verbose"],
  ])("GET %s → 400 naming %s", async (url, name) => {
    const fake = await stubGateway();
    try {
      const res = await fake.app.inject({ method: "GET", url });
      expect(res.statusCode).toBe(400);
      expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(res.json<{ errors: { parameter: string }[] }>().errors.map((e) => e.parameter)).toContain(name);
      expect(fake.manager.calls).toEqual([]);
    } finally {
      await fake.close();
    }
  });

  it("refuses a malformed Grpc-Timeout with 400", async () => {
    const fake = await stubGateway();
    try {
      const res = await fake.app.inject({ method: "GET", url: "/v1/events", headers: { "grpc-timeout": "forever" } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ errors: [{ header: "grpc-timeout" }] });
    } finally {
      await fake.close();
    }
  });

  it("passes pendingWindowS to the Manager", async () => {
    const fake = await stubGateway({ eventStream: emptyPicture });
    try {
      const res = await fake.app.inject({ method: "GET", url: "/v1/events?pendingWindowS=3600" });
      expect(res.statusCode).toBe(200);
      expect(fake.manager.calls[0]?.request).toMatchObject({ pendingWindowS: 3600 });
    } finally {
      await fake.close();
    }
  });

  it("answers 503 when there is no Manager", async () => {
    const gateway = await gatewayTo("127.0.0.1:1", { requestTimeoutMs: 500 });
    try {
      for (const url of ["/v1/events", "/v1/status"]) {
        const res = await gateway.app.inject({ method: "GET", url });
        expect(res.statusCode).toBe(503);
        expect(res.json()).toMatchObject({ code: "UNAVAILABLE" });
        expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
        expect(res.body).not.toContain("127.0.0.1:1");
      }
    } finally {
      await gateway.close();
    }
  });

  it("answers 504 when the Manager does not start the stream within the request timeout", async () => {
    const fake = await stubGateway({}, { requestTimeoutMs: 300 });
    fake.manager.behaviour.eventStream = async function* (_request, context) {
      await untilAborted(context.signal);
      yield* [];
    };
    try {
      const started = Date.now();
      const res = await fake.app.inject({ method: "GET", url: "/v1/events" });
      expect(res.statusCode).toBe(504);
      expect(res.json()).toMatchObject({ status: 504, code: "DEADLINE_EXCEEDED" });
      expect(Date.now() - started).toBeLessThan(2_000);
      // The call itself has no deadline: it is meant to last.
      expect(fake.manager.calls[0]?.method).toBe("EventStream");
      expect(fake.manager.calls[0]?.deadline).toBeUndefined();
    } finally {
      await fake.close();
    }
  });

  it("answers HEAD with a GET's headers and holds no stream open for it", async () => {
    gw = await startListeningGateway();
    const res = await fetch(`${gw.url}/v1/events`, { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    await eventually(() => gw?.manager.stats().openEventStreams === 0, "the stream released");
  });

  it("skips an event this gateway does not know (a newer Manager's), and numbers the rest without a gap", async () => {
    const fake = await stubGateway();
    fake.manager.behaviour.eventStream = async function* () {
      yield create(EventStreamEventSchema, { event: { case: "initialDataComplete", value: {} } });
      // Field 99 of EventStreamEvent: a oneof member that does not exist here yet.
      const unknown = create(EventStreamEventSchema);
      unknown.$unknown = [{ no: 99, wireType: WireType.LengthDelimited, data: new Uint8Array([0x01, 0x41]) }] // length 1, "A";
      yield unknown;
      await Promise.resolve();
      yield create(EventStreamEventSchema, { event: { case: "jobDeleted", value: { jobId: { jobId: "gone" } } } });
    };
    try {
      const res = await fake.app.inject({ method: "GET", url: "/v1/events" });
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(`retry: ${String(SSE_RETRY_MS)}\n\n` + 'id: 1\nevent: initialDataComplete\ndata: {"health":[]}\n\nid: 2\nevent: jobDeleted\ndata: {"jobId":"gone"}\n\n');
    } finally {
      await fake.close();
    }
  });

  it("ends the stream with the 502 error event (the Manager's answer, not the gateway's fault) when a message cannot be decoded", async () => {
    const fake = await stubGateway();
    fake.manager.behaviour.eventStream = async function* () {
      yield create(EventStreamEventSchema, { event: { case: "initialDataComplete", value: {} } });
      const broken = create(EventStreamEventSchema);
      broken.$unknown = [{ no: 4, wireType: WireType.LengthDelimited, data: new Uint8Array([0x05, 0x0a]) }]; // jobUpdated, cut short
      yield broken;
      await untilAborted(new AbortController().signal);
    };
    try {
      const res = await fake.app.inject({ method: "GET", url: "/v1/events" });
      expect(res.statusCode).toBe(200);
      const last = res.body.trimEnd().split("\n\n").at(-1) ?? "";
      expect(last.startsWith("event: error\ndata: ")).toBe(true);
      expect(JSON.parse(last.slice("event: error\ndata: ".length))).toMatchObject({
        status: 502,
        code: "INTERNAL",
        detail: "the Manager sent an answer the gateway cannot use",
      });
    } finally {
      await fake.close();
    }
  });

  it("ends the stream with a 504 error event at a client's Grpc-Timeout", async () => {
    const fake = await stubGateway();
    fake.manager.behaviour.eventStream = async function* (_request, context) {
      yield { event: { case: "initialDataComplete", value: {} } };
      await untilAborted(context.signal);
    };
    try {
      const res = await fake.app.inject({ method: "GET", url: "/v1/events", headers: { "grpc-timeout": "300m" } });
      expect(res.statusCode).toBe(200);
      expect(res.body).toMatch(/^retry: \d+\n\nid: 1\nevent: initialDataComplete\n.*\n\nevent: error\ndata: \{.*"status":504.*\}\n\n$/s);
      const call = fake.manager.calls[0];
      expect((call?.deadline ?? Infinity) - (call?.at ?? 0)).toBeLessThanOrEqual(300);
    } finally {
      await fake.close();
    }
  });

  it("bounds the stream by a Grpc-Timeout longer than the request timeout, up to the maximum", async () => {
    const fake = await stubGateway({}, { requestTimeoutMs: 200, maxRequestTimeoutMs: 700 });
    fake.manager.behaviour.eventStream = async function* (_request, context) {
      yield { event: { case: "initialDataComplete", value: {} } };
      await untilAborted(context.signal);
    };
    try {
      const started = Date.now();
      // 1 hour asked: the maximum, 700 ms, given; far more than the request timeout.
      const res = await fake.app.inject({ method: "GET", url: "/v1/events", headers: { "grpc-timeout": "1H" } });
      expect(res.statusCode).toBe(200);
      expect(res.body).toMatch(/event: error\ndata: \{.*"status":504.*\}\n\n$/s);
      expect(Date.now() - started).toBeGreaterThanOrEqual(650);
      const call = fake.manager.calls[0];
      expect((call?.deadline ?? Infinity) - (call?.at ?? 0)).toBeGreaterThan(600);
      expect((call?.deadline ?? Infinity) - (call?.at ?? 0)).toBeLessThanOrEqual(700);
    } finally {
      await fake.close();
    }
  });
});

// Event streams shared by clients that open together, through the gateway in front of a real
// reference Manager, read by real HTTP clients: every client gets the same events, in order,
// numbered from 1 with no gap, while the Manager serves fewer streams than there are clients;
// a client that leaves does not end the others' stream.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";
import { openStream } from "../helpers/wire-stream.js";
import type { WireStream } from "../helpers/wire-stream.js";
import { JSON_HEADERS } from "../helpers/gateway.js";

const CLIENTS = 24;
let gw: ListeningGateway;

beforeAll(async () => {
  gw = await startListeningGateway({ coalesceReads: "on" });
});
afterAll(async () => {
  await gw.close();
});

/** The events a client received as [id, event name, data], from its SSE text. */
function framesOf(stream: WireStream): [number, string, string][] {
  return stream.state.text
    .split("\n\n")
    .filter((frame) => frame.includes("event: "))
    .map((frame) => {
      const field = (name: string) => (frame.split("\n").find((line) => line.startsWith(`${name}: `)) ?? "").slice(name.length + 2);
      return [Number(field("id")), field("event"), field("data")];
    });
}

describe("GET /v1/events shared by clients that open together (--coalesce-reads on)", () => {
  it("sends every client the same events in order from fewer Manager streams, and keeps them going when one leaves", async () => {
    await gw.app.inject({ method: "POST", url: "/v1/jobs", headers: JSON_HEADERS, payload: { jobId: "before", startDateTime: "2026-01-01T00:00:00Z" } });
    const streams = await Promise.all(Array.from({ length: CLIENTS }, () => openStream(`${gw.url}/v1/events`)));
    await eventually(() => streams.every((s) => s.state.text.includes("event: initialDataComplete")), "every picture");
    const managerStreams = gw.manager.stats().openEventStreams;
    expect(managerStreams).toBeGreaterThanOrEqual(1);
    expect(managerStreams).toBeLessThan(CLIENTS);

    streams[0]?.close();
    for (let i = 0; i < 5; i++) {
      const res = await gw.app.inject({ method: "POST", url: "/v1/jobs", headers: JSON_HEADERS, payload: { jobId: `after-${String(i)}`, startDateTime: "2026-01-01T00:00:00Z" } });
      expect(res.statusCode).toBe(201);
    }
    const rest = streams.slice(1);
    await eventually(() => rest.every((s) => (s.state.text.match(/event: jobUpdated/g) ?? []).length === 5), "five changes on every stream");
    const expected = framesOf(rest[0] as WireStream);
    for (const stream of rest) {
      const frames = framesOf(stream);
      expect(frames.map(([id]) => id)).toEqual(frames.map((_, i) => i + 1));
      expect(frames).toEqual(expected);
    }
    const changes = expected.filter(([, name]) => name === "jobUpdated").map(([, , data]) => (JSON.parse(data) as { jobWithHistory: { job: { jobId: string } } }).jobWithHistory.job.jobId);
    expect(changes).toEqual(["after-0", "after-1", "after-2", "after-3", "after-4"]);
    for (const stream of rest) stream.close();
    await eventually(() => gw.manager.stats().openEventStreams === 0, "the Manager's streams to end with their last clients");
  });
});

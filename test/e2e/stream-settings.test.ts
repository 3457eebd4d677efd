// --sse-heartbeat and --sse-buffer as the built command applies them, not only as parsed
// (test/config.test.ts): each value travels flag → config → startGateway → buildApp → the event
// routes, and a link dropped anywhere on the way leaves the streams on their defaults (15 s,
// 1 MiB), which these tests see on the wire.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { eventually } from "../helpers/listening-gateway.js";
import { arrivalOf, openStream } from "../helpers/wire-stream.js";

const HEARTBEAT_MS = 200;
const BUFFER_BYTES = 2048;
const PICTURE = 'id: 1\nevent: initialDataComplete\ndata: {"health":[]}\n\n';
const HEARTBEAT = ": heartbeat\n\n";
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

let gateway: StartedCommand;

beforeAll(async () => {
  gateway = await startCommand(["--sse-heartbeat", String(HEARTBEAT_MS), "--sse-buffer", String(BUFFER_BYTES)]);
});

afterAll(async () => {
  expect(await gateway.stop()).toBe(0);
});

describe("the stream settings of the built command", () => {
  it(`applies --sse-heartbeat ${HEARTBEAT_MS}: an idle stream gets a heartbeat every ${HEARTBEAT_MS} ms, not every 15 s`, async () => {
    const asked = Date.now(); // the stream, and its heartbeat timer, start after this
    const stream = await openStream(`${gateway.url}/v1/events`);
    try {
      await eventually(() => arrivalOf(stream, HEARTBEAT, 3) !== undefined, "three heartbeats", 5_000);
      expect(stream.state.text).toMatch(new RegExp(`^${literal(PICTURE)}(${HEARTBEAT})+$`));
      // The k-th heartbeat cannot be sent before k intervals have passed (1 ms of timer slack each).
      for (const k of [1, 2, 3]) expect((arrivalOf(stream, HEARTBEAT, k) ?? 0) - asked).toBeGreaterThanOrEqual(k * (HEARTBEAT_MS - 1));
    } finally {
      stream.close();
    }
  });

  it(`applies --sse-buffer ${BUFFER_BYTES}: an event that would leave more than ${BUFFER_BYTES} bytes waiting ends the stream with a 429 naming the limit`, async () => {
    const stream = await openStream(`${gateway.url}/v1/events`, { "x-request-id": "small-buffer" });
    try {
      await eventually(() => stream.state.text.startsWith(PICTURE), "the picture");
      // A ~4.5 kB jobUpdated: more than the 2048 bytes this client may have waiting, however
      // fast it reads; under the default 1 MiB it would simply be delivered.
      const created = await fetch(`${gateway.url}/v1/jobs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jobId: "big", startDateTime: "2026-01-01T00:00:00Z", description: "x".repeat(4_000) }),
      });
      expect(created.status).toBe(201);
      await eventually(() => stream.state.ended || stream.state.text.includes("event: jobUpdated"), "the end of the stream, or the event");
      const match = new RegExp(`^${literal(PICTURE)}(?:${HEARTBEAT})*event: error\ndata: (.*)\n\n$`).exec(stream.state.text);
      expect(match, stream.state.text.slice(0, 300)).not.toBeNull();
      expect(JSON.parse(match?.[1] ?? "null")).toEqual({
        type: "about:blank",
        title: "Too Many Requests",
        status: 429,
        code: "RESOURCE_EXHAUSTED",
        detail: `the client fell more than ${BUFFER_BYTES} bytes behind; reconnect`,
        instance: "/v1/events",
        requestId: "small-buffer",
      });
      await eventually(() => stream.state.ended, "the end of the response");
    } finally {
      stream.close();
    }
  });
});

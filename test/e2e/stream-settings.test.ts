// --sse-heartbeat, --sse-buffer and --max-message-size as the built command applies them, not
// only as parsed (test/config.test.ts): each value travels flag → config → startGateway →
// buildApp or connectManager → the event routes or the channels, and a link dropped anywhere on
// the way leaves them on their defaults (15 s, 1 MiB, 16 MiB), which these tests see on the wire.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { eventually } from "../helpers/listening-gateway.js";
import { arrivalOf, openStream } from "../helpers/wire-stream.js";
import { SSE_RETRY_MS } from "../../schemas/events.js";

const HEARTBEAT_MS = 200;
const BUFFER_BYTES = 2048;
/** The start of an event stream: the reconnection delay, then the (empty) picture. */
const PICTURE = `retry: ${String(SSE_RETRY_MS)}\n\nid: 1\nevent: initialDataComplete\ndata: {"health":[]}\n\n`;
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

  it(`applies --sse-buffer ${BUFFER_BYTES}: a client that stops reading is closed with a 429 naming the limit once more waits behind the event in flight`, async () => {
    const stream = await openStream(`${gateway.url}/v1/events`, { "x-request-id": "small-buffer" });
    try {
      await eventually(() => stream.state.text.startsWith(PICTURE), "the picture");
      stream.response.pause(); // the client stops reading
      // ~200 kB events, until the sockets' buffers are full and more than BUFFER_BYTES wait
      // behind the one in flight; the metric says when the gateway closed the client.
      const description = "x".repeat(200_000);
      for (let i = 0; i < 300 && (await dropped()) === 0; i++) {
        const created = await fetch(`${gateway.url}/v1/jobs`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jobId: `big-${i}`, startDateTime: "2026-01-01T00:00:00Z", description }),
        });
        expect(created.status).toBe(201);
      }
      expect(await dropped()).toBe(1);
      stream.response.resume();
      await eventually(() => stream.state.ended, "the end of the response", 10_000);
      const last = stream.state.text.trimEnd().split("\n\n").at(-1) ?? "";
      expect(last.startsWith("event: error\ndata: ")).toBe(true);
      expect(JSON.parse(last.slice("event: error\ndata: ".length))).toEqual({
        type: "about:blank",
        title: "Too Many Requests",
        status: 429,
        code: "RESOURCE_EXHAUSTED",
        detail: `the client fell more than ${BUFFER_BYTES} bytes behind; reconnect`,
        instance: "/v1/events",
        requestId: "small-buffer",
      });
    } finally {
      stream.close();
    }
  });

  it("delivers an event larger than --sse-buffer to a client that reads along", async () => {
    const stream = await openStream(`${gateway.url}/v1/events`);
    try {
      await eventually(() => stream.state.text.startsWith(PICTURE), "the picture");
      const created = await fetch(`${gateway.url}/v1/jobs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jobId: "larger-than-buffer", startDateTime: "2026-01-01T00:00:00Z", description: "x".repeat(4_000) }),
      });
      expect(created.status).toBe(201);
      await eventually(() => stream.state.text.includes('"jobId":"larger-than-buffer"'), "the event");
      expect(stream.state.text).not.toContain("event: error");
    } finally {
      stream.close();
    }
  });
});

/** Clients the gateway closed for falling behind, from its /metrics. */
async function dropped(): Promise<number> {
  const text = await (await fetch(`${gateway.url}/metrics`)).text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("gateway_stream_clients_dropped_total{"))
    .reduce((sum, line) => sum + Number(line.split(" ").at(-1)), 0);
}

describe("--max-message-size of the built command", () => {
  it("applies 65536 to what the gateway receives: a 70 kB event ends the stream with the 502, a 70 kB request is a 413", async () => {
    const small = await startCommand(["--max-message-size", "65536"]);
    try {
      const stream = await openStream(`${small.url}/v1/events`);
      await eventually(() => stream.state.text.startsWith(PICTURE), "the picture");
      const put = (description: string) =>
        fetch(`${small.url}/v1/jobs/halves`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jobId: "halves", startDateTime: "2026-01-01T00:00:00Z", description }),
        });
      const created = await fetch(`${small.url}/v1/jobs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jobId: "halves", startDateTime: "2026-01-01T00:00:00Z", description: "a".repeat(35_000) }),
      });
      expect(created.status).toBe(201);
      // The update's event carries the job and its previous version: some 70 kB, past the limit.
      expect((await put("b".repeat(35_000))).status).toBe(200);
      await eventually(() => stream.state.ended, "the end of the stream", 10_000);
      const last = stream.state.text.trimEnd().split("\n\n").at(-1) ?? "";
      expect(JSON.parse(last.slice("event: error\ndata: ".length))).toMatchObject({
        status: 502,
        code: "INTERNAL",
        detail: "the Manager sent an answer the gateway cannot use",
      });
      expect(stream.state.text).not.toContain("larger than max");
      const tooLarge = await put("c".repeat(70_000));
      expect(tooLarge.status).toBe(413);
    } finally {
      expect(await small.stop()).toBe(0);
    }
  });
});

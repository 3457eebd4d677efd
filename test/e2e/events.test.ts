// GET /v1/events and GET /v1/status end to end, through a real SSE client (the `eventsource`
// package) against the gateway listening on port 0 in front of a reference Manager in this
// process: REST changes arrive as events in order with their documented names and data, a
// client that leaves releases its gRPC stream, and a Manager that goes away ends the stream
// with an `error` event.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EventSource } from "eventsource";
import { Value } from "@sinclair/typebox/value";
import { EVENT_DATA, STATUS_DATA } from "../../schemas/events.js";
import { ProblemJson } from "../../schemas/common.js";
import { eventually, startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";

interface Received {
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly id: string;
}

/** An EventSource on `path` recording every event named in `names`, and the error events. */
function follow(gw: ListeningGateway, path: string, names: readonly string[], init?: { fetch?: typeof fetch }) {
  const source = new EventSource(`${gw.url}${path}`, init);
  const received: Received[] = [];
  for (const type of [...names, "error"]) {
    source.addEventListener(type, (event) => {
      // A connection failure is an "error" too, but without data: only the server's count.
      if (!(event instanceof MessageEvent)) return;
      received.push({ type, data: JSON.parse(String(event.data)) as Record<string, unknown>, id: event.lastEventId });
    });
  }
  return { source, received, types: () => received.map((r) => r.type) };
}

const EVENTS = Object.keys(EVENT_DATA);
const json = { "content-type": "application/json" };

async function rest(gw: ListeningGateway, method: string, path: string, body?: unknown): Promise<Response> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: json, body: JSON.stringify(body) }),
  });
  expect(res.status, `${method} ${path}: ${await res.clone().text()}`).toBeLessThan(300);
  return res;
}

let gw: ListeningGateway;
let sources: EventSource[] = [];

beforeEach(async () => {
  gw = await startListeningGateway();
  sources = [];
});
afterEach(async () => {
  for (const source of sources) source.close();
  await gw.close();
});

describe("GET /v1/events with EventSource", () => {
  it("sends the current picture, then REST changes as events in order, with their documented names and data", async () => {
    // Before the client connects: a running node and an active job (part of the picture).
    await rest(gw, "POST", "/v1/nodes/aws", { nodeId: "n0", region: "eu-west-1" });
    await rest(gw, "POST", "/v1/jobs", { jobId: "j0", startDateTime: "2026-01-01T00:00:00Z" });
    await rest(gw, "POST", "/v1/jobs/j0/instances", { role: "primary", nodeId: "n0" });

    const events = follow(gw, "/v1/events", EVENTS);
    sources.push(events.source);
    await eventually(() => events.types().includes("initialDataComplete"), "initialDataComplete");

    await rest(gw, "POST", "/v1/jobs", { jobId: "j1", startDateTime: "2026-12-24T18:00:00Z", tags: { env: "prod" } });
    await rest(gw, "PUT", "/v1/jobs/j1", { jobId: "j1", startDateTime: "2026-12-24T18:00:00Z", description: "changed" });
    await rest(gw, "POST", "/v1/nodes/aws", { nodeId: "n1", region: "eu-west-1", instanceType: "c5.large" });
    await rest(gw, "PUT", "/v1/physical-nodes/rack-1", { daemonVersion: "1.0.384" });
    await rest(gw, "POST", "/v1/jobs/j1/instances", { role: "primary", nodeId: "n1" });
    await rest(gw, "DELETE", "/v1/nodes/n1");
    await rest(gw, "DELETE", "/v1/jobs/j1");
    await eventually(() => events.types().includes("jobDeleted"), "jobDeleted");

    expect(events.types()).toEqual([
      "nodeRunning",
      "jobActive",
      "initialDataComplete",
      "jobUpdated", // created
      "jobUpdated", // replaced
      "nodeStarting",
      "nodeStarted",
      "physicalNodeConnected",
      "jobUpdated", // started on n1
      "nodeStopping",
      "jobUpdated", // its instance stopped with the node
      "nodeStopped",
      "jobDeleted",
    ]);
    // id: 1, 2, 3, ... on this connection.
    expect(events.received.map((r) => r.id)).toEqual(events.received.map((_r, i) => String(i + 1)));
    // Every event's data is what its documented schema says.
    for (const { type, data } of events.received) {
      const schema = EVENT_DATA[type as keyof typeof EVENT_DATA];
      expect(Value.Check(schema, data), `${type}: ${JSON.stringify([...Value.Errors(schema, data)].slice(0, 3))}`).toBe(true);
    }
    const data = events.received.map((r) => r.data);
    expect(data[0]).toMatchObject({ nodeMetadata: { nodeId: "n0" }, instances: [{ jobKey: { jobId: "j0", role: "primary" }, nodeId: "n0" }] });
    expect(data[1]).toMatchObject({ jobWithHistory: { job: { jobId: "j0", state: "active" } } });
    expect(data[3]).toMatchObject({
      jobWithHistory: { job: { jobId: "j1", tags: { env: "prod" }, state: "pre" }, historyEntry: [{ jobCreated: {} }] },
    });
    expect(data[4]).toMatchObject({ jobWithHistory: { job: { jobId: "j1", description: "changed" } } });
    expect(data[6]).toMatchObject({ nodeMetadata: { nodeId: "n1", providerMetadata: { aws: { instanceType: "c5.large" } } } });
    expect(data[7]).toEqual({ node: { id: "rack-1", tags: {}, ipAddress: "" }, instances: [] });
    expect(data[8]).toMatchObject({ jobWithHistory: { job: { jobId: "j1", state: "active" } } });
    expect(data[9]).toEqual({ nodeId: "n1", reason: "user_requested" });
    expect(data[11]).toEqual({ nodeId: "n1" });
    expect(data[12]).toEqual({ jobId: "j1" });
  });

  it("lists jobs due within pendingWindowS in the picture", async () => {
    const soon = new Date(Date.now() + 60_000).toISOString();
    await rest(gw, "POST", "/v1/jobs", { jobId: "soon", startDateTime: soon });
    const within = follow(gw, "/v1/events?pendingWindowS=3600", EVENTS);
    const without = follow(gw, "/v1/events", EVENTS);
    sources.push(within.source, without.source);
    await eventually(() => within.types().includes("initialDataComplete") && without.types().includes("initialDataComplete"), "both pictures");
    expect(within.types()).toEqual(["jobPending", "initialDataComplete"]);
    expect(within.received[0]?.data).toMatchObject({ jobWithHistory: { job: { jobId: "soon" } } });
    expect(without.types()).toEqual(["initialDataComplete"]);
  });

  it("releases the gRPC stream of a client that disconnects", async () => {
    const clients = [follow(gw, "/v1/events", EVENTS), follow(gw, "/v1/events", EVENTS), follow(gw, "/v1/status", ["hello"])];
    sources.push(...clients.map((c) => c.source));
    await eventually(() => clients.every((c) => c.received.length > 0), "every client's first event");
    expect(gw.manager.stats()).toMatchObject({ openEventStreams: 2, openStatusChannels: 1 });
    clients[0]?.source.close();
    await eventually(() => gw.manager.stats().openEventStreams === 1, "one EventStream released");
    for (const client of clients) client.source.close();
    await eventually(() => gw.manager.stats().openEventStreams === 0 && gw.manager.stats().openStatusChannels === 0, "all released");
    expect(gw.manager.stats().eventSubscribers).toBe(0);
  });

  it("ends the stream with an error event when the Manager goes away", async () => {
    const events = follow(gw, "/v1/events", EVENTS, {
      fetch: (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set("x-request-id", "watch-1");
        return fetch(input, { ...init, headers });
      },
    });
    sources.push(events.source);
    await eventually(() => events.types().includes("initialDataComplete"), "initialDataComplete");
    await gw.manager.close();
    await eventually(() => events.types().includes("error"), "the error event");
    const problem = events.received.at(-1)?.data;
    expect(Value.Check(ProblemJson, problem)).toBe(true);
    expect(problem).toEqual({
      type: "about:blank",
      title: "Service Unavailable",
      status: 503,
      code: "UNAVAILABLE",
      detail: "the Manager is unavailable; try again later",
      instance: "/v1/events",
      requestId: "watch-1",
    });
  });

  it("ends open streams with an error event when the gateway shuts down, and the shutdown does not wait for them", async () => {
    const events = follow(gw, "/v1/events", EVENTS);
    sources.push(events.source);
    await eventually(() => events.types().includes("initialDataComplete"), "initialDataComplete");
    const started = Date.now();
    await gw.app.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    await eventually(() => events.types().includes("error"), "the error event");
    expect(events.received.at(-1)?.data).toMatchObject({ status: 503, code: "UNAVAILABLE", detail: "the gateway is shutting down; reconnect" });
    await eventually(() => gw.manager.stats().openEventStreams === 0, "the stream released");
  });
});

describe("GET /v1/status with EventSource", () => {
  it("sends hello, then a logEvent per change", async () => {
    const status = follow(gw, "/v1/status", Object.keys(STATUS_DATA));
    sources.push(status.source);
    await eventually(() => status.types().includes("hello"), "hello");
    await rest(gw, "POST", "/v1/jobs", { jobId: "s1", startDateTime: "2026-01-01T00:00:00Z" });
    await eventually(() => status.types().includes("logEvent"), "logEvent");
    expect(status.types()).toEqual(["hello", "logEvent"]);
    const [hello, log] = status.received;
    expect(hello?.data).toMatchObject({ version: { label: "reference" } });
    expect(log?.data).toMatchObject({ level: "info", msg: "job s1 created", metadata: "" });
    expect(log?.data.timestamp).toMatch(/^[1-9][0-9]{12}$/);
    for (const { type, data } of status.received) expect(Value.Check(STATUS_DATA[type as keyof typeof STATUS_DATA], data)).toBe(true);
  });
});

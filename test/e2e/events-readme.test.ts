// What docs/guide/events.md says of the event streams, on the wire, beyond what events.test.ts and
// events-wire.test.ts cover: Last-Event-ID is ignored (a reconnecting client starts from a fresh
// picture), /v1/status comes as NDJSON too, jobUpdated carries the history entries of its change
// while the picture carries the whole history, and the gateway sends no CORS headers.
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { eventually, startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";
import { openStream } from "../helpers/wire-stream.js";
import type { WireStream } from "../helpers/wire-stream.js";
import { SSE_RETRY_MS } from "../../schemas/events.js";

let gw: ListeningGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const post = (g: ListeningGateway, body: object) =>
  fetch(`${g.url}/v1/jobs`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("what the events guide says of the streams", () => {
  const picture = `retry: ${String(SSE_RETRY_MS)}\n\n` + 'id: 1\nevent: physicalNodeConnected\ndata: {"node":{"id":"rack-1","tags":{},"ipAddress":""},"instances":[]}\n\n' +
    'id: 2\nevent: initialDataComplete\ndata: {"health":[]}\n\n';

  it("ignores Last-Event-ID: a reconnecting client gets the fresh picture, numbered from 1 like any other", async () => {
    gw = await startListeningGateway({ sseHeartbeatMs: 60_000 });
    const registered = await fetch(`${gw.url}/v1/physical-nodes/rack-1`, { method: "PUT", headers: { "content-type": "application/json" }, body: "{}" });
    expect(registered.status).toBe(200);
    const fresh = await openStream(`${gw.url}/v1/events`);
    const reconnecting = await openStream(`${gw.url}/v1/events`, { "last-event-id": "2" });
    expect(reconnecting.response.statusCode).toBe(200);
    await eventually(() => fresh.state.text === picture && reconnecting.state.text === picture, "both pictures");
    expect((await post(gw, { jobId: "after", startDateTime: "2026-01-01T00:00:00Z" })).status).toBe(201);
    const hasEvent3 = (stream: WireStream) => stream.state.text.includes("id: 3\n") && stream.state.text.endsWith("\n\n");
    await eventually(() => hasEvent3(fresh) && hasEvent3(reconnecting), "the job's event, whole");
    expect(reconnecting.state.text).toBe(fresh.state.text);
    expect(reconnecting.state.text).toMatch(/^id: 3\nevent: jobUpdated\ndata: \{"jobWithHistory":\{"job":\{"jobId":"after",/m);
    fresh.close();
    reconnecting.close();
  });

  it("sends GET /v1/status as NDJSON when asked: hello, then a logEvent per change, one {event, data} per line", async () => {
    gw = await startListeningGateway({ sseHeartbeatMs: 60_000 });
    const stream = await openStream(`${gw.url}/v1/status`, { accept: "application/x-ndjson" });
    expect(stream.response.statusCode).toBe(200);
    expect(stream.response.headers["content-type"]).toBe("application/x-ndjson");
    await eventually(() => stream.state.text.endsWith("\n"), "hello");
    expect((await post(gw, { jobId: "s1", startDateTime: "2026-01-01T00:00:00Z" })).status).toBe(201);
    await eventually(() => stream.state.text.split("\n").length === 3, "the logEvent");
    const [major, minor, build] = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version.split(".").map(Number);
    expect(stream.state.text.trimEnd().split("\n").map((line) => JSON.parse(line) as unknown)).toEqual([
      { event: "hello", data: { version: { majorVersion: major, minorVersion: minor, buildNumber: build, branchName: "", label: "reference" } } },
      { event: "logEvent", data: { level: "info", timestamp: expect.stringMatching(/^[1-9][0-9]{12}$/) as unknown, msg: "job s1 created", metadata: "" } },
    ]);
    stream.close();
  });

  it("sends jobUpdated with the history entries its change added, and the picture's jobActive with the whole history", async () => {
    gw = await startListeningGateway({ sseHeartbeatMs: 60_000 });
    const live = await openStream(`${gw.url}/v1/events`, { accept: "application/x-ndjson" });
    await eventually(() => live.state.text.includes("initialDataComplete"), "initialDataComplete");
    const json = { "content-type": "application/json" };
    const job = { jobId: "h", startDateTime: "2026-01-01T00:00:00Z" };
    expect((await post(gw, job)).status).toBe(201);
    expect((await fetch(`${gw.url}/v1/jobs/h`, { method: "PUT", headers: json, body: JSON.stringify({ ...job, description: "v2" }) })).status).toBe(200);
    expect((await fetch(`${gw.url}/v1/physical-nodes/rack-1`, { method: "PUT", headers: json, body: "{}" })).status).toBe(200);
    expect((await fetch(`${gw.url}/v1/jobs/h/instances`, { method: "POST", headers: json, body: JSON.stringify({ role: "primary", nodeId: "rack-1" }) })).status).toBe(201);
    const histories = (stream: WireStream, event: string) =>
      stream.state.text.trimEnd().split("\n").map((line) => JSON.parse(line) as { event: string; data: { jobWithHistory?: { historyEntry: object[] } } })
        .filter((line) => line.event === event)
        .map((line) => (line.data.jobWithHistory?.historyEntry ?? []).map((entry) => Object.keys(entry)));
    await eventually(() => histories(live, "jobUpdated").length === 3, "three jobUpdated");
    expect(histories(live, "jobUpdated")).toEqual([[["jobCreated"]], [["jobUpdated"]], [["jobRunning"]]]);
    const later = await openStream(`${gw.url}/v1/events`, { accept: "application/x-ndjson" });
    await eventually(() => later.state.text.includes("initialDataComplete"), "the later client's picture");
    expect(histories(later, "jobActive")).toEqual([[["jobCreated"], ["jobUpdated"], ["jobRunning"]]]);
    live.close();
    later.close();
  });

  it("sends no CORS headers: not on a cross-origin GET /v1/events, nor to a preflight", async () => {
    gw = await startListeningGateway({ sseHeartbeatMs: 60_000 });
    const origin = "http://elsewhere.example";
    const stream = await openStream(`${gw.url}/v1/events`, { origin });
    expect(stream.response.statusCode).toBe(200);
    const preflight = await fetch(`${gw.url}/v1/events`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "GET", "access-control-request-headers": "last-event-id" },
    });
    const cors = (names: Iterable<string>) => [...names].filter((name) => name.toLowerCase().startsWith("access-control-"));
    expect(cors(Object.keys(stream.response.headers))).toEqual([]);
    expect(cors(preflight.headers.keys())).toEqual([]);
    stream.close();
  });
});

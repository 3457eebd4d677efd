// GET /v1/events narrowed (jobId, tag, type), applied alike to the picture and the live events,
// against a stub Manager whose stream is exact; the `retry:` line, the ids, and what a client
// reconnecting with Last-Event-ID gets (a fresh picture, ids from 1), through a real SSE client.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EventSource } from "eventsource";
import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { EventStreamEventSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { EventStreamEvent } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { SSE_RETRY_MS } from "../../schemas/events.js";
import { stubGateway, untilAborted } from "../helpers/stub-manager.js";
import type { StubGateway } from "../helpers/stub-manager.js";

const event = (value: MessageInitShape<typeof EventStreamEventSchema>["event"]): EventStreamEvent => create(EventStreamEventSchema, { event: value });
const job = (jobId: string, tags: Record<string, string>) => ({ jobWithHistory: { job: { jobId: { jobId }, tags } } });

/** The picture and live events of the stub's stream, then its end (so an inject answer completes). */
const STREAM: EventStreamEvent[] = [
  event({ case: "nodeRunning", value: { nodeMetadata: { nodeId: { nodeId: "n-prod" }, tags: { env: "prod" } } } }),
  event({ case: "physicalNodeConnected", value: { node: { id: "rack-dev", tags: { env: "dev" } } } }),
  event({ case: "jobActive", value: job("j1", { env: "prod" }) }),
  event({ case: "jobActive", value: job("j2", { env: "dev" }) }),
  event({ case: "initialDataComplete", value: {} }),
  event({ case: "jobUpdated", value: job("j1", { env: "prod", team: "a" }) }),
  event({ case: "jobDeleted", value: { jobId: { jobId: "j2" } } }),
  event({ case: "jobInfo", value: { jobKey: { jobId: { jobId: "j1" }, role: "primary" }, message: { case: "serviceStarted", value: { serviceName: "norsk" } } } }),
  event({ case: "nodeStopped", value: { nodeId: { nodeId: "n-prod" } } }),
  event({ case: "jobUpdated", value: job("j3", { env: "prod" }) }),
];

let gw: StubGateway;
/** What each EventStream call of the stub sends, by its number (0 first); the default: STREAM, then the end. */
let streamOf: (call: number) => EventStreamEvent[] = () => STREAM;
let calls = 0;
const lastEventIds: (string | undefined)[] = [];

beforeAll(async () => {
  gw = await stubGateway(
    {
      eventStream: async function* () {
        await Promise.resolve();
        for (const each of streamOf(calls++)) yield each;
      },
    },
    {
      listen: true,
      beforeListen: (app) => {
        app.addHook("onRequest", (request, _reply, done) => {
          if (request.url.startsWith("/v1/events")) lastEventIds.push(request.headers["last-event-id"] as string | undefined);
          done();
        });
      },
    },
  );
});
afterAll(async () => {
  await gw.close();
});
afterEach(() => {
  streamOf = () => STREAM;
  calls = 0;
  lastEventIds.length = 0;
  gw.manager.reset();
});

/** The events (name and the ids the data names) a client with `query` is sent, as NDJSON. */
async function narrowed(query: string): Promise<string[]> {
  const res = await gw.app.inject({ method: "GET", url: `/v1/events?${query}`, headers: { accept: "application/x-ndjson" } });
  expect(res.statusCode, res.body).toBe(200);
  return res.body
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as { event: string; data: unknown })
    .map(({ event: name, data }) => {
      const text = JSON.stringify(data);
      const id = /"(?:jobId|nodeId|id)":"([^"]+)"/.exec(text)?.[1];
      return id === undefined ? name : `${name} ${id}`;
    });
}

describe("GET /v1/events narrowed", () => {
  it("sends everything without a filter", async () => {
    expect(await narrowed("")).toHaveLength(STREAM.length);
  });

  it("jobId= (repeatable): the events about those jobs, in the picture and live, and initialDataComplete", async () => {
    expect(await narrowed("jobId=j1&jobId=j3")).toEqual(["jobActive j1", "initialDataComplete", "jobUpdated j1", "jobInfo j1", "jobUpdated j3"]);
    expect(await narrowed("jobId=j2")).toEqual(["jobActive j2", "initialDataComplete", "jobDeleted j2"]);
  });

  it("tag= (repeatable, all of them): jobs and nodes with the tags, and the events that carry no tags", async () => {
    expect(await narrowed("tag=env:prod")).toEqual([
      "nodeRunning n-prod",
      "jobActive j1",
      "initialDataComplete",
      "jobUpdated j1",
      "jobDeleted j2",
      "jobInfo j1",
      "nodeStopped n-prod",
      "jobUpdated j3",
    ]);
    expect(await narrowed("tag=env:prod&tag=team:a")).toEqual(["initialDataComplete", "jobUpdated j1", "jobDeleted j2", "jobInfo j1", "nodeStopped n-prod"]);
  });

  it("type= (a comma list, repeatable): only those events, and initialDataComplete asked or not", async () => {
    expect(await narrowed("type=jobUpdated,jobDeleted")).toEqual(["initialDataComplete", "jobUpdated j1", "jobDeleted j2", "jobUpdated j3"]);
    expect(await narrowed("type=jobActive&type=initialDataComplete")).toEqual(["jobActive j1", "jobActive j2", "initialDataComplete"]);
  });

  it("combines the parameters with AND", async () => {
    expect(await narrowed("type=jobUpdated&tag=env:prod&jobId=j3")).toEqual(["initialDataComplete", "jobUpdated j3"]);
  });

  it("tag= sends the jobUpdated of a job that leaves the tags, so that a narrowed view can drop it", async () => {
    const updated = (jobId: string, tags: Record<string, string>, before: Record<string, string>) =>
      event({
        case: "jobUpdated",
        value: { jobWithHistory: { job: { jobId: { jobId }, tags }, historyEntry: [{ historyEntry: { case: "jobUpdated", value: { previousJob: { jobId: { jobId }, tags: before } } } }] } },
      });
    streamOf = () => [
      event({ case: "initialDataComplete", value: {} }),
      updated("left", { env: "dev" }, { env: "prod" }),
      updated("never", { env: "dev" }, { env: "test" }),
      updated("came", { env: "prod" }, { env: "dev" }),
      event({ case: "jobUpdated", value: job("moved-without-history", { env: "dev" }) }),
    ];
    expect(await narrowed("tag=env:prod")).toEqual(["initialDataComplete", "jobUpdated left", "jobUpdated came"]);
  });

  it("keeps sharing one Manager stream between clients whose filters differ", async () => {
    // A stream held open after its picture, so that the clients overlap.
    gw.manager.behaviour.eventStream = async function* (_request, context) {
      calls++;
      for (const each of STREAM) yield each;
      await untilAborted(context.signal);
    };
    // Each client reads until the last event it is sent.
    const clients = [
      { query: "jobId=j1", last: '"jobUpdated","data":{"jobWithHistory":{"job":{"jobId":"j1"' },
      { query: "type=jobDeleted", last: '"jobDeleted"' },
      { query: "", last: '"j3"' },
    ];
    const texts = await Promise.all(
      clients.map(async ({ query, last }) => {
        const controller = new AbortController();
        const res = await fetch(`${gw.url}/v1/events?${query}`, { headers: { accept: "application/x-ndjson" }, signal: controller.signal });
        const reader = res.body?.getReader();
        let text = "";
        while (reader !== undefined && !text.includes(last)) {
          const chunk = await reader.read();
          if (chunk.done) break;
          text += Buffer.from(chunk.value).toString();
        }
        controller.abort();
        return text;
      }),
    );
    expect(texts[0]).toContain('"jobActive"');
    expect(texts[0]).not.toContain('"j2"');
    expect(texts[1]?.trimEnd().split("\n").map((line) => (JSON.parse(line) as { event: string }).event)).toEqual(["initialDataComplete", "jobDeleted"]);
    expect(calls).toBeLessThan(3);
  });

  it("refuses an unknown type, naming the parameter and the value, and asks the Manager nothing", async () => {
    const res = await gw.app.inject({ method: "GET", url: "/v1/events?type=jobUpdated,jobExploded" });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: "INVALID_ARGUMENT", errors: [{ parameter: "type", message: expect.stringContaining('"jobExploded" is not an event type') as unknown }] });
    expect(gw.manager.calls).toEqual([]);
  });

  it("bounds the values: their number, their length, and a tag without a name", async () => {
    const many = Array.from({ length: 101 }, (_, i) => `jobId=j${String(i)}`).join("&");
    for (const [query, parameter] of [
      [many, "jobId"],
      [`tag=env:${"x".repeat(1024)}`, "tag"],
      ["tag=env", "tag"],
      ["type=", "type"],
      ["jobId=", "jobId"],
    ] as const) {
      const res = await gw.app.inject({ method: "GET", url: `/v1/events?${query}` });
      expect(res.statusCode, query.slice(0, 40)).toBe(400);
      expect(res.json<{ errors: { parameter?: string }[] }>().errors[0]?.parameter).toBe(parameter);
    }
    expect(gw.manager.calls).toEqual([]);
  });
});

describe("GET /v1/events as Server-Sent Events: retry, ids and reconnection", () => {
  it("starts with the retry: line, then numbers each event from 1", async () => {
    const res = await gw.app.inject({ method: "GET", url: "/v1/events?type=jobActive" });
    expect(res.body.startsWith(`retry: ${String(SSE_RETRY_MS)}\n\nid: 1\nevent: jobActive\n`)).toBe(true);
    expect(res.body).toContain("id: 2\nevent: jobActive\n");
  });

  it("gives a client reconnecting with Last-Event-ID a fresh picture, ids from 1 again, after the retry delay", async () => {
    // The first stream ends after a live event; the second is the picture as it is then.
    streamOf = (call) =>
      call === 0
        ? [event({ case: "jobActive", value: job("j1", {}) }), event({ case: "initialDataComplete", value: {} }), event({ case: "jobUpdated", value: job("j2", {}) })]
        : [event({ case: "jobActive", value: job("j1", {}) }), event({ case: "jobActive", value: job("j2", {}) }), event({ case: "initialDataComplete", value: {} })];
    const source = new EventSource(`${gw.url}/v1/events`);
    const received: { connection: number; type: string; id: string; jobId?: string | undefined }[] = [];
    let connection = 0;
    source.addEventListener("open", () => {
      connection++;
    });
    const done = new Promise<void>((resolve) => {
      for (const type of ["jobActive", "jobUpdated", "initialDataComplete"]) {
        source.addEventListener(type, (message) => {
          const jobId = /"jobId":"([^"]+)"/.exec(String(message.data))?.[1];
          received.push({ connection, type, id: message.lastEventId, jobId });
          if (connection === 2 && type === "initialDataComplete") resolve();
        });
      }
    });
    const started = Date.now();
    await done;
    source.close();
    expect(received).toEqual([
      { connection: 1, type: "jobActive", id: "1", jobId: "j1" },
      { connection: 1, type: "initialDataComplete", id: "2", jobId: undefined },
      { connection: 1, type: "jobUpdated", id: "3", jobId: "j2" },
      { connection: 2, type: "jobActive", id: "1", jobId: "j1" },
      { connection: 2, type: "jobActive", id: "2", jobId: "j2" },
      { connection: 2, type: "initialDataComplete", id: "3", jobId: undefined },
    ]);
    // The client sent the id of the last event it had, and waited as the retry: line said.
    expect(lastEventIds).toEqual([undefined, "3"]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(SSE_RETRY_MS);
  });
});

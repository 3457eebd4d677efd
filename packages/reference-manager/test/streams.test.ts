// EventStream, CreateStatusChannel and grpc.health.v1 against a real reference Manager.
import { afterEach, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import type { Socket } from "node:net";
import { Health, HealthCheckResponse_ServingStatus } from "norsk-manager-contract/gen/grpc/health/v1/health_pb.js";
import type { HealthCheckResponse } from "norsk-manager-contract/gen/grpc/health/v1/health_pb.js";
import { Job_JobState, Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { EventStreamEvent, NorskStatusEvent } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Log_Level } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { Code, GrpcError, createChannel, createClient } from "norsk-manager-contract/grpc/index.js";
import { join } from "node:path";
import Database from "better-sqlite3";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { PICTURE_HISTORY_ENTRIES } from "../src/picture.js";
import { EventReader, collect, eventually, grpcErrorOf, kinds, simpleJob, startHarness, tempDataDir } from "./harness.js";
import type { Harness } from "./harness.js";

const cleanup: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function harness(options: Parameters<typeof startHarness>[0] = {}): Promise<Harness> {
  const h = await startHarness({ dataDir: ":memory:", ...options });
  cleanup.push(() => h.dispose());
  return h;
}

/** An EventStream read in the background; cancelled in afterEach. */
function openStream(h: Harness, pendingWindowS = 0): EventReader<EventStreamEvent> {
  const controller = new AbortController();
  const reader = new EventReader(h.client.eventStream({ pendingWindowS }, { signal: controller.signal, timeoutMs: 600_000 }));
  cleanup.push(async () => {
    controller.abort();
    await reader.finished;
  });
  return reader;
}

async function untilInitialDataComplete(reader: EventReader<EventStreamEvent>): Promise<EventStreamEvent[]> {
  const picture: EventStreamEvent[] = [];
  for (;;) {
    const event = await reader.next();
    if (event.event.case === "initialDataComplete") return picture;
    picture.push(event);
  }
}

/** A TCP relay to 127.0.0.1:`target`; cut() destroys every connection through it. */
async function startRelay(target: number): Promise<{ port: number; cut(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = connect(target, "127.0.0.1");
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("relay has no port");
  const cut = (): void => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    port: address.port,
    cut,
    close: () =>
      new Promise<void>((resolve) => {
        cut();
        server.close(() => {
          resolve();
        });
      }),
  };
}

const seconds = (offset: number): bigint => BigInt(Math.floor(Date.now() / 1000) + offset);

function subject(event: EventStreamEvent): string {
  const e = event.event;
  switch (e.case) {
    case "nodeRunning":
      return e.value.nodeMetadata?.nodeId?.nodeId ?? "";
    case "physicalNodeConnected":
      return e.value.node?.id ?? "";
    case "jobActive":
    case "jobPending":
    case "jobUpdated":
      return e.value.jobWithHistory?.job?.jobId?.jobId ?? "";
    default:
      return e.case ?? "";
  }
}

describe("EventStream", () => {
  async function seed(h: Harness): Promise<void> {
    const c = h.client;
    await c.createOciNode({ nodeId: { nodeId: "n-o" } });
    await c.createAwsNode({ nodeId: { nodeId: "n-a" } });
    await c.updatePhysicalNode({ id: "p-1" });
    for (const [id, offset] of [["pre-late", 86_400], ["active-2", 0], ["pre-soon", 60], ["active-1", 0], ["pre-past", -60], ["post-1", 0]] as const) {
      await c.createJob(simpleJob(id, { startDateTime: { seconds: seconds(offset) } }));
    }
    await c.startJob({ jobId: { jobId: "active-1" }, role: "primary", nodeId: { nodeId: "n-a" } });
    await c.startJob({ jobId: { jobId: "active-2" }, role: "primary", nodeId: { nodeId: "p-1" } });
    await c.completeJob({ jobId: "post-1" });
  }

  it("sends the current picture in a fixed order, then initial_data_complete", async () => {
    const h = await harness();
    await seed(h);
    const picture = await untilInitialDataComplete(openStream(h, 3600));
    expect(picture.map((e) => `${e.event.case ?? ""}:${subject(e)}`)).toEqual([
      "nodeRunning:n-a",
      "nodeRunning:n-o",
      "physicalNodeConnected:p-1",
      "jobActive:active-1",
      "jobActive:active-2",
      "jobPending:pre-past",
      "jobPending:pre-soon",
    ]);
    const [nodeA, , physical, active1] = picture;
    if (nodeA?.event.case !== "nodeRunning" || physical?.event.case !== "physicalNodeConnected" || active1?.event.case !== "jobActive") {
      throw new Error("unexpected picture");
    }
    expect(nodeA.event.value.instances.map((i) => i.jobKey?.jobId?.jobId)).toEqual(["active-1"]);
    expect(physical.event.value.instances.map((i) => i.jobKey?.jobId?.jobId)).toEqual(["active-2"]);
    const jwh = active1.event.value.jobWithHistory;
    expect(jwh?.job?.state).toBe(Job_JobState.ACTIVE);
    expect(jwh?.historyEntry.map((e) => e.historyEntry.case)).toEqual(["jobCreated", "jobRunning"]);
  });

  it("sends no job_pending when pending_window_s is 0", async () => {
    const h = await harness();
    await seed(h);
    expect(kinds(await untilInitialDataComplete(openStream(h, 0)))).not.toContain("jobPending");
  });

  it("carries at most PICTURE_HISTORY_ENTRIES of a job's newest history entries, each without previous_job", async () => {
    // Each history entry's timestamp is the count of clock reads before it: entries are told apart by it.
    let ticks = 0;
    const h = await harness({ clock: () => timestampFromMs(1_000 * ticks++) });
    const updates = PICTURE_HISTORY_ENTRIES + 20;
    for (const id of ["active", "pending"]) {
      // Due at once by the Manager's clock.
      await h.client.createJob(simpleJob(id, { startDateTime: { seconds: 1n } }));
      for (let i = 0; i < updates; i++) await h.client.updateJob(simpleJob(id, { description: `v${i}`, startDateTime: { seconds: 1n } }));
    }
    await h.client.startJob({ jobId: { jobId: "active" }, role: "r", nodeId: { nodeId: "n" } });
    const picture = await untilInitialDataComplete(openStream(h, 3600));
    expect(picture.map((e) => `${e.event.case ?? ""}:${subject(e)}`)).toEqual(["jobActive:active", "jobPending:pending"]);
    const [stored] = await collect(h.client.jobSearch({ jobFilter: [{ jobFilter: { case: "idFilter", value: { comparison: { case: "eq", value: "active" } } } }] }));
    for (const event of picture) {
      if (event.event.case !== "jobActive" && event.event.case !== "jobPending") throw new Error("expected a job event");
      const jwh = event.event.value.jobWithHistory;
      const entries = jwh?.historyEntry ?? [];
      expect(entries).toHaveLength(PICTURE_HISTORY_ENTRIES);
      for (const entry of entries) {
        if (entry.historyEntry.case === "jobUpdated") expect(entry.historyEntry.value.previousJob).toBeUndefined();
      }
      const times = entries.map((e) => Number(e.historyEntry.value?.timestamp?.seconds ?? -1n));
      // The newest ones, oldest first: "active" was written at ticks 0 to `updates`, "pending" at
      // the next `updates + 1`, then "active" started at the last tick.
      const newest = (last: number, count: number): number[] => Array.from({ length: count }, (_, i) => last - count + 1 + i);
      expect(times).toEqual(
        event.event.case === "jobActive"
          ? [...newest(updates, PICTURE_HISTORY_ENTRIES - 1), 2 * updates + 2]
          : newest(2 * updates + 1, PICTURE_HISTORY_ENTRIES),
      );
      if (event.event.case === "jobActive") {
        expect(entries.at(-1)?.historyEntry.case).toBe("jobRunning");
        expect(jwh?.job).toEqual(stored?.job);
      }
    }
  });

  it("reads only the jobs it sends: a stored job that does not decode is no obstacle", async () => {
    const h = await harness({ dataDir: tempDataDir() });
    await h.client.createJob(simpleJob("pending", { startDateTime: { seconds: seconds(0) } }));
    const db = new Database(join(h.dataDir, "manager.sqlite"));
    db.prepare("INSERT INTO jobs (id, hash, job) VALUES ('broken', 1, X'FFFF')").run();
    db.close();
    const picture = await untilInitialDataComplete(openStream(h, 3600));
    expect(picture.map((e) => `${e.event.case ?? ""}:${subject(e)}`)).toEqual(["jobPending:pending"]);
  });

  it("sends initial_data_complete first when the Manager holds nothing", async () => {
    const h = await harness();
    expect((await openStream(h).next()).event.case).toBe("initialDataComplete");
  });

  it("then sends live events in commit order, each with the history entries it added", async () => {
    const h = await harness();
    const reader = openStream(h);
    await untilInitialDataComplete(reader);
    const { hash: created } = await h.client.createJob(simpleJob("live-1"));
    // Concurrent updates of one job: each event's previous_job is the job of the event before
    // it (hashes link them), so events leave in the order the updates committed.
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => h.client.updateJob(simpleJob("live-1", { description: `v${i}` }))));
    await h.client.deleteJob({ jobId: "live-1" });
    const first = await reader.next();
    if (first.event.case !== "jobUpdated") throw new Error("expected jobUpdated");
    expect(first.event.value.jobWithHistory?.historyEntry.map((e) => e.historyEntry.case)).toEqual(["jobCreated"]);
    let previousHash = created;
    const seen: bigint[] = [];
    for (let i = 0; i < 40; i++) {
      const event = await reader.next();
      if (event.event.case !== "jobUpdated") throw new Error("expected jobUpdated");
      const jwh = event.event.value.jobWithHistory;
      const entries = jwh?.historyEntry ?? [];
      expect(entries).toHaveLength(1);
      const entry = entries[0]?.historyEntry;
      if (entry?.case !== "jobUpdated") throw new Error("expected a jobUpdated entry");
      expect(entry.value.previousJob?.currentHash).toBe(previousHash);
      previousHash = jwh?.job?.currentHash ?? 0n;
      seen.push(previousHash);
    }
    expect(kinds([await reader.next()])).toEqual(["jobDeleted"]);
    expect(new Set(seen)).toEqual(new Set(replies.map((r) => r.hash)));
  });

  it("joins the picture and live events with no gap and no duplicate while writes go on", async () => {
    const h = await harness();
    await Promise.all(Array.from({ length: 100 }, (_, i) => h.client.updatePhysicalNode({ id: `p-${String(i).padStart(3, "0")}` })));
    const writes = Promise.all(
      Array.from({ length: 200 }, (_, i) => h.client.updatePhysicalNode({ id: `p-${String(100 + i).padStart(3, "0")}` })),
    );
    const reader = openStream(h);
    await writes;
    await h.client.createJob(simpleJob("end-marker"));
    const seen: string[] = [];
    let pictureSize = 0;
    for (;;) {
      const event = await reader.next();
      if (event.event.case === "initialDataComplete") {
        pictureSize = seen.length;
        continue;
      }
      if (subject(event) === "end-marker") break;
      seen.push(subject(event));
    }
    expect(pictureSize).toBeGreaterThanOrEqual(100);
    expect(seen.length).toBe(300);
    expect(new Set(seen).size).toBe(300);
  });

  it("counts open streams, and the count returns to 0 when clients cancel or disconnect", async () => {
    const h = await harness();
    const controllers = [new AbortController(), new AbortController()];
    const readers = controllers.map((c) => new EventReader(h.client.eventStream({}, { signal: c.signal, timeoutMs: 600_000 })));
    // A second client, through a TCP relay whose connections are then cut: it goes away
    // without cancelling anything.
    const relay = await startRelay(h.manager.port);
    cleanup.push(() => relay.close());
    const channel = createChannel(`127.0.0.1:${relay.port}`);
    cleanup.push(() => {
      channel.close();
    });
    const other = createClient(Manager, channel);
    const otherReader = new EventReader(other.eventStream({}, { timeoutMs: 600_000 }));
    for (const reader of [...readers, otherReader]) await reader.next();
    expect(h.manager.stats().openEventStreams).toBe(3);
    for (const c of controllers) c.abort();
    await Promise.all(readers.map((r) => r.finished));
    await eventually(() => h.manager.stats().openEventStreams === 1, "two streams to close");
    relay.cut();
    await otherReader.finished;
    await eventually(() => h.manager.stats().openEventStreams === 0, "every stream to close");
    expect(h.manager.stats().eventSubscribers).toBe(0);
  });

  it("ends a subscriber that reads too slowly with RESOURCE_EXHAUSTED", async () => {
    const h = await harness({ eventQueueBytes: 400_000 });
    const stalled = h.client.eventStream({}, { timeoutMs: 600_000 })[Symbol.asyncIterator]();
    const first = await stalled.next();
    expect(first.done === true ? "ended" : first.value.event.case).toBe("initialDataComplete");
    // Large events fill the transport's buffers, then the subscriber's queue.
    const description = "x".repeat(100_000);
    for (let i = 0; i < 100; i++) await h.client.createJob(simpleJob(`big-${i}`, { description }));
    const drain = async (): Promise<void> => {
      for (;;) if ((await stalled.next()).done === true) return;
    };
    const error = await grpcErrorOf(drain);
    expect(error.code).toBe(Code.RESOURCE_EXHAUSTED);
    await eventually(() => h.manager.stats().openEventStreams === 0, "the stream to close");
  });

  it("ends open streams with UNAVAILABLE when the Manager closes", async () => {
    const h = await startHarness({ dataDir: ":memory:" });
    const reader = new EventReader(h.client.eventStream({}, { timeoutMs: 600_000 }));
    await reader.next();
    await h.manager.close();
    const error = await reader.error();
    expect(error).toBeInstanceOf(GrpcError);
    expect(error).toMatchObject({ code: Code.UNAVAILABLE, details: "the manager is shutting down" });
    expect(h.manager.stats().openEventStreams).toBe(0);
    await h.dispose();
  });
});

describe("CreateStatusChannel", () => {
  it("says hello with the package version, then one INFO log per committed change", async () => {
    const h = await harness();
    const controller = new AbortController();
    const reader = new EventReader<NorskStatusEvent>(h.client.createStatusChannel({}, { signal: controller.signal, timeoutMs: 600_000 }));
    cleanup.push(async () => {
      controller.abort();
      await reader.finished;
    });
    const hello = await reader.next();
    if (hello.message.case !== "hello") throw new Error("expected hello");
    const pkg = JSON.parse(readFileSync("packages/reference-manager/package.json", "utf8")) as { version: string };
    const version = hello.message.value.version;
    expect(`${version?.majorVersion ?? -1}.${version?.minorVersion ?? -1}.${version?.buildNumber ?? -1}`).toBe(pkg.version);
    expect(version?.label).toBe("reference");

    const before = BigInt(Date.now());
    await h.client.createJob(simpleJob("logged"));
    await h.client.createAwsNode({ nodeId: { nodeId: "n" } });
    const after = BigInt(Date.now());
    const logs = await reader.take(2);
    expect(logs.map((l) => (l.message.case === "logEvent" ? l.message.value.msg : ""))).toEqual(["job logged created", "aws node n started"]);
    for (const log of logs) {
      if (log.message.case !== "logEvent") throw new Error("expected a log");
      expect(log.message.value.level).toBe(Log_Level.INFO);
      expect(log.message.value.timestamp).toBeGreaterThanOrEqual(before);
      expect(log.message.value.timestamp).toBeLessThanOrEqual(after);
    }
    expect(h.manager.stats().openStatusChannels).toBe(1);
    controller.abort();
    await reader.finished;
    await eventually(() => h.manager.stats().openStatusChannels === 0, "the status channel to close");
  });
});

describe("grpc.health.v1.Health", () => {
  it("answers SERVING for the server and the Manager service, NOT_FOUND for others", async () => {
    const h = await harness();
    const health = createClient(Health, h.channel);
    expect((await health.check({})).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect((await health.check({ service: "norsk.api.manager.Manager" })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect((await grpcErrorOf(health.check({ service: "nope" }))).code).toBe(Code.NOT_FOUND);
  });

  it("watches: SERVING, open until cancelled; SERVICE_UNKNOWN for an unknown service", async () => {
    const h = await harness();
    const health = createClient(Health, h.channel);
    const controller = new AbortController();
    const reader = new EventReader<HealthCheckResponse>(health.watch({}, { signal: controller.signal, timeoutMs: 600_000 }));
    expect((await reader.next()).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    const unknown = new AbortController();
    const unknownReader = new EventReader<HealthCheckResponse>(health.watch({ service: "nope" }, { signal: unknown.signal }));
    expect((await unknownReader.next()).status).toBe(HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN);
    controller.abort();
    unknown.abort();
    expect((await reader.error())?.message).toMatch(/CANCELLED/);
    await unknownReader.finished;
  });

  it("reports NOT_SERVING to watchers when the Manager closes", async () => {
    const h = await startHarness({ dataDir: ":memory:" });
    const health = createClient(Health, h.channel);
    const reader = new EventReader<HealthCheckResponse>(health.watch({}, { timeoutMs: 600_000 }));
    expect((await reader.next()).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    const closing = h.manager.close();
    expect((await reader.next()).status).toBe(HealthCheckResponse_ServingStatus.NOT_SERVING);
    await closing;
    await h.dispose();
  });
});

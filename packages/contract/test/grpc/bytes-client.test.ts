// The client's bytes form (`messages: "bytes"`): server streams only, each message handed over
// still encoded as it arrives, no deadline unless one is named, cancellation by the returned
// function or by the signal, both reported as CANCELLED. Against the reference Manager. Its
// one retry (a connection that goes away before the first message) is pinned by
// test/routes/dropped-connection.test.ts, through a proxy that drops connections.
import { fromBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client as GrpcChannel } from "@grpc/grpc-js";
import { CurrentJobSchema, EventStreamEventSchema, Manager } from "../../src/gen/norsk/api/manager_pb.js";
import { createChannel, createClient } from "../../src/grpc/client.js";
import type { BytesClient, OpenBytesStream } from "../../src/grpc/client.js";
import { Code } from "../../src/grpc/errors.js";
import type { GrpcError } from "../../src/grpc/errors.js";
import { startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";

let manager: RunningManager;
let channel: GrpcChannel;
let streams: BytesClient<typeof Manager>;

beforeAll(async () => {
  manager = await startManager({ port: 0, dataDir: ":memory:" });
  channel = createChannel(manager.address);
  streams = createClient(Manager, channel, { messages: "bytes" });
  await createClient(Manager, channel).createJob({ jobId: { jobId: "a" } });
});
afterAll(async () => {
  channel.close();
  await manager.close();
});

interface Seen {
  readonly messages: Buffer[];
  outcome: GrpcError | "ended" | undefined;
}

/** Opens `open`, recording what it hands over; `until` waits for a condition on that. */
function record(open: OpenBytesStream): { seen: Seen; cancel: () => void; until: (done: (seen: Seen) => boolean) => Promise<void> } {
  const seen: Seen = { messages: [], outcome: undefined };
  const cancel = open({
    message: (bytes) => seen.messages.push(bytes),
    end: () => (seen.outcome = "ended"),
    error: (error) => (seen.outcome = error),
  });
  const until = async (done: (seen: Seen) => boolean): Promise<void> => {
    while (!done(seen)) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  return { seen, cancel, until };
}

describe("createClient with messages: \"bytes\"", () => {
  it("offers the service's server streams, and nothing else", () => {
    expect(Object.keys(streams).sort()).toEqual(["createStatusChannel", "eventStream", "jobSearch"]);
  });

  it("hands over each message as encoded, then the end", async () => {
    const search = record(streams.jobSearch({}));
    await search.until((seen) => seen.outcome !== undefined);
    expect(search.seen.outcome).toBe("ended");
    expect(search.seen.messages.map((bytes) => fromBinary(CurrentJobSchema, bytes).job?.jobId?.jobId)).toEqual(["a"]);
  });

  it("sends nothing until the call is opened", async () => {
    const prepared = streams.eventStream({});
    await new Promise((resolve) => setTimeout(resolve, 50));
    const events = record(prepared);
    await events.until((seen) => seen.messages.length > 0);
    events.cancel();
    await events.until((seen) => seen.outcome !== undefined);
  });

  it("keeps a stream open past any default deadline, and ends it with CANCELLED when cancelled", async () => {
    const events = record(streams.eventStream({}));
    await events.until((seen) => seen.messages.some((bytes) => fromBinary(EventStreamEventSchema, bytes).event.case === "initialDataComplete"));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events.seen.outcome).toBeUndefined();
    events.cancel();
    await events.until((seen) => seen.outcome !== undefined);
    expect(events.seen.outcome).toMatchObject({ code: Code.CANCELLED });
  });

  it("ends a stream at the deadline a call names", async () => {
    const events = record(streams.eventStream({}, { timeoutMs: 100 }));
    await events.until((seen) => seen.outcome !== undefined);
    expect(events.seen.outcome).toMatchObject({ code: Code.DEADLINE_EXCEEDED });
  });

  it("cancels a stream when its signal aborts, and one whose signal has already aborted", async () => {
    const controller = new AbortController();
    const live = record(streams.eventStream({}, { signal: controller.signal }));
    await live.until((seen) => seen.messages.length > 0);
    controller.abort();
    await live.until((seen) => seen.outcome !== undefined);
    expect(live.seen.outcome).toMatchObject({ code: Code.CANCELLED });

    const late = record(streams.eventStream({}, { signal: controller.signal }));
    await late.until((seen) => seen.outcome !== undefined);
    expect(late.seen.outcome).toMatchObject({ code: Code.CANCELLED });
    expect(late.seen.messages).toEqual([]);
  });

  it("sends the call's metadata: a key gRPC cannot carry fails the opening, not the preparing", () => {
    const prepared = streams.eventStream({}, { metadata: { "a!b": "x" } });
    expect(() => record(prepared)).toThrow(/a!b/);
  });
});

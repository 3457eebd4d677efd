// The Manager connection keeps streams and unary calls on separate HTTP/2 connections, so that
// enough cancelled streams for a Node Manager to close the streams' connection (its rapid-reset
// protection: a burst of 1,000 RST_STREAMs, then 33/s) leave the unary calls' connection, and
// everything on it, alone.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Manager } from "../../src/gen/norsk/api/manager_pb.js";
import { createClient } from "../../src/grpc/client.js";
import type { BytesClient } from "../../src/grpc/client.js";
import type { GrpcError } from "../../src/grpc/errors.js";
import { connectManager } from "../../src/grpc/manager-connection.js";
import type { ManagerConnection } from "../../src/grpc/manager-connection.js";
import { startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";

let manager: RunningManager;
let connection: ManagerConnection;

beforeEach(async () => {
  manager = await startManager({ port: 0, dataDir: ":memory:" });
  connection = connectManager(manager.address, { defaultTimeoutMs: 5_000 });
});
afterEach(async () => {
  connection.close();
  await manager.close();
});

type Streams = BytesClient<typeof Manager>;

/** An EventStream of `streams` that stays open; `failure()` is how it ended, if it did. */
function follow(streams: Streams): { failure: () => GrpcError | "ended" | undefined; cancel: () => void } {
  let failure: GrpcError | "ended" | undefined;
  const cancel = streams.eventStream({})({
    message: () => undefined,
    end: () => (failure = "ended"),
    error: (error) => (failure = error),
  });
  return { failure: () => failure, cancel };
}

/** Opens an EventStream of `streams` and cancels it as soon as it has started (an RST_STREAM to the Manager). */
function openAndCancel(streams: Streams): Promise<void> {
  return new Promise((resolve) => {
    let cancel = (): void => undefined;
    cancel = streams.eventStream({})({
      message: () => {
        cancel();
        resolve();
      },
      end: resolve,
      error: () => {
        resolve();
      },
    });
  });
}

describe("connectManager", () => {
  it("keeps the unary connection when the Manager closes the streams' connection after a flood of cancelled streams", async () => {
    const onStreams = follow(connection.encodedStreams);
    const onUnary = follow(createClient(Manager, connection.channel, { messages: "bytes" }));
    const until = Date.now() + 45_000;
    let cancelled = 0;
    // Until the Manager closes the streams' connection: the stream open on it fails.
    while (onStreams.failure() === undefined && Date.now() < until) {
      await Promise.all(Array.from({ length: 100 }, () => openAndCancel(connection.encodedStreams)));
      cancelled += 100;
    }
    expect(onStreams.failure(), `after ${cancelled} cancelled streams`).toMatchObject({ code: 14 /* UNAVAILABLE */ });
    expect(onUnary.failure()).toBeUndefined();
    // And the unary connection still answers.
    await connection.manager.createJob({ jobId: { jobId: "after" } });
    onUnary.cancel();
  }, 60_000);

  it("answers on both channels: Manager calls on `manager`, searches on `streams`", async () => {
    await connection.manager.createJob({ jobId: { jobId: "a" } });
    const found = [];
    for await (const current of connection.streams.jobSearch({})) found.push(current.job?.jobId?.jobId);
    expect(found).toEqual(["a"]);
  });
});

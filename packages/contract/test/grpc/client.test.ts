// The client's bound on waiting in a server stream (CallOptions.idleTimeoutMs): each wait for
// a message is bounded, the stream as a whole is not. Against a real grpc-js server on port 0
// whose JobSearch sends messages on a schedule the test sets.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Client as GrpcChannel } from "@grpc/grpc-js";
import { create } from "@bufbuild/protobuf";
import { CurrentJobSchema, JobSchema, Manager } from "../../src/gen/norsk/api/manager_pb.js";
import type { CurrentJob } from "../../src/gen/norsk/api/manager_pb.js";
import { Code, GrpcError, createChannel, createClient } from "../../src/grpc/index.js";
import type { Client } from "../../src/grpc/index.js";
import { stubManager, untilAborted } from "../../../../test/helpers/stub-manager.js";
import type { StubManager } from "../../../../test/helpers/stub-manager.js";

/** Pauses (ms) before each message the server sends; a pause of Infinity waits for the cancel. */
let schedule: number[] = [];
const server = { cancelled: false, deadline: undefined as number | undefined };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const job = (i: number): CurrentJob => create(CurrentJobSchema, { job: create(JobSchema, { jobId: { jobId: `j-${i}` } }) });

let manager: StubManager;
let channel: GrpcChannel;
let client: Client<typeof Manager>;

beforeAll(async () => {
  manager = await stubManager({
    jobSearch: async function* (_request, context) {
      server.deadline = context.deadline;
      for (const [i, pause] of schedule.entries()) {
        if (pause === Infinity) {
          await untilAborted(context.signal);
          server.cancelled = true;
          return;
        }
        await sleep(pause);
        yield job(i);
      }
    },
  });
  channel = createChannel(manager.address);
  client = createClient(Manager, channel, { defaultTimeoutMs: 2_000 });
});

afterAll(() => {
  channel.close();
  manager.close();
});

beforeEach(() => {
  server.cancelled = false;
  server.deadline = undefined;
});

/** The job ids read, and the error that ended the stream, if one did; `pauseMs` between reads. */
async function read(options: Parameters<typeof client.jobSearch>[1], pauseMs = 0): Promise<{ ids: string[]; error?: GrpcError }> {
  const ids: string[] = [];
  try {
    for await (const current of client.jobSearch({}, options)) {
      ids.push(current.job?.jobId?.jobId ?? "");
      if (pauseMs > 0) await sleep(pauseMs);
    }
    return { ids };
  } catch (error) {
    if (!(error instanceof GrpcError)) throw error;
    return { ids, error };
  }
}

describe("idleTimeoutMs on a server stream", () => {
  it("fails a stream whose first message is later than the bound with DEADLINE_EXCEEDED, and cancels its call", async () => {
    schedule = [Infinity];
    const started = Date.now();
    const { ids, error } = await read({ idleTimeoutMs: 300, timeoutMs: Infinity });
    expect(ids).toEqual([]);
    expect(error?.code).toBe(Code.DEADLINE_EXCEEDED);
    expect(error?.details).toBe("no message within 300 ms");
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await expect.poll(() => server.cancelled).toBe(true);
  });

  it("lets a stream run far past the bound while each gap stays under it", async () => {
    schedule = Array.from({ length: 16 }, () => 100);
    const started = Date.now();
    const { ids, error } = await read({ idleTimeoutMs: 800, timeoutMs: Infinity });
    expect(error).toBeUndefined();
    expect(ids).toEqual(Array.from({ length: 16 }, (_, i) => `j-${i}`));
    // Twice the bound, in all.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_600);
    // Infinity is no deadline at all, as the server sees it.
    expect(server.deadline).toBeUndefined();
  });

  it("fails a stream at a gap longer than the bound, after every message sent before it", async () => {
    schedule = [0, 0, 0, Infinity];
    const { ids, error } = await read({ idleTimeoutMs: 300, timeoutMs: Infinity });
    expect(ids).toEqual(["j-0", "j-1", "j-2"]);
    expect(error?.code).toBe(Code.DEADLINE_EXCEEDED);
    await expect.poll(() => server.cancelled).toBe(true);
  });

  it("does not count the consumer's own time between messages", async () => {
    // The consumer takes twice the bound over each message; the server's messages wait for it.
    schedule = [0, 0, 0];
    const { ids, error } = await read({ idleTimeoutMs: 800, timeoutMs: Infinity }, 1_600);
    expect(error).toBeUndefined();
    expect(ids).toEqual(["j-0", "j-1", "j-2"]);
  });

  it("still ends the whole stream at timeoutMs when one is given", async () => {
    // Every gap well inside the idle bound, the whole stream (5 s) well past the total: only
    // the total can end it. The margins hold on a loaded machine.
    schedule = Array.from({ length: 50 }, () => 100);
    const { ids, error } = await read({ idleTimeoutMs: 1_500, timeoutMs: 2_000 });
    expect(error?.code).toBe(Code.DEADLINE_EXCEEDED);
    expect(ids.length).toBeGreaterThan(3);
    expect(ids.length).toBeLessThan(50);
  });
});

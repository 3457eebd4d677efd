import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client as GrpcChannel } from "@grpc/grpc-js";
import { create } from "@bufbuild/protobuf";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import { Manager, JobSchema, CurrentJobSchema } from "../../src/gen/norsk/api/manager_pb.js";
import { JobIdSchema } from "../../src/gen/norsk/api/common_pb.js";
import { Code, GrpcError, createChannel, createClient } from "../../src/grpc/index.js";
import type { Client } from "../../src/grpc/index.js";
import { stubManager } from "../../../../test/helpers/stub-manager.js";
import type { ManagerStub, StubManager } from "../../../../test/helpers/stub-manager.js";

// A service whose handlers record what they saw, so each test can assert the server's side.
// The RPCs it does not name answer UNIMPLEMENTED.
const seen = { metadata: new Map<string, string>(), streamAborted: false, produced: 0, unaryAborted: false };

const impl: ManagerStub = {
  createJob: (job, ctx) => {
    seen.metadata = new Map(ctx.metadata);
    if (job.jobId?.jobId === "") throw new GrpcError(Code.INVALID_ARGUMENT, "job_id is empty");
    if (job.jobId?.jobId === "boom") throw new Error("secret internal detail");
    return { hash: -9223372036854775808n };
  },
  updateJob: async (_job, ctx) => {
    // Never answers on its own: only a deadline or a cancellation ends it.
    await new Promise<void>((resolve) => {
      ctx.signal.addEventListener("abort", () => {
        resolve();
      });
    });
    seen.unaryAborted = true;
    return { hash: 0n };
  },
  deleteJob: () => create(EmptySchema),
  jobSearch: async function* (request, ctx) {
    seen.streamAborted = false;
    seen.produced = 0;
    const count = request.jobFilter.length === 0 ? 3 : 1_000_000;
    try {
      for (let i = 0; i < count; i++) {
        if (ctx.signal.aborted) return;
        seen.produced++;
        yield create(CurrentJobSchema, { job: create(JobSchema, { jobId: { jobId: `j-${i}` } }) });
        await new Promise((r) => setImmediate(r));
      }
    } finally {
      seen.streamAborted = ctx.signal.aborted;
    }
  },
  createStatusChannel: async function* () {
    yield* [];
    await Promise.resolve();
    throw new GrpcError(Code.UNAVAILABLE, "going away");
  },
};

let server: StubManager;
let channel: GrpcChannel;
let client: Client<typeof Manager>;

beforeAll(async () => {
  server = await stubManager(impl);
  channel = createChannel(server.address);
  client = createClient(Manager, channel, { defaultTimeoutMs: 2_000 });
});

afterAll(() => {
  channel.close();
  server.close();
});

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe("grpc bridge", () => {
  it("resolves a unary call with the typed response, int64 extremes intact", async () => {
    const reply = await client.createJob({ jobId: { jobId: "a" } });
    expect(reply.hash).toBe(-9223372036854775808n);
    expect(reply.$typeName).toBe("norsk.api.manager.JobHash");
  });

  it("accepts a message made with create() as well as an init object", async () => {
    const reply = await client.deleteJob(create(JobIdSchema, { jobId: "x" }));
    expect(reply.$typeName).toBe("google.protobuf.Empty");
  });

  it("forwards per-call metadata", async () => {
    await client.createJob({ jobId: { jobId: "m" } }, { metadata: { "x-request-id": "r-1", authorization: "Bearer t" } });
    expect(seen.metadata.get("x-request-id")).toBe("r-1");
    expect(seen.metadata.get("authorization")).toBe("Bearer t");
  });

  it("rejects with a GrpcError carrying the handler's code and message", async () => {
    const error = await client.createJob({ jobId: { jobId: "" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GrpcError);
    expect((error as GrpcError).code).toBe(Code.INVALID_ARGUMENT);
    expect((error as GrpcError).details).toBe("job_id is empty");
  });

  it("answers INTERNAL without the thrown error's text when a handler fails unexpectedly", async () => {
    const error = (await client.createJob({ jobId: { jobId: "boom" } }).catch((e: unknown) => e)) as GrpcError;
    expect(error.code).toBe(Code.INTERNAL);
    expect(error.details).not.toContain("secret");
  });

  it("ends a call at its deadline with DEADLINE_EXCEEDED and the server sees the abort", async () => {
    seen.unaryAborted = false;
    const error = (await client.updateJob({}, { timeoutMs: 100 }).catch((e: unknown) => e)) as GrpcError;
    expect(error.code).toBe(Code.DEADLINE_EXCEEDED);
    await until(() => seen.unaryAborted);
    expect(seen.unaryAborted).toBe(true);
  });

  it("cancels a unary call when its AbortSignal fires", async () => {
    const controller = new AbortController();
    setTimeout(() => { controller.abort(); }, 50);
    const error = (await client.updateJob({}, { signal: controller.signal }).catch((e: unknown) => e)) as GrpcError;
    expect(error.code).toBe(Code.CANCELLED);
  });

  it("rejects at once when the signal is already aborted", async () => {
    const error = (await client.createJob({}, { signal: AbortSignal.abort() }).catch((e: unknown) => e)) as GrpcError;
    expect(error.code).toBe(Code.CANCELLED);
  });

  it("iterates a server stream to its end", async () => {
    const ids: string[] = [];
    for await (const current of client.jobSearch({})) ids.push(current.job?.jobId?.jobId ?? "");
    expect(ids).toEqual(["j-0", "j-1", "j-2"]);
  });

  it("cancels the server stream when the consumer stops early", async () => {
    let taken = 0;
    for await (const _ of client.jobSearch({ jobFilter: [{}] })) {
      if (++taken === 5) break;
    }
    await until(() => seen.streamAborted);
    expect(seen.streamAborted).toBe(true);
    expect(seen.produced).toBeLessThan(10_000);
  });

  it("answers UNIMPLEMENTED, as grpc-js does, for a method the implementation lacks, unary or streaming", async () => {
    const unary = (await client.startJob({}).catch((e: unknown) => e)) as GrpcError;
    expect(unary).toBeInstanceOf(GrpcError);
    expect(unary.code).toBe(Code.UNIMPLEMENTED);
    expect(unary.details).toBe("The server does not implement the method /norsk.api.manager.Manager/StartJob");
    const iterate = async (): Promise<void> => {
      for await (const _ of client.eventStream({})) { /* none */ }
    };
    const stream = (await iterate().catch((e: unknown) => e)) as GrpcError;
    expect(stream.code).toBe(Code.UNIMPLEMENTED);
  });

  it("serves a handler set while serving from the next call, and UNIMPLEMENTED again once it is deleted", async () => {
    try {
      server.behaviour.startJob = () => ({});
      expect((await client.startJob({})).$typeName).toBe("google.protobuf.Empty");
    } finally {
      server.reset();
    }
    expect(((await client.startJob({}).catch((e: unknown) => e)) as GrpcError).code).toBe(Code.UNIMPLEMENTED);
    expect(server.calls.map((call) => call.method)).toEqual(["StartJob"]);
  });

  it("throws the stream's status as a GrpcError", async () => {
    const iterate = async (): Promise<void> => {
      for await (const _ of client.createStatusChannel({})) { /* none */ }
    };
    const error = (await iterate().catch((e: unknown) => e)) as GrpcError;
    expect(error).toBeInstanceOf(GrpcError);
    expect(error.code).toBe(Code.UNAVAILABLE);
    expect(error.details).toBe("going away");
  });
});

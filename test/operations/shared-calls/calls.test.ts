// The mechanism of shared reads (src/operations/shared-calls/calls.ts), with calls whose ends the
// test decides: which reads a call answers, when the next call starts, what it carries, and
// what happens to readers that leave. The end-to-end proof (real Manager, concurrent writers)
// is test/routes/coalesced-reads.test.ts.
import { describe, expect, it } from "vitest";
import { Code, GrpcError } from "norsk-manager-contract/grpc/index.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { SharedCalls } from "../../../src/operations/shared-calls/calls.js";

/** A call the test ends by hand, with the options it was made with. */
interface HeldCall {
  readonly options: CallOptions;
  resolve(value: string): void;
  reject(error: unknown): void;
}

function heldCalls(): { calls: HeldCall[]; call: (options: CallOptions) => Promise<string> } {
  const calls: HeldCall[] = [];
  return {
    calls,
    call: (options) =>
      new Promise<string>((resolve, reject) => {
        calls.push({ options, resolve, reject });
      }),
  };
}

const settled = async <T>(promise: Promise<T>): Promise<{ value?: T; error?: unknown }> =>
  promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

/** Lets promise callbacks run. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("SharedCalls", () => {
  it("answers a read that arrives during a call with the next call, started when that one ends", async () => {
    const coalescer = new SharedCalls<string>();
    const { calls, call } = heldCalls();
    const first = coalescer.read("job-1", {}, call);
    const second = coalescer.read("job-1", {}, call);
    const third = coalescer.read("job-1", {}, call);
    expect(calls).toHaveLength(1);
    calls[0]?.resolve("state before");
    expect(await first).toBe("state before");
    await turn();
    expect(calls).toHaveLength(2); // one call for both waiting reads
    calls[1]?.resolve("state after");
    expect(await second).toBe("state after");
    expect(await third).toBe("state after");
    expect(coalescer.inFlight).toBe(0);
  });

  it("counts the reads a call answered beyond the first", async () => {
    const shared: number[] = [];
    const coalescer = new SharedCalls<string>({ onShared: (reads) => shared.push(reads) });
    const { calls, call } = heldCalls();
    const reads = [coalescer.read("k", {}, call), coalescer.read("k", {}, call), coalescer.read("k", {}, call), coalescer.read("k", {}, call)];
    calls[0]?.resolve("a");
    await turn();
    calls[1]?.resolve("b");
    expect(await Promise.all(reads)).toEqual(["a", "b", "b", "b"]);
    expect(shared).toEqual([2]);
  });

  it("keeps different keys apart: each has its own call at once", async () => {
    const coalescer = new SharedCalls<string>();
    const { calls, call } = heldCalls();
    const a = coalescer.read("job-a", {}, call);
    const b = coalescer.read("job-b", {}, call);
    expect(calls).toHaveLength(2);
    calls[1]?.resolve("b");
    calls[0]?.resolve("a");
    expect([await a, await b]).toEqual(["a", "b"]);
  });

  it("gives every reader of a call its error", async () => {
    const coalescer = new SharedCalls<string>();
    const { calls, call } = heldCalls();
    const first = coalescer.read("k", {}, call);
    const waiting = [coalescer.read("k", {}, call), coalescer.read("k", {}, call)];
    calls[0]?.resolve("ok");
    await first;
    await turn();
    calls[1]?.reject(new GrpcError(Code.NOT_FOUND, "no such job"));
    for (const outcome of await Promise.all(waiting.map(settled))) {
      expect(outcome.error).toBeInstanceOf(GrpcError);
      expect((outcome.error as GrpcError).code).toBe(Code.NOT_FOUND);
    }
    expect(coalescer.inFlight).toBe(0);
  });

  it("makes a lone read's call with that read's own options", async () => {
    const coalescer = new SharedCalls<string>();
    const { calls, call } = heldCalls();
    const signal = new AbortController().signal;
    const options = { timeoutMs: 1234, metadata: { "x-request-id": "r1" }, signal };
    const read = coalescer.read("k", options, call);
    expect(calls[0]?.options).toBe(options);
    calls[0]?.resolve("v");
    await read;
  });

  it("makes a shared call with the first reader's metadata and the latest deadline", async () => {
    const coalescer = new SharedCalls<string>();
    const { calls, call } = heldCalls();
    const first = coalescer.read("k", {}, call);
    const waiting = [
      coalescer.read("k", { timeoutMs: 2_000, metadata: { "x-request-id": "second" } }, call),
      coalescer.read("k", { timeoutMs: 60_000, metadata: { "x-request-id": "third" } }, call),
    ];
    calls[0]?.resolve("v0");
    await first;
    await turn();
    const options = calls[1]?.options;
    expect(options?.metadata).toEqual({ "x-request-id": "second" });
    expect(options?.timeoutMs).toBeGreaterThan(59_000);
    expect(options?.timeoutMs).toBeLessThanOrEqual(60_000);
    calls[1]?.resolve("v1");
    expect(await Promise.all(waiting)).toEqual(["v1", "v1"]);
  });

  it("drops a reader whose client left, and cancels a shared call once every reader has left", async () => {
    const coalescer = new SharedCalls<string>();
    const { calls, call } = heldCalls();
    const first = coalescer.read("k", {}, call);
    const leaving = [new AbortController(), new AbortController()];
    const waiting = leaving.map((controller) => coalescer.read("k", { signal: controller.signal }, call));
    calls[0]?.resolve("v0");
    await first;
    await turn();
    const shared = calls[1]?.options.signal;
    leaving[0]?.abort();
    expect(shared?.aborted).toBe(false); // one reader still wants the answer
    leaving[1]?.abort();
    expect(shared?.aborted).toBe(true);
    for (const outcome of await Promise.all(waiting.map(settled))) expect((outcome.error as GrpcError).code).toBe(Code.CANCELLED);
    calls[1]?.reject(new GrpcError(Code.CANCELLED, "cancelled"));
    await turn();
    expect(coalescer.inFlight).toBe(0);
  });

  it("drops a waiting reader whose client left before its call started, and starts no call for nobody", async () => {
    const coalescer = new SharedCalls<string>();
    const { calls, call } = heldCalls();
    const first = coalescer.read("k", {}, call);
    const controller = new AbortController();
    const waiting = coalescer.read("k", { signal: controller.signal }, call);
    controller.abort();
    expect(((await settled(waiting)).error as GrpcError).code).toBe(Code.CANCELLED);
    calls[0]?.resolve("v0");
    await first;
    await turn();
    expect(calls).toHaveLength(1);
    expect(coalescer.inFlight).toBe(0);
  });

  it("ends a waiting read at its own deadline with DEADLINE_EXCEEDED", async () => {
    const coalescer = new SharedCalls<string>();
    const { calls, call } = heldCalls();
    const first = coalescer.read("k", {}, call);
    const waiting = coalescer.read("k", { timeoutMs: 20 }, call);
    const outcome = await settled(waiting);
    expect((outcome.error as GrpcError).code).toBe(Code.DEADLINE_EXCEEDED);
    calls[0]?.resolve("v0");
    expect(await first).toBe("v0");
  });

  it("fails the readers of a call that throws before it starts, and keeps no key in flight", async () => {
    const coalescer = new SharedCalls<string>();
    const outcome = await settled(
      coalescer.read("k", {}, () => {
        throw new GrpcError(Code.INVALID_ARGUMENT, "bad metadata");
      }),
    );
    expect((outcome.error as GrpcError).code).toBe(Code.INVALID_ARGUMENT);
    expect(coalescer.inFlight).toBe(0);
  });

  it("refuses a read whose signal has already aborted, without a call", async () => {
    const coalescer = new SharedCalls<string>();
    const { calls, call } = heldCalls();
    const outcome = await settled(coalescer.read("k", { signal: AbortSignal.abort() }, call));
    expect((outcome.error as GrpcError).code).toBe(Code.CANCELLED);
    expect(calls).toHaveLength(0);
  });
});

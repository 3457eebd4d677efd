import { describe, expect, it } from "vitest";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import { deadlineExceeded, problem, resourceExhausted } from "../../src/http/problem.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { JobWriteQueue } from "../../src/operations/job-write-queue.js";

/** Holds `jobId` in `queue` until the returned function is called. */
function hold(queue: JobWriteQueue, jobId: string): { release: () => void; done: Promise<void> } {
  let release = (): void => undefined;
  const done = queue.run(jobId, {}, () => new Promise<void>((resolve) => (release = resolve)));
  return { release: () => { release(); }, done };
}

describe("JobWriteQueue", () => {
  it("ends the wait of a write whose client goes away with CANCELLED; the write never runs", async () => {
    const queue = new JobWriteQueue();
    const holder = hold(queue, "job");
    const controller = new AbortController();
    let ran = false;
    const waiting = queue.run("job", { signal: controller.signal }, () => Promise.resolve(void (ran = true)));
    controller.abort();
    await expect(waiting).rejects.toEqual(problem("CANCELLED", "the client went away while the change waited"));
    holder.release();
    await holder.done;
    expect(ran).toBe(false);
    expect(queue.size).toBe(0);
  });

  it("ends a wait longer than timeoutMs with DEADLINE_EXCEEDED; the write never runs", async () => {
    const queue = new JobWriteQueue();
    const holder = hold(queue, "job");
    let ran = false;
    const waiting = queue.run("job", { timeoutMs: 30 }, () => Promise.resolve(void (ran = true)));
    await expect(waiting).rejects.toEqual(deadlineExceeded("earlier changes of this job did not finish before the deadline"));
    holder.release();
    await holder.done;
    expect(ran).toBe(false);
  });

  it("gives the write its calls' options without the client's signal: a write begun runs to its end though its client goes away", async () => {
    const controller = new AbortController();
    const options = { signal: controller.signal, timeoutMs: 1_000, metadata: { "x-request-id": "r" } };
    let calls: CallOptions | undefined;
    await new JobWriteQueue().run("job", options, (given) => Promise.resolve(void (calls = given)));
    expect(calls).toEqual({ timeoutMs: 1_000, metadata: { "x-request-id": "r" }, signal: undefined });
  });

  it("passes the write's own errors on unchanged, a timeout after the write started included", async () => {
    const queue = new JobWriteQueue();
    const own = new GrpcError(Code.NOT_FOUND, "job x not found");
    await expect(queue.run("job", { timeoutMs: 10_000 }, () => Promise.reject(own))).rejects.toBe(own);
    const slow = queue.run("job", { timeoutMs: 10 }, () => new Promise((resolve) => setTimeout(() => { resolve("written"); }, 50)));
    await expect(slow).resolves.toBe("written");
  });

  it("refuses a write beyond maxWaiting with a 429 problem", async () => {
    const queue = new JobWriteQueue({ maxWaiting: 1 });
    const holder = hold(queue, "job");
    const waiting = queue.run("job", {}, () => Promise.resolve("second"));
    const refused = queue.run("job", {}, () => Promise.resolve("third"));
    await expect(refused).rejects.toEqual(resourceExhausted("too many changes of this job are waiting (at most 1); try again later"));
    holder.release();
    await expect(waiting).resolves.toBe("second");
  });

  it("refuses a write whose client has already gone with CANCELLED, though nothing is queued; the write never runs", async () => {
    const queue = new JobWriteQueue();
    let ran = false;
    const refused = queue.run("job", { signal: AbortSignal.abort() }, () => Promise.resolve(void (ran = true)));
    await expect(refused).rejects.toEqual(problem("CANCELLED", "the client went away while the change waited"));
    expect(ran).toBe(false);
    expect(queue.size).toBe(0);
  });

  it("ends a shared write's wait behind an exclusive one with DEADLINE_EXCEEDED, and runs shared writes side by side", async () => {
    const queue = new JobWriteQueue();
    const holder = hold(queue, "job");
    const late = queue.run("job", { timeoutMs: 30 }, () => Promise.resolve("late"), { shared: true });
    await expect(late).rejects.toEqual(deadlineExceeded("earlier changes of this job did not finish before the deadline"));
    holder.release();
    await holder.done;
    let release = (): void => undefined;
    const first = queue.run("job", {}, () => new Promise<string>((resolve) => (release = () => { resolve("first"); })), { shared: true });
    await expect(queue.run("job", { timeoutMs: 30 }, () => Promise.resolve("second"), { shared: true })).resolves.toBe("second");
    release();
    await expect(first).resolves.toBe("first");
    expect(queue.size).toBe(0);
  });
});

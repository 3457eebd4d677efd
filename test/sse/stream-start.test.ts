// How an event-stream body starts: a call that cannot even be opened (open() throws), fails
// at once or never answers is a failed start, which the route answers as an ordinary problem;
// never an exception from a timer that outlives it.
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import { ProblemError } from "../../src/http/problem.js";
import type { ProblemJson } from "../../schemas/common.js";
import { StreamBody } from "../../src/sse/stream-body.js";
import type { BytesStreamHandlers, OpenBytesStream } from "norsk-manager-contract/grpc/client.js";

function bodyWith(open: OpenBytesStream, startTimeoutMs = 20): StreamBody {
  return new StreamBody({
    heartbeatMs: 1_000,
    bufferLimitBytes: 1024,
    format: "sse",
    open,
    decode: () => undefined,
    startTimeoutMs,
    problemOf: (): ProblemJson => ({ type: "about:blank", title: "Error", status: 500, detail: "", instance: "/", requestId: "r" }),
    response: new ServerResponse(new IncomingMessage(new Socket())),
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
  vi.useRealTimers();
});

describe("StreamBody's start", () => {
  it("fails the start with the error open() throws, and leaves no timer behind to fire", async () => {
    const thrown = new Error("Metadata key \"a!b\" contains illegal characters");
    const body = bodyWith(() => {
      throw thrown;
    });
    await expect(body.started).rejects.toBe(thrown);
    // Past the start timeout: a timer armed before open() threw would fire here.
    await pause(60);
  });

  it("fails the start with an error reported while open() runs, and does not arm the timer", async () => {
    let cancels = 0;
    const failure = new GrpcError(Code.UNAVAILABLE, "no connection");
    const body = bodyWith((handlers) => {
      handlers.error(failure);
      return () => {
        cancels++;
      };
    });
    await expect(body.started).rejects.toBe(failure);
    await pause(60);
    expect(cancels).toBe(0);
  });

  it("still fails a call that never starts at the start timeout, cancelling it once", async () => {
    let cancels = 0;
    const body = bodyWith(() => () => {
      cancels++;
    });
    const error: unknown = await body.started.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({ status: 504, code: "DEADLINE_EXCEEDED", detail: "the Manager did not start the stream before the deadline" });
    expect(cancels).toBe(1);
  });

  it("leaves no timer at all behind a call that failed while open() ran", () => {
    vi.useFakeTimers();
    const body = bodyWith((handlers) => {
      handlers.error(new GrpcError(Code.UNAVAILABLE, "no connection"));
      return () => undefined;
    });
    body.started.catch(() => undefined);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("keeps a stream started if open() throws after the Manager's first message", async () => {
    let upstream: BytesStreamHandlers | undefined;
    const body = bodyWith((handlers) => {
      upstream = handlers;
      handlers.message(Buffer.from("first"));
      throw new Error("thrown after the start");
    });
    await expect(body.started).resolves.toBeUndefined();
    // Ended by the Manager's end, as any started stream is.
    body.resume();
    upstream?.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(body.readableEnded).toBe(true);
  });
});

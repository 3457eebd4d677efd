import { Metadata } from "@grpc/grpc-js";
import { describe, expect, it } from "vitest";
import { callError, isSessionClosed, readWithRetry } from "../../src/grpc/dropped.js";
import { Code, GrpcError } from "../../src/grpc/errors.js";

const SESSION_CLOSED = "Received RST_STREAM with code 2 triggered by internal client error: Session closed with error code 2";

/** What grpc-js rejects a call with: an Error with code, details and metadata. */
function serviceError(code: Code, details: string): Error {
  return Object.assign(new Error(`${Code[code]}: ${details}`), { code, details, metadata: new Metadata() });
}

describe("callError", () => {
  it("turns a call whose HTTP/2 session the server closed with an error into UNAVAILABLE", () => {
    const error = callError(serviceError(Code.INTERNAL, SESSION_CLOSED));
    expect(error).toBeInstanceOf(GrpcError);
    expect({ code: error.code, details: error.details }).toEqual({ code: Code.UNAVAILABLE, details: `the Manager closed the connection (${SESSION_CLOSED})` });
  });

  it.each([
    "Received RST_STREAM with code 2 (Internal server error)",
    "Received RST_STREAM with code 2",
    "panic: nil map",
    `${SESSION_CLOSED} and more`,
  ])("leaves any other INTERNAL as it is: %s", (details) => {
    const error = callError(serviceError(Code.INTERNAL, details));
    expect({ code: error.code, details: error.details }).toEqual({ code: Code.INTERNAL, details });
  });

  it("leaves the same text under another code as it is", () => {
    expect(isSessionClosed(new GrpcError(Code.UNKNOWN, SESSION_CLOSED))).toBe(false);
    expect(callError(serviceError(Code.NOT_FOUND, "job x not found")).code).toBe(Code.NOT_FOUND);
  });
});

describe("readWithRetry", () => {
  /** A read that fails with each of `failures` in turn, then answers "read". */
  function flaky(...failures: GrpcError[]): { read: () => Promise<string>; calls: () => number } {
    let calls = 0;
    return {
      read: () => {
        const failure = failures[calls++];
        return failure === undefined ? Promise.resolve("read") : Promise.reject(failure);
      },
      calls: () => calls,
    };
  }
  const lost = new GrpcError(Code.UNAVAILABLE, "Connection dropped");

  it("makes a read whose connection went away once more", async () => {
    const read = flaky(lost);
    await expect(readWithRetry(read.read)).resolves.toBe("read");
    expect(read.calls()).toBe(2);
  });

  it("makes it only once more: a second loss is the answer", async () => {
    const second = new GrpcError(Code.UNAVAILABLE, "again");
    const read = flaky(lost, second);
    await expect(readWithRetry(read.read)).rejects.toBe(second);
    expect(read.calls()).toBe(2);
  });

  it.each([new GrpcError(Code.INTERNAL, "panic"), new GrpcError(Code.NOT_FOUND, "gone"), new GrpcError(Code.DEADLINE_EXCEEDED, "late")])(
    "does not make it again after %s",
    async (failure) => {
      const read = flaky(failure);
      await expect(readWithRetry(read.read)).rejects.toBe(failure);
      expect(read.calls()).toBe(1);
    },
  );

  it("does not make it again once the request is aborted (the client went away)", async () => {
    const read = flaky(lost);
    await expect(readWithRetry(read.read, AbortSignal.abort())).rejects.toBe(lost);
    expect(read.calls()).toBe(1);
  });
});

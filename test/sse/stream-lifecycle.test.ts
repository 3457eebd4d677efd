// StreamBody from its start to its end, driven through its injection point `open` (the test
// plays the Manager) with a decoder of its own: which events a client gets and how they are
// numbered, what ends a stream (the Manager's end or failure, a message that does not decode,
// fail()), that nothing is sent or reported after the end, the heartbeat of an idle stream, and
// the linger after which a client that does not take the rest is disconnected. Timers are
// vitest's fake ones where the test is about time (the heartbeat, the linger).
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import { ProblemError } from "../../src/http/problem.js";
import type { ProblemJson } from "../../schemas/common.js";
import type { EncodedEvent } from "../../src/sse/decoder.js";
import { formatError, formatEvent, frameText, heartbeat } from "../../src/sse/frames.js";
import type { StreamFormat } from "../../src/sse/frames.js";
import { LINGER_MS, StreamBody } from "../../src/sse/stream-body.js";
import type { BytesStreamHandlers } from "norsk-manager-contract/grpc/client.js";

/** The test's decoder: "" is an event this build does not know, "bad" does not decode. */
function decode(bytes: Buffer): EncodedEvent | undefined {
  const text = bytes.toString();
  if (text === "bad") throw new Error("the message does not decode");
  return text === "" ? undefined : { event: "jobUpdated", data: text };
}

const problemOf = (error: unknown): ProblemJson => ({
  type: "about:blank",
  title: "Service Unavailable",
  status: 503,
  detail: error instanceof Error ? error.message : String(error),
  instance: "/v1/events",
  requestId: "r-1",
});

const SHUTDOWN: ProblemJson = { ...problemOf("the gateway is shutting down"), code: "UNAVAILABLE" };

const bodies: StreamBody[] = [];
afterEach(() => {
  for (const body of bodies.splice(0)) body.destroy();
  vi.useRealTimers();
});

interface Options {
  readonly format?: StreamFormat;
  readonly heartbeatMs?: number;
}

/** A body whose call the test plays (`upstream`), with what it cancelled, reported and destroyed. */
function streamBody({ format = "sse", heartbeatMs = 3_600_000 }: Options = {}) {
  let upstream: BytesStreamHandlers | undefined;
  const seen = { cancelled: 0, failures: [] as unknown[], destroys: 0, errors: [] as unknown[] };
  const response = new ServerResponse(new IncomingMessage(new Socket()));
  const destroy = response.destroy.bind(response);
  response.destroy = (error?: Error) => {
    seen.destroys++;
    return destroy(error);
  };
  const body = new StreamBody({
    format,
    heartbeatMs,
    bufferLimitBytes: 1 << 20,
    startTimeoutMs: 60_000,
    open: (handlers) => {
      upstream = handlers;
      return () => {
        seen.cancelled++;
      };
    },
    decode,
    problemOf,
    response,
    onFailure: (error) => seen.failures.push(error),
  });
  body.on("error", (error) => seen.errors.push(error));
  bodies.push(body);
  const manager = (): BytesStreamHandlers => {
    if (upstream === undefined) throw new Error("the stream was not opened");
    return upstream;
  };
  const send = (...texts: string[]): void => {
    for (const text of texts) manager().message(Buffer.from(text));
  };
  return { body, seen, response, manager, send };
}

async function textOf(body: StreamBody): Promise<string> {
  let text = "";
  for await (const chunk of body) text += String(chunk);
  return text;
}

const event = (json: string, id: number, format: StreamFormat = "sse"): string => frameText(formatEvent(format, { event: "jobUpdated", data: json }, id));

describe("StreamBody's events", () => {
  it("numbers the events 1, 2, 3 in the order the Manager sent them, and ends when the Manager ends", async () => {
    const { body, manager, send } = streamBody();
    send('{"n":1}', '{"n":2}', '{"n":3}');
    manager().end();
    expect(await textOf(body)).toBe(event('{"n":1}', 1) + event('{"n":2}', 2) + event('{"n":3}', 3));
  });

  it("writes NDJSON lines when the format is ndjson", async () => {
    const { body, manager, send } = streamBody({ format: "ndjson" });
    send('{"n":1}');
    manager().end();
    expect(await textOf(body)).toBe('{"event":"jobUpdated","data":{"n":1}}\n');
  });

  it("skips an event this build does not know without using up an id", async () => {
    const { body, manager, send } = streamBody();
    send('{"n":1}', "", '{"n":2}');
    manager().end();
    expect(await textOf(body)).toBe(event('{"n":1}', 1) + event('{"n":2}', 2));
  });

  it("ends with an error event when a message does not decode, reporting it and cancelling the call", async () => {
    const { body, seen, send } = streamBody();
    send('{"n":1}', "bad");
    expect(seen.failures).toEqual([new Error("the message does not decode")]);
    expect(seen.cancelled).toBe(1);
    expect(await textOf(body)).toBe(event('{"n":1}', 1) + formatError("sse", problemOf(new Error("the message does not decode"))));
  });

  it("sends nothing the Manager delivers after the stream has ended", async () => {
    const { body, seen, send } = streamBody();
    send('{"n":1}', "bad", '{"n":2}');
    expect(await textOf(body)).toBe(event('{"n":1}', 1) + formatError("sse", problemOf(new Error("the message does not decode"))));
    expect(seen.errors).toEqual([]);
  });
});

describe("StreamBody's failures", () => {
  it("ends with an error event when the Manager's stream fails after it started, and reports the failure", async () => {
    const { body, seen, manager, send } = streamBody();
    const failure = new GrpcError(Code.UNAVAILABLE, "the Manager went away");
    send('{"n":1}');
    manager().error(failure);
    expect(seen.failures).toEqual([failure]);
    expect(await textOf(body)).toBe(event('{"n":1}', 1) + formatError("sse", problemOf(failure)));
  });

  it("does not report the error a call gives after the stream ended (the CANCELLED of its own cancel)", async () => {
    const { body, seen, manager, send } = streamBody();
    send('{"n":1}');
    manager().end();
    manager().error(new GrpcError(Code.CANCELLED, "Cancelled on client"));
    expect(seen.failures).toEqual([]);
    expect(await textOf(body)).toBe(event('{"n":1}', 1));
  });

  it("fail() before the start fails the start with that problem and cancels the call", async () => {
    const { body, seen } = streamBody();
    body.fail(SHUTDOWN);
    const error: unknown = await body.started.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({ status: 503, code: "UNAVAILABLE", detail: "the gateway is shutting down" });
    expect(seen.cancelled).toBe(1);
  });

  it("fail() after the stream ended adds nothing to it", async () => {
    const { body, seen, manager, send } = streamBody();
    send('{"n":1}');
    manager().end();
    body.fail(SHUTDOWN);
    expect(await textOf(body)).toBe(event('{"n":1}', 1));
    expect(seen.errors).toEqual([]);
  });
});

describe("StreamBody's heartbeat", () => {
  it("sends a heartbeat into an idle stream, and none into a buffer the client has not taken", () => {
    vi.useFakeTimers();
    const { body, send } = streamBody({ heartbeatMs: 10 });
    send("");
    expect(body.readableLength).toBe(0);
    vi.advanceTimersByTime(10);
    expect(body.readableLength).toBe(Buffer.byteLength(heartbeat("sse")));
    vi.advanceTimersByTime(50);
    expect(body.readableLength).toBe(Buffer.byteLength(heartbeat("sse")));
  });

  it("beats once per interval however many messages came, and not after the end", async () => {
    vi.useFakeTimers();
    const { body, seen, manager, send } = streamBody({ heartbeatMs: 10 });
    let text = "";
    body.on("data", (chunk) => (text += String(chunk)));
    send("", "");
    await vi.advanceTimersByTimeAsync(25);
    manager().end();
    await vi.advanceTimersByTimeAsync(50);
    expect(text).toBe(heartbeat("sse").repeat(2));
    expect(seen.errors).toEqual([]);
  });
});

describe("StreamBody's end", () => {
  it("cancels the call once: at the end, not again when the client then goes away", () => {
    const { body, seen, manager, send } = streamBody();
    send('{"n":1}');
    manager().end();
    body.destroy();
    expect(seen.cancelled).toBe(1);
  });

  it("disconnects a client that has not taken the rest when lingerMs has passed, not before", () => {
    vi.useFakeTimers();
    const { body, seen, response, send } = streamBody();
    send('{"n":1}');
    body.fail(SHUTDOWN, 1_000);
    vi.advanceTimersByTime(999);
    expect(response.destroyed).toBe(false);
    vi.advanceTimersByTime(1);
    expect(response.destroyed).toBe(true);
    expect(seen.destroys).toBe(1);
  });

  it("does not disconnect a client whose response has finished", () => {
    vi.useFakeTimers();
    const { body, seen, response, send } = streamBody();
    send('{"n":1}');
    body.fail(SHUTDOWN, 1_000);
    Object.defineProperty(response, "writableFinished", { get: () => true });
    vi.advanceTimersByTime(1_000);
    expect(seen.destroys).toBe(0);
  });

  it("stops the linger when the client's connection closes first", () => {
    vi.useFakeTimers();
    const { body, seen, response, send } = streamBody();
    send('{"n":1}');
    body.fail(SHUTDOWN, 1_000);
    response.emit("close");
    vi.advanceTimersByTime(1_000);
    expect(seen.destroys).toBe(0);
  });

  it("arms no linger for a response that is already gone", () => {
    vi.useFakeTimers();
    const { seen, response, manager, send } = streamBody();
    send('{"n":1}');
    response.destroy();
    manager().end();
    vi.advanceTimersByTime(LINGER_MS);
    expect(seen.destroys).toBe(1); // the test's own
  });

  it("disconnects once: the Manager's end after a failure arms no second linger", () => {
    vi.useFakeTimers();
    const { body, seen, manager, send } = streamBody();
    send('{"n":1}');
    body.fail(SHUTDOWN, 1_000);
    manager().end();
    vi.advanceTimersByTime(LINGER_MS);
    expect(seen.destroys).toBe(1);
  });
});

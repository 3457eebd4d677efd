// StreamBody's per-client bound, to the byte. On the wire the bound hides behind the sockets'
// buffers (how much they take is the kernel's business), so it is pinned here instead: a body
// that nobody reads (a client that never reads) fed by the class's own injection point, `open`,
// with real messages through the real decoder and framing. The contract: the oldest frame still
// waiting (the one in flight) is never counted, whatever its size; what waits behind it may be
// at most `bufferLimitBytes`, judged once per event-loop turn.
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { create, toBinary } from "@bufbuild/protobuf";
import { afterEach, describe, expect, it } from "vitest";
import { EventStreamEventSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { ProblemJson } from "../../schemas/common.js";
import { EventDecoder } from "../../src/sse/decoder.js";
import { formatError, formatEvent, frameText } from "../../src/sse/frames.js";
import { SlowClientError, StreamBody, WRITE_INTERVAL_MS } from "../../src/sse/stream-body.js";
import type { BytesStreamHandlers } from "norsk-manager-contract/grpc/client.js";

const LIMIT = 4096;
const decoder = new EventDecoder(EventStreamEventSchema);

/** A jobDeleted message whose SSE frame, numbered `id`, is exactly `size` bytes long. */
function messageOfFrameSize(size: number, id: number): { bytes: Buffer; frame: string } {
  const messageFor = (jobId: string) =>
    Buffer.from(toBinary(EventStreamEventSchema, create(EventStreamEventSchema, { event: { case: "jobDeleted", value: { jobId: { jobId } } } })));
  const frameOf = (bytes: Buffer) => {
    const event = decoder.decode(bytes);
    if (event === undefined) throw new Error("jobDeleted did not decode");
    return frameText(formatEvent("sse", event, id));
  };
  const overhead = Buffer.byteLength(frameOf(messageFor("")));
  const bytes = messageFor("x".repeat(size - overhead));
  const frame = frameOf(bytes);
  expect(Buffer.byteLength(frame)).toBe(size);
  return { bytes, frame };
}

const problemOf = (error: unknown): ProblemJson => ({
  type: "about:blank",
  title: "Too Many Requests",
  status: 429,
  detail: error instanceof Error ? error.message : String(error),
  instance: "/v1/events",
  requestId: "r-1",
});

const bodies: StreamBody[] = [];
afterEach(() => {
  for (const body of bodies.splice(0)) body.destroy();
});

/** A started body with LIMIT bytes of room that nobody reads; `deliver` plays the Manager. */
function unreadBody() {
  let upstream: BytesStreamHandlers | undefined;
  const seen = { cancelled: 0, failures: [] as unknown[] };
  const observed: string[] = [];
  const body = new StreamBody({
    format: "sse",
    heartbeatMs: 3_600_000, // no heartbeat may add to the buffer during a test
    bufferLimitBytes: LIMIT,
    startTimeoutMs: 60_000,
    open: (handlers) => {
      upstream = handlers;
      return () => {
        seen.cancelled++;
      };
    },
    decode: (bytes) => decoder.decode(bytes),
    problemOf,
    response: new ServerResponse(new IncomingMessage(new Socket())),
    onFailure: (error) => seen.failures.push(error),
    observer: {
      opened: () => observed.push("opened"),
      event: () => observed.push("event"),
      heartbeat: () => observed.push("heartbeat"),
      dropped: () => observed.push("dropped"),
      closed: () => observed.push("closed"),
    },
  });
  bodies.push(body);
  const deliver = (bytes: Buffer): void => {
    if (upstream === undefined) throw new Error("the stream was not opened");
    upstream.message(bytes);
  };
  return { body, seen, deliver, observed };
}

/** Everything the body holds for its client, up to its end. */
async function textOf(body: StreamBody): Promise<string> {
  let text = "";
  for await (const chunk of body) text += String(chunk);
  return text;
}

const slowClientError = `the client fell more than ${LIMIT} bytes behind`;

/** Lets the turn end: the bound is judged after the turn's writes. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("StreamBody's bound on what waits for a client", () => {
  it("keeps a client whose frames behind the one in flight come to exactly bufferLimitBytes", async () => {
    const { body, seen, deliver } = unreadBody();
    const first = messageOfFrameSize(1000, 1);
    const second = messageOfFrameSize(LIMIT - 1000, 2);
    const third = messageOfFrameSize(1000, 3);
    deliver(first.bytes);
    await body.started;
    deliver(second.bytes);
    deliver(third.bytes);
    await turn();
    expect(body.waitingBytes).toBe(LIMIT + 1000);
    expect(body.behindBytes).toBe(LIMIT);
    expect(seen).toEqual({ cancelled: 0, failures: [] });
  });

  it("ends the stream with the error event once bufferLimitBytes + 1 wait behind the frame in flight", async () => {
    const { body, seen, deliver } = unreadBody();
    const first = messageOfFrameSize(1000, 1);
    const second = messageOfFrameSize(LIMIT - 1000 + 1, 2);
    const third = messageOfFrameSize(1000, 3);
    deliver(first.bytes);
    await body.started;
    deliver(second.bytes);
    deliver(third.bytes);
    expect(seen.failures).toEqual([]); // not judged at each frame: at the end of the turn
    await turn();
    expect(seen.failures).toEqual([new SlowClientError(slowClientError)]);
    expect(seen.cancelled).toBe(1); // the Manager's stream is released at once
    expect(await textOf(body)).toBe(first.frame + second.frame + third.frame + formatError("sse", problemOf(new Error(slowClientError))));
  });

  it("delivers a frame far larger than bufferLimitBytes alone, and whole, when nothing else waits", async () => {
    const { body, seen, deliver } = unreadBody();
    const big = messageOfFrameSize(LIMIT * 8, 1);
    deliver(big.bytes);
    await body.started;
    await turn();
    expect(body.behindBytes).toBe(0);
    expect(seen.failures).toEqual([]);
    body.fail(problemOf(new Error("the end")));
    expect(await textOf(body)).toBe(big.frame + formatError("sse", problemOf(new Error("the end"))));
  });

  it("counts a large frame behind one in flight: behind a waiting frame it is judged like any other", async () => {
    const { body, seen, deliver } = unreadBody();
    deliver(messageOfFrameSize(100, 1).bytes);
    await body.started;
    deliver(messageOfFrameSize(LIMIT + 1, 2).bytes);
    await turn();
    expect(seen.failures).toEqual([new SlowClientError(slowClientError)]);
  });

  it("forgets the frames its client has taken: what was in flight no longer counts once read", async () => {
    const { body, seen, deliver } = unreadBody();
    const big = messageOfFrameSize(LIMIT * 2, 1);
    deliver(big.bytes);
    await body.started;
    await turn();
    expect(String(body.read())).toBe(big.frame); // the client takes the large frame
    deliver(messageOfFrameSize(LIMIT, 2).bytes); // now in flight itself
    deliver(messageOfFrameSize(LIMIT, 3).bytes); // behind it, exactly the limit
    await turn();
    expect(body.behindBytes).toBe(LIMIT);
    expect(seen.failures).toEqual([]);
  });

  it("tells its observer (the metrics) each event queued, the drop, and the close, in order", async () => {
    const { body, deliver, observed } = unreadBody();
    deliver(messageOfFrameSize(1000, 1).bytes);
    await body.started;
    deliver(messageOfFrameSize(1000, 2).bytes);
    deliver(messageOfFrameSize(LIMIT, 3).bytes);
    await turn();
    deliver(messageOfFrameSize(100, 4).bytes);
    expect(observed).toEqual(["opened", "event", "event", "event", "dropped"]);
    await textOf(body);
    await turn();
    expect(observed).toEqual(["opened", "event", "event", "event", "dropped", "closed"]);
  });
});

describe("StreamBody's writes", () => {
  /** The chunks the body hands to its client, as they come. */
  function chunksOf(body: StreamBody): { chunks: string[]; at: number[] } {
    const seen = { chunks: [] as string[], at: [] as number[] };
    body.on("data", (chunk: Buffer) => {
      seen.chunks.push(String(chunk));
      seen.at.push(performance.now());
    });
    return seen;
  }

  it("writes an event after a quiet spell at once, and the events that follow within WRITE_INTERVAL_MS together", async () => {
    const { body, deliver } = unreadBody();
    const frames = [1, 2, 3, 4].map((id) => messageOfFrameSize(200, id));
    const seen = chunksOf(body);
    const sent = performance.now();
    deliver(frames[0]?.bytes ?? Buffer.alloc(0));
    await body.started;
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.chunks).toEqual([frames[0]?.frame]); // at once, alone
    for (const frame of frames.slice(1)) deliver(frame.bytes);
    expect(body.waitingBytes).toBe(600); // held, and counted against the client's bound
    await new Promise((resolve) => setTimeout(resolve, WRITE_INTERVAL_MS + 20));
    expect(seen.chunks).toEqual([frames[0]?.frame, frames.slice(1).map((f) => f.frame).join("")]);
    expect((seen.at[1] ?? 0) - sent).toBeGreaterThanOrEqual(WRITE_INTERVAL_MS - 2);
  });

  it("writes the events held back before the final error event when the stream fails", async () => {
    const { body, deliver } = unreadBody();
    const first = messageOfFrameSize(200, 1);
    const second = messageOfFrameSize(200, 2);
    deliver(first.bytes);
    await body.started;
    deliver(second.bytes); // held for the next write
    const problem = problemOf(new Error("the Manager went away"));
    body.fail(problem);
    expect(await textOf(body)).toBe(first.frame + second.frame + formatError("sse", problem));
  });
});

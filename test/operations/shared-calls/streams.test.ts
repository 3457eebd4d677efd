// Event streams shared by clients opening together (src/operations/shared-calls/streams.ts), with
// upstream streams the test plays: which clients a stream serves, when the next one opens, what
// each client receives, and what happens when clients leave. End to end (real Manager, real
// SSE clients): test/routes/shared-streams.test.ts.
import { afterEach, describe, expect, it, vi } from "vitest";
import { Code, GrpcError } from "norsk-manager-contract/grpc/index.js";
import type { BytesStreamHandlers, OpenBytesStream } from "norsk-manager-contract/grpc/client.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { SHARE_INTERVAL_MS, SharedStreams } from "../../../src/operations/shared-calls/streams.js";

/** Upstream streams opened so far, each with its options, its handlers and whether it was cancelled. */
function upstreams() {
  const opened: { options: CallOptions; handlers: BytesStreamHandlers; cancelled: boolean }[] = [];
  const open = (options: CallOptions): OpenBytesStream => (handlers) => {
    const entry = { options, handlers, cancelled: false };
    opened.push(entry);
    return () => {
      entry.cancelled = true;
    };
  };
  return { opened, open };
}

/** A client: what it received, in order. */
function client() {
  const seen: string[] = [];
  const handlers: BytesStreamHandlers = {
    message: (bytes) => seen.push(bytes.toString()),
    end: () => seen.push("end"),
    error: (error) => seen.push(`error ${Code[error.code]}`),
  };
  return { seen, handlers };
}

const bytes = (text: string) => Buffer.from(text);

describe("SharedStreams", () => {
  it("gives the clients that open while a stream starts the next stream, opened once that one has started", () => {
    const sharing = new SharedStreams({ minIntervalMs: 0 });
    const { opened, open } = upstreams();
    const [a, b, c] = [client(), client(), client()];
    sharing.open("k", {}, open)(a.handlers);
    sharing.open("k", {}, open)(b.handlers);
    sharing.open("k", {}, open)(c.handlers);
    expect(opened).toHaveLength(1); // b and c wait: the first stream's picture may be older than their arrival
    opened[0]?.handlers.message(bytes("picture for a"));
    expect(opened).toHaveLength(2); // started: the next stream opens for b and c
    opened[1]?.handlers.message(bytes("picture for b, c"));
    opened[1]?.handlers.message(bytes("change 1"));
    opened[0]?.handlers.message(bytes("change 1"));
    expect(a.seen).toEqual(["picture for a", "change 1"]);
    expect(b.seen).toEqual(["picture for b, c", "change 1"]);
    expect(c.seen).toEqual(b.seen);
    expect(sharing.starting).toBe(0);
  });

  it("opens a stream at once when none is starting, also after an earlier one has started", () => {
    const sharing = new SharedStreams({ minIntervalMs: 0 });
    const { opened, open } = upstreams();
    sharing.open("k", {}, open)(client().handlers);
    opened[0]?.handlers.message(bytes("picture"));
    sharing.open("k", {}, open)(client().handlers);
    expect(opened).toHaveLength(2);
  });

  it("keeps different keys apart", () => {
    const sharing = new SharedStreams({ minIntervalMs: 0 });
    const { opened, open } = upstreams();
    sharing.open("events 0", {}, open)(client().handlers);
    sharing.open("events 60", {}, open)(client().handlers);
    expect(opened).toHaveLength(2);
  });

  it("counts the clients a stream serves beyond the first", () => {
    const shared: number[] = [];
    const sharing = new SharedStreams({ minIntervalMs: 0, onShared: (clients) => shared.push(clients) });
    const { opened, open } = upstreams();
    for (let i = 0; i < 4; i++) sharing.open("k", {}, open)(client().handlers);
    opened[0]?.handlers.message(bytes("p"));
    expect(shared).toEqual([2]);
  });

  it("opens a shared stream with the first client's metadata and without any one client's signal", () => {
    const sharing = new SharedStreams({ minIntervalMs: 0 });
    const { opened, open } = upstreams();
    sharing.open("k", { metadata: { "x-request-id": "first" }, signal: new AbortController().signal }, open)(client().handlers);
    sharing.open("k", { metadata: { "x-request-id": "second" }, signal: new AbortController().signal }, open)(client().handlers);
    sharing.open("k", { metadata: { "x-request-id": "third" }, signal: new AbortController().signal }, open)(client().handlers);
    expect(opened[0]?.options.signal).toBeDefined(); // a stream of its own keeps its client's signal
    opened[0]?.handlers.message(bytes("p"));
    expect(opened[1]?.options.metadata).toEqual({ "x-request-id": "second" });
    expect(opened[1]?.options.signal).toBeUndefined();
  });

  it("cancels a shared stream only when its last client leaves", () => {
    const sharing = new SharedStreams({ minIntervalMs: 0 });
    const { opened, open } = upstreams();
    sharing.open("k", {}, open)(client().handlers);
    const leave = [sharing.open("k", {}, open)(client().handlers), sharing.open("k", {}, open)(client().handlers)];
    opened[0]?.handlers.message(bytes("p"));
    leave[0]?.();
    expect(opened[1]?.cancelled).toBe(false);
    leave[1]?.();
    expect(opened[1]?.cancelled).toBe(true);
  });

  it("forgets a client that leaves while it waits, and opens nothing for nobody", () => {
    const sharing = new SharedStreams({ minIntervalMs: 0 });
    const { opened, open } = upstreams();
    sharing.open("k", {}, open)(client().handlers);
    const leave = sharing.open("k", {}, open)(client().handlers);
    leave();
    opened[0]?.handlers.message(bytes("p"));
    expect(opened).toHaveLength(1);
    expect(sharing.starting).toBe(0);
  });

  it("opens the next stream when every client of a starting one has left", () => {
    const sharing = new SharedStreams({ minIntervalMs: 0 });
    const { opened, open } = upstreams();
    const leaveFirst = sharing.open("k", {}, open)(client().handlers);
    const waiting = client();
    sharing.open("k", {}, open)(waiting.handlers);
    leaveFirst();
    expect(opened[0]?.cancelled).toBe(true);
    expect(opened).toHaveLength(2);
    opened[1]?.handlers.message(bytes("picture"));
    expect(waiting.seen).toEqual(["picture"]);
  });

  it("ends or fails every client of a stream with it, and a failure before the start opens the next stream", () => {
    const sharing = new SharedStreams({ minIntervalMs: 0 });
    const { opened, open } = upstreams();
    const first = client();
    sharing.open("k", {}, open)(first.handlers);
    const [b, c] = [client(), client()];
    sharing.open("k", {}, open)(b.handlers);
    sharing.open("k", {}, open)(c.handlers);
    opened[0]?.handlers.error(new GrpcError(Code.UNAVAILABLE, "no Manager"));
    expect(first.seen).toEqual(["error UNAVAILABLE"]);
    expect(opened).toHaveLength(2);
    opened[1]?.handlers.message(bytes("p"));
    opened[1]?.handlers.end();
    expect(b.seen).toEqual(["p", "end"]);
    expect(c.seen).toEqual(["p", "end"]);
  });

  it("leaves no key starting when a stream cannot even be opened, so the next client gets one", () => {
    const sharing = new SharedStreams({ minIntervalMs: 0 });
    const { opened, open } = upstreams();
    const failing = (): OpenBytesStream => {
      throw new Error("bad metadata");
    };
    expect(() => sharing.open("k", {}, failing)(client().handlers)).toThrow("bad metadata");
    expect(sharing.starting).toBe(0);
    sharing.open("k", {}, open)(client().handlers);
    expect(opened).toHaveLength(1);
  });

  it("does not share a stream with a deadline of its own (Grpc-Timeout)", () => {
    const sharing = new SharedStreams({ minIntervalMs: 0 });
    const { opened, open } = upstreams();
    sharing.open("k", { timeoutMs: 5_000 }, open)(client().handlers);
    sharing.open("k", { timeoutMs: 5_000 }, open)(client().handlers);
    expect(opened).toHaveLength(2);
  });

  describe("with its interval (the default)", () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("opens the next stream no sooner than the interval after the one before, for every client that came until then", () => {
      vi.useFakeTimers({ toFake: ["setTimeout", "performance"] });
      const sharing = new SharedStreams();
      const { opened, open } = upstreams();
      const [a, b, c] = [client(), client(), client()];
      sharing.open("k", {}, open)(a.handlers);
      opened[0]?.handlers.message(bytes("picture for a")); // started at once
      sharing.open("k", {}, open)(b.handlers);
      vi.advanceTimersByTime(SHARE_INTERVAL_MS / 2);
      sharing.open("k", {}, open)(c.handlers);
      expect(opened).toHaveLength(1); // b and c wait for the interval, not for a stream starting
      vi.advanceTimersByTime(SHARE_INTERVAL_MS / 2);
      expect(opened).toHaveLength(2);
      opened[1]?.handlers.message(bytes("picture for b, c"));
      expect(b.seen).toEqual(["picture for b, c"]);
      expect(c.seen).toEqual(b.seen);
      expect(a.seen).toEqual(["picture for a"]);
      vi.advanceTimersByTime(SHARE_INTERVAL_MS);
      expect(sharing.starting).toBe(0);
    });

    it("opens a stream at once once the interval after the last one has passed", () => {
      vi.useFakeTimers({ toFake: ["setTimeout", "performance"] });
      const sharing = new SharedStreams();
      const { opened, open } = upstreams();
      sharing.open("k", {}, open)(client().handlers);
      opened[0]?.handlers.message(bytes("picture"));
      vi.advanceTimersByTime(SHARE_INTERVAL_MS);
      expect(sharing.starting).toBe(0);
      sharing.open("k", {}, open)(client().handlers);
      expect(opened).toHaveLength(2);
    });
  });
});

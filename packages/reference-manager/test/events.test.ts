import { describe, expect, it } from "vitest";
import { Code, GrpcError } from "norsk-manager-contract/grpc/index.js";
import { EventBus } from "../src/events.js";

async function take<T>(iterator: AsyncIterator<T>, n: number): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) {
    const result = await iterator.next();
    if (result.done === true) throw new Error("ended early");
    out.push(result.value);
  }
  return out;
}

async function failure(iterator: AsyncIterator<unknown>): Promise<GrpcError> {
  try {
    for (;;) {
      const result = await iterator.next();
      if (result.done === true) throw new Error("ended without an error");
    }
  } catch (error) {
    if (error instanceof GrpcError) return error;
    throw error;
  }
}

describe("event bus", () => {
  it("delivers every change to every subscriber in publish order", async () => {
    const bus = new EventBus<number>({ queueBytes: 100, sizeOf: () => 1 });
    const a = bus.subscribe(new AbortController().signal)[Symbol.asyncIterator]();
    const b = bus.subscribe(new AbortController().signal)[Symbol.asyncIterator]();
    for (let i = 1; i <= 5; i++) bus.publish(() => i);
    expect(await take(a, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(await take(b, 5)).toEqual([1, 2, 3, 4, 5]);
  });

  it("delivers a change published while the subscriber waits", async () => {
    const bus = new EventBus<string>({ queueBytes: 10, sizeOf: () => 1 });
    const it = bus.subscribe(new AbortController().signal)[Symbol.asyncIterator]();
    const next = it.next();
    bus.publish(() => "late");
    expect(await next).toEqual({ value: "late", done: false });
  });

  it("sends nothing published before subscribing", async () => {
    const bus = new EventBus<number>({ queueBytes: 10, sizeOf: () => 1 });
    bus.publish(() => 1);
    const it = bus.subscribe(new AbortController().signal)[Symbol.asyncIterator]();
    bus.publish(() => 2);
    expect(await take(it, 1)).toEqual([2]);
  });

  it("builds a change only when someone listens, and once for all listeners", () => {
    const bus = new EventBus<number>({ queueBytes: 10, sizeOf: () => 1 });
    let built = 0;
    bus.publish(() => ++built);
    expect(built).toBe(0);
    bus.subscribe(new AbortController().signal);
    bus.subscribe(new AbortController().signal);
    bus.publish(() => ++built);
    expect(built).toBe(1);
  });

  it("ends a subscriber that falls more than queueBytes behind with RESOURCE_EXHAUSTED, alone", async () => {
    const bus = new EventBus<number>({ queueBytes: 3, sizeOf: () => 1 });
    const slow = bus.subscribe(new AbortController().signal);
    const fast = bus.subscribe(new AbortController().signal)[Symbol.asyncIterator]();
    for (let i = 1; i <= 3; i++) {
      bus.publish(() => i);
      expect(await take(fast, 1)).toEqual([i]);
    }
    expect(slow.backlog).toBe(3);
    bus.publish(() => 4);
    expect(slow.backlog).toBe(0);
    expect(bus.subscriberCount).toBe(1);
    const error = await failure(slow[Symbol.asyncIterator]());
    expect(error.code).toBe(Code.RESOURCE_EXHAUSTED);
    expect(await take(fast, 1)).toEqual([4]);
  });

  it("ends a subscription when its signal aborts, even while it waits", async () => {
    const bus = new EventBus<number>({ queueBytes: 10, sizeOf: () => 1 });
    const controller = new AbortController();
    const it = bus.subscribe(controller.signal)[Symbol.asyncIterator]();
    const next = it.next();
    controller.abort();
    expect(await next).toEqual({ value: undefined, done: true });
    expect(bus.subscriberCount).toBe(0);
  });

  it("does not register a subscription whose signal already aborted", () => {
    const bus = new EventBus<number>({ queueBytes: 10, sizeOf: () => 1 });
    bus.subscribe(AbortSignal.abort());
    expect(bus.subscriberCount).toBe(0);
  });

  it("unsubscribes when the consumer stops iterating", async () => {
    const bus = new EventBus<number>({ queueBytes: 10, sizeOf: () => 1 });
    const subscription = bus.subscribe(new AbortController().signal);
    bus.publish(() => 1);
    for await (const value of subscription) {
      expect(value).toBe(1);
      break;
    }
    expect(bus.subscriberCount).toBe(0);
  });

  it("ends every subscription, and later ones, with the reason it closes with", async () => {
    const bus = new EventBus<number>({ queueBytes: 10, sizeOf: () => 1 });
    const before = bus.subscribe(new AbortController().signal)[Symbol.asyncIterator]();
    const waiting = failure(before);
    bus.close(new GrpcError(Code.UNAVAILABLE, "shutting down"));
    expect((await waiting).code).toBe(Code.UNAVAILABLE);
    const after = bus.subscribe(new AbortController().signal)[Symbol.asyncIterator]();
    expect((await failure(after)).code).toBe(Code.UNAVAILABLE);
    expect(bus.subscriberCount).toBe(0);
  });

  it("counts a queue in the bytes sizeOf gives, released as the subscriber consumes", async () => {
    const bus = new EventBus<number>({ queueBytes: 100, sizeOf: (n) => n });
    const subscription = bus.subscribe(new AbortController().signal);
    const it = subscription[Symbol.asyncIterator]();
    bus.publish(() => 60);
    bus.publish(() => 40);
    expect(subscription.backlogBytes).toBe(100);
    expect(await take(it, 1)).toEqual([60]);
    expect(subscription.backlogBytes).toBe(40);
    bus.publish(() => 60);
    expect(subscription.backlogBytes).toBe(100);
    bus.publish(() => 1);
    const error = await failure(it);
    expect(error.code).toBe(Code.RESOURCE_EXHAUSTED);
    expect(error.details).toBe("event subscriber fell more than 100 bytes behind; reconnect");
    expect(subscription.backlogBytes).toBe(0);
  });

  it("delivers a change larger than queueBytes when it finds the queue empty", async () => {
    const bus = new EventBus<number>({ queueBytes: 10, sizeOf: (n) => n });
    const subscription = bus.subscribe(new AbortController().signal);
    const it = subscription[Symbol.asyncIterator]();
    bus.publish(() => 1_000);
    expect(await take(it, 1)).toEqual([1_000]);
    bus.publish(() => 5);
    bus.publish(() => 1_000);
    expect((await failure(it)).code).toBe(Code.RESOURCE_EXHAUSTED);
  });

  it("rejects a queue limit that is not a positive integer", () => {
    expect(() => new EventBus<number>({ queueBytes: 0, sizeOf: () => 1 })).toThrow(RangeError);
    expect(() => new EventBus<number>({ queueBytes: 1.5, sizeOf: () => 1 })).toThrow(RangeError);
  });
});

import { getEventListeners, setMaxListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { KeyedMutex, MutexQueueFullError, MutexWaitTimeoutError } from "../../src/operations/keyed-mutex.js";

/** A promise and the functions that settle it, for tasks the test finishes by hand. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

const ticks = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe("KeyedMutex", () => {
  it("runs the tasks of one key one at a time, in arrival order", async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const task = (name: string) => async () => {
      log.push(`start ${name}`);
      await ticks(3);
      log.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all(["a", "b", "c"].map((name) => mutex.run("job", task(name))));
    expect(results).toEqual(["a", "b", "c"]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("runs the tasks of different keys at the same time", async () => {
    const mutex = new KeyedMutex();
    const first = gate();
    const log: string[] = [];
    const held = mutex.run("one", async () => {
      log.push("one started");
      await first.promise;
    });
    await mutex.run("two", () => {
      log.push("two ran");
      return Promise.resolve();
    });
    expect(log).toEqual(["one started", "two ran"]);
    first.open();
    await held;
  });

  it("releases the key when a task fails, and passes the failure on", async () => {
    const mutex = new KeyedMutex();
    const failing = mutex.run("job", () => Promise.reject(new Error("boom")));
    const next = mutex.run("job", () => Promise.resolve("next"));
    await expect(failing).rejects.toThrow("boom");
    await expect(next).resolves.toBe("next");
    expect(mutex.size).toBe(0);
  });

  it("forgets every key once its tasks are done, however many keys passed through", async () => {
    const mutex = new KeyedMutex();
    await Promise.all(
      Array.from({ length: 2_000 }, (_, i) => mutex.run(`job-${i % 500}`, async () => {
        await ticks(1);
      })),
    );
    expect(mutex.size).toBe(0);
  });

  it("drops a waiter whose signal aborts: it rejects with the reason and its task never runs", async () => {
    const mutex = new KeyedMutex();
    const holder = gate();
    const ran: string[] = [];
    const held = mutex.run("job", () => holder.promise);
    const controller = new AbortController();
    const dropped = mutex.run("job", () => Promise.resolve(void ran.push("dropped")), { signal: controller.signal });
    const after = mutex.run("job", () => Promise.resolve(void ran.push("after")));
    const reason = new Error("client gone");
    controller.abort(reason);
    await expect(dropped).rejects.toBe(reason);
    holder.open();
    await Promise.all([held, after]);
    expect(ran).toEqual(["after"]);
    expect(mutex.size).toBe(0);
  });

  it("refuses a task at once when its signal has already aborted", async () => {
    const mutex = new KeyedMutex();
    const reason = new Error("already");
    let ran = false;
    await expect(mutex.run("job", () => Promise.resolve(void (ran = true)), { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(ran).toBe(false);
    expect(mutex.size).toBe(0);
  });

  it("refuses a waiter beyond maxWaiters with MutexQueueFullError, and serves the others", async () => {
    const mutex = new KeyedMutex({ maxWaiters: 2 });
    const holder = gate();
    const held = mutex.run("job", () => holder.promise.then(() => "holder"));
    const waiting = [mutex.run("job", () => Promise.resolve("w1")), mutex.run("job", () => Promise.resolve("w2"))];
    await expect(mutex.run("job", () => Promise.resolve("w3"))).rejects.toBeInstanceOf(MutexQueueFullError);
    // Another key is not affected by this key's queue.
    await expect(mutex.run("other", () => Promise.resolve("other"))).resolves.toBe("other");
    holder.open();
    expect(await Promise.all([held, ...waiting])).toEqual(["holder", "w1", "w2"]);
    expect(mutex.size).toBe(0);
  });

  it("ends a wait longer than timeoutMs with MutexWaitTimeoutError; the task never runs and the next waiter is served", async () => {
    const mutex = new KeyedMutex();
    const holder = gate();
    const held = mutex.run("job", () => holder.promise);
    const ran: string[] = [];
    const late = mutex.run("job", () => Promise.resolve(void ran.push("late")), { timeoutMs: 20 });
    const after = mutex.run("job", () => Promise.resolve(void ran.push("after")));
    await expect(late).rejects.toBeInstanceOf(MutexWaitTimeoutError);
    holder.open();
    await Promise.all([held, after]);
    expect(ran).toEqual(["after"]);
    expect(mutex.size).toBe(0);
  });
});

describe("KeyedMutex shared tasks", () => {
  it("runs shared tasks of one key together", async () => {
    const mutex = new KeyedMutex();
    const first = gate();
    const log: string[] = [];
    const a = mutex.run("job", async () => { log.push("a started"); await first.promise; }, { shared: true });
    const b = mutex.run("job", () => Promise.resolve(void log.push("b ran")), { shared: true });
    await b;
    expect(log).toEqual(["a started", "b ran"]);
    first.open();
    await a;
    expect(mutex.size).toBe(0);
  });

  it("starts an exclusive task only when every shared one has ended, and queues shared tasks that come after it behind it", async () => {
    const mutex = new KeyedMutex();
    const [s1, s2, x] = [gate(), gate(), gate()];
    const log: string[] = [];
    const run = (name: string, until: Promise<void>, shared: boolean) =>
      mutex.run("job", async () => { log.push(`start ${name}`); await until; log.push(`end ${name}`); }, { shared });
    const all = [run("s1", s1.promise, true), run("s2", s2.promise, true), run("x", x.promise, false), run("s3", Promise.resolve(), true), run("s4", Promise.resolve(), true)];
    await ticks();
    expect(log).toEqual(["start s1", "start s2"]);
    s1.open();
    await ticks();
    expect(log).toEqual(["start s1", "start s2", "end s1"]);
    s2.open();
    await ticks();
    expect(log).toEqual(["start s1", "start s2", "end s1", "end s2", "start x"]);
    x.open();
    await Promise.all(all);
    expect(log.slice(5)).toEqual(["end x", "start s3", "start s4", "end s3", "end s4"]);
    expect(mutex.size).toBe(0);
  });

  it("lets shared waiters join the shared holders when the exclusive waiter ahead of them gives up", async () => {
    const mutex = new KeyedMutex();
    const holder = gate();
    const log: string[] = [];
    const held = mutex.run("job", () => holder.promise, { shared: true });
    const controller = new AbortController();
    const exclusive = mutex.run("job", () => Promise.resolve(void log.push("exclusive")), { signal: controller.signal });
    const shared = mutex.run("job", () => Promise.resolve(void log.push("shared")), { shared: true });
    await ticks();
    expect(log).toEqual([]);
    controller.abort(new Error("gone"));
    await expect(exclusive).rejects.toThrow("gone");
    await shared;
    expect(log).toEqual(["shared"]);
    holder.open();
    await held;
    expect(mutex.size).toBe(0);
  });
});

describe("KeyedMutex timers and listeners", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("arms no timer and adds no abort listener for a task that need not wait", async () => {
    vi.useFakeTimers();
    const mutex = new KeyedMutex();
    const controller = new AbortController();
    const task = gate();
    const running = mutex.run("job", () => task.promise, { signal: controller.signal, timeoutMs: 10_000 });
    const other = mutex.run("other", () => task.promise, { signal: controller.signal, timeoutMs: 10_000, shared: true });
    const joined = mutex.run("other", () => task.promise, { signal: controller.signal, timeoutMs: 10_000, shared: true });
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    task.open();
    await Promise.all([running, other, joined]);
  });

  it("arms one timer and one listener per waiting task, and leaves none once a burst of waiters is served", async () => {
    vi.useFakeTimers();
    const mutex = new KeyedMutex({ maxWaiters: 1_000 });
    const controller = new AbortController();
    setMaxListeners(300, controller.signal);
    const holder = gate();
    const held = mutex.run("job", () => holder.promise, { signal: controller.signal, timeoutMs: 10_000 });
    const waiting = Array.from({ length: 200 }, (_, i) => mutex.run("job", () => Promise.resolve(i), { signal: controller.signal, timeoutMs: 10_000, shared: i % 3 === 0 }));
    expect(vi.getTimerCount()).toBe(200);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(200);
    holder.open();
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    await held;
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    expect(mutex.size).toBe(0);
  });

  it("removes a timed-out waiter's abort listener, and an aborted waiter's timer", async () => {
    vi.useFakeTimers();
    const mutex = new KeyedMutex();
    const holder = gate();
    const held = mutex.run("job", () => holder.promise);
    const controller = new AbortController();
    const timedOut = mutex.run("job", () => Promise.resolve(), { signal: controller.signal, timeoutMs: 50 });
    const expectation = expect(timedOut).rejects.toBeInstanceOf(MutexWaitTimeoutError);
    await vi.advanceTimersByTimeAsync(50);
    await expectation;
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    const aborted = mutex.run("job", () => Promise.resolve(), { signal: controller.signal, timeoutMs: 10_000 });
    expect(vi.getTimerCount()).toBe(1);
    controller.abort(new Error("gone"));
    await expect(aborted).rejects.toThrow("gone");
    expect(vi.getTimerCount()).toBe(0);
    holder.open();
    await held;
  });
});

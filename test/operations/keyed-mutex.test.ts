import { describe, expect, it } from "vitest";
import { KeyedMutex, MutexQueueFullError } from "../../src/operations/keyed-mutex.js";

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
    const dropped = mutex.run("job", () => Promise.resolve(void ran.push("dropped")), controller.signal);
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
    await expect(mutex.run("job", () => Promise.resolve(void (ran = true)), AbortSignal.abort(reason))).rejects.toBe(reason);
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
});

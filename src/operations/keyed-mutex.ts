// One lock per key, for work that must not interleave with other work on the same key (every
// write of one job through this gateway, src/routes/jobs.ts) while work on other keys runs
// freely. A task takes its key exclusively, or shared: shared tasks of one key run together,
// but never beside an exclusive one. Waiters are served in arrival order, so a shared task that
// comes after a waiting exclusive one waits behind it (a stream of shared tasks cannot starve an
// exclusive one). A key's entry exists only while the lock is held or awaited, so memory stays
// bounded by the work in flight however many keys pass through; and each key has a cap on
// waiters, so a flood on one key is refused rather than queued without end.
//
// A task that need not wait costs nothing beyond its own promise and the one that releases the
// key: no timer, no signal listener. A waiting task costs one timer (when it has a time limit)
// and one abort listener (when it has a signal), both gone once it is granted or gives up.

export interface KeyedMutexOptions {
  /** Waiters one key may have queued behind the holders; one more is refused with MutexQueueFullError. Default: 100. */
  readonly maxWaiters?: number;
}

/** How one task may wait for its key. */
export interface MutexWaitOptions {
  /** Ends the wait (not the task) when it aborts: run() rejects with the signal's reason. Default: none. */
  readonly signal?: AbortSignal | undefined;
  /** Ends a wait longer than this many milliseconds with MutexWaitTimeoutError; the task never runs. Default: no limit. */
  readonly timeoutMs?: number | undefined;
  /** Runs beside other shared tasks of the key, never beside an exclusive one. Default: false (exclusive). */
  readonly shared?: boolean | undefined;
}

/** Thrown by run() when the key already has `maxWaiters` waiters. */
export class MutexQueueFullError extends Error {
  override readonly name = "MutexQueueFullError";
}

/** Thrown by run() when the task waited longer than its `timeoutMs`; the task never ran. */
export class MutexWaitTimeoutError extends Error {
  override readonly name = "MutexWaitTimeoutError";
}

interface Waiter {
  readonly shared: boolean;
  /** Called once the waiter holds the key: clears its timer and listener, and runs its task. */
  readonly grant: () => void;
}

interface Entry {
  /** Tasks running now: one exclusive, or any number of shared ones. */
  holders: number;
  /** Whether the running tasks are shared ones. */
  shared: boolean;
  /** The waiters behind the holders, oldest first. The entry exists exactly while the key is held. */
  readonly queue: Waiter[];
}

export class KeyedMutex {
  readonly #entries = new Map<string, Entry>();
  readonly #maxWaiters: number;

  constructor(options: KeyedMutexOptions = {}) {
    this.#maxWaiters = options.maxWaiters ?? 100;
  }

  /** Keys held or awaited now; 0 when nothing is in flight. */
  get size(): number {
    return this.#entries.size;
  }

  /** Whether a task of `key` is running (or waiting) now. */
  held(key: string): boolean {
    return this.#entries.has(key);
  }

  /**
   * Runs `task` once the key is free for it (no task of `key` running, or only shared ones when
   * this one is shared and nothing waits), and releases the key when it settles. Rejects without
   * running it when `wait.signal` aborts before it starts (with the signal's reason), when it
   * waited longer than `wait.timeoutMs` (MutexWaitTimeoutError), or when the key has too many
   * waiters already (MutexQueueFullError).
   */
  run<T>(key: string, task: () => Promise<T>, wait: MutexWaitOptions = {}): Promise<T> {
    const { signal } = wait;
    if (signal?.aborted === true) return Promise.reject(abortReason(signal));
    const shared = wait.shared === true;
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      this.#entries.set(key, { holders: 1, shared, queue: [] });
      return this.#runHeld(key, task);
    }
    if (shared && entry.shared && entry.queue.length === 0) {
      entry.holders++;
      return this.#runHeld(key, task);
    }
    if (entry.queue.length >= this.#maxWaiters) {
      return Promise.reject(new MutexQueueFullError(`more than ${this.#maxWaiters} waiters for one key`));
    }
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const giveUp = (reason: Error): void => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const at = entry.queue.indexOf(waiter);
        if (at !== -1) entry.queue.splice(at, 1);
        // Shared waiters that were behind this one may now join shared holders.
        if (at === 0) this.#admitShared(entry);
        reject(reason);
      };
      const onAbort = (): void => {
        giveUp(abortReason(signal));
      };
      const waiter: Waiter = {
        shared,
        grant: () => {
          if (timer !== undefined) clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          this.#runHeld(key, task).then(resolve, reject);
        },
      };
      entry.queue.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
      if (wait.timeoutMs !== undefined) {
        const timeoutMs = wait.timeoutMs;
        timer = setTimeout(() => {
          giveUp(new MutexWaitTimeoutError(`waited more than ${timeoutMs} ms for the key`));
        }, timeoutMs);
      }
    });
  }

  /** Runs `task`, which holds `key`, and releases the key when it settles. */
  #runHeld<T>(key: string, task: () => Promise<T>): Promise<T> {
    let running: Promise<T>;
    try {
      running = task();
    } catch (error) {
      this.#release(key);
      return Promise.reject(error instanceof Error ? error : new Error("task threw", { cause: error }));
    }
    return running.finally(() => {
      this.#release(key);
    });
  }

  /** Ends one holder's turn; the last one hands the key to the next waiters, or forgets it when none is left. */
  #release(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    entry.holders--;
    if (entry.holders > 0) return;
    const next = entry.queue.shift();
    if (next === undefined) {
      this.#entries.delete(key);
      return;
    }
    entry.holders = 1;
    entry.shared = next.shared;
    next.grant();
    this.#admitShared(entry);
  }

  /** While shared tasks hold the key, lets the shared waiters at the head of the queue join them. */
  #admitShared(entry: Entry): void {
    if (!entry.shared || entry.holders === 0) return;
    while (entry.queue[0]?.shared === true) {
      const next = entry.queue.shift();
      if (next === undefined) return;
      entry.holders++;
      next.grant();
    }
  }
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error("aborted", { cause: reason });
}

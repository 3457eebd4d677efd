// One lock per key, for work that must not interleave with other work on the same key (every
// write of one job through this gateway, src/routes/jobs.ts) while work on other keys runs
// freely. Waiters are served in arrival order. A key's entry exists only while the lock is held
// or awaited, so memory stays bounded by the work in flight however many keys pass through; and
// each key has a cap on waiters, so a flood on one key is refused rather than queued without end.

export interface KeyedMutexOptions {
  /** Waiters one key may have queued behind the holder; one more is refused with MutexQueueFullError. Default: 100. */
  readonly maxWaiters?: number;
}

/** Thrown by run() when the key already has `maxWaiters` waiters. */
export class MutexQueueFullError extends Error {
  override readonly name = "MutexQueueFullError";
}

interface Waiter {
  readonly grant: () => void;
}

interface Entry {
  /** The waiters behind the holder, oldest first. The entry exists exactly while the key is held. */
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
   * Runs `task` once no earlier task of `key` is running, and releases the key when it settles.
   * Rejects without running it when `signal` aborts while waiting (with the signal's reason), or
   * when the key has too many waiters already (MutexQueueFullError).
   */
  async run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#acquire(key, signal);
    try {
      return await task();
    } finally {
      this.#release(key);
    }
  }

  #acquire(key: string, signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    const entry = this.#entries.get(key);
    if (entry === undefined) {
      this.#entries.set(key, { queue: [] });
      return Promise.resolve();
    }
    if (entry.queue.length >= this.#maxWaiters) {
      return Promise.reject(new MutexQueueFullError(`more than ${this.#maxWaiters} waiters for one key`));
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const at = entry.queue.indexOf(waiter);
        if (at !== -1) entry.queue.splice(at, 1);
        const reason: unknown = signal?.reason;
        reject(reason instanceof Error ? reason : new Error("aborted", { cause: reason }));
      };
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      entry.queue.push(waiter);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Hands the key to the next waiter, or forgets it when none is left. */
  #release(key: string): void {
    const entry = this.#entries.get(key);
    const next = entry?.queue.shift();
    if (next === undefined) this.#entries.delete(key);
    else next.grant();
  }
}

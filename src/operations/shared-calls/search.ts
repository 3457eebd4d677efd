// One JobSearch stream read by several clients, each at its own pace: the search that
// identical searches in flight share (calls.ts). Jobs are pulled from the Manager as
// the fastest reader asks for them and kept until the slowest has taken them; the fastest
// waits once it is MAX_AHEAD jobs ahead of the slowest, so memory stays bounded by the list's
// spread, not its length. A reader that stops (limit reached, client gone, cut off for taking
// nothing) leaves; the Manager's stream is cancelled when the last reader leaves before its end.
import type { CurrentJob } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { StartedSearch } from "../search-body.js";

/** How many jobs the fastest reader may be ahead of the slowest. */
const MAX_AHEAD = 512;

type End = { readonly done: true } | { readonly error: unknown };

/** The readers of one search's stream: each reads all of it, at its own pace. */
export class SharedSearch {
  readonly #source: AsyncIterator<CurrentJob>;
  readonly #first: IteratorResult<CurrentJob>;
  /** Jobs not yet taken by every reader; #kept[0] is the job at index #base. */
  #kept: CurrentJob[] = [];
  #base = 1;
  #end: End | undefined;
  #pulling: Promise<void> | undefined;
  /** The next job each reader takes, by index (the first job is index 0). */
  readonly #cursors = new Map<object, number>();
  #roomWaiters: (() => void)[] = [];

  constructor(started: StartedSearch) {
    this.#source = started.jobs;
    this.#first = started.first;
    if (started.first.done === true) this.#end = { done: true };
  }

  /** Readers reading now (for tests: none once all have left). */
  get readers(): number {
    return this.#cursors.size;
  }

  /**
   * A reader from the first job on; it leaves when its iterator ends, fails, or is returned, or
   * when `signal` aborts.
   */
  reader(signal?: AbortSignal): StartedSearch {
    const self = {};
    this.#cursors.set(self, 1);
    const leave = (): void => {
      if (!this.#cursors.delete(self)) return;
      signal?.removeEventListener("abort", leave);
      this.#trim();
      if (this.#cursors.size === 0 && this.#end === undefined) void this.#source.return?.().catch(() => undefined);
    };
    signal?.addEventListener("abort", leave, { once: true });
    if (signal?.aborted === true) leave();
    const next = async (): Promise<IteratorResult<CurrentJob>> => {
      for (;;) {
        const at = this.#cursors.get(self);
        if (at === undefined) return { done: true, value: undefined };
        const job = this.#kept[at - this.#base];
        if (job !== undefined) {
          this.#cursors.set(self, at + 1);
          this.#trim();
          return { done: false, value: job };
        }
        if (this.#end !== undefined) {
          leave();
          if ("error" in this.#end) throw this.#end.error;
          return { done: true, value: undefined };
        }
        await (this.#kept.length >= MAX_AHEAD ? this.#room() : this.#pull());
      }
    };
    return {
      first: this.#first,
      jobs: {
        next,
        return: () => {
          leave();
          return Promise.resolve({ done: true, value: undefined });
        },
      },
    };
  }

  /** Reads one more job (or the end) from the Manager; one read at a time for all readers. */
  #pull(): Promise<void> {
    this.#pulling ??= this.#source.next().then(
      (result) => {
        this.#pulling = undefined;
        if (result.done === true) this.#end = { done: true };
        else this.#kept.push(result.value);
      },
      (error: unknown) => {
        this.#pulling = undefined;
        this.#end = { error };
      },
    );
    return this.#pulling;
  }

  /** Resolves when the slowest reader has moved on (or left). */
  #room(): Promise<void> {
    return new Promise((resolve) => {
      this.#roomWaiters.push(resolve);
    });
  }

  /** Drops the jobs every reader has taken, and wakes the readers waiting for room. */
  #trim(): void {
    let slowest = Infinity;
    for (const at of this.#cursors.values()) slowest = Math.min(slowest, at);
    if (slowest === Infinity) slowest = this.#base + this.#kept.length;
    if (slowest > this.#base) {
      this.#kept.splice(0, slowest - this.#base);
      this.#base = slowest;
      const waiting = this.#roomWaiters;
      this.#roomWaiters = [];
      for (const wake of waiting) wake();
    }
  }
}

// The writes of one job through this gateway, one at a time. The Manager's test-and-set makes
// concurrent writes safe but not cheap: PATCHes of one job racing each other lose and retry,
// and after 3 losses give up with a 409 although nothing but this gateway's own requests
// competed. Queued per job, they meet no competitor from this process: each reads the job the
// previous one wrote. The retries remain for writers the queue cannot see (other replicas).
// Queueing also keeps this process's writes of a job out of a conditional DELETE's window
// between its fence and DeleteJob (job-delete.ts). Unconditional PUTs (full replacements with
// no precondition) need that exclusion from the other writes but not from each other, so they
// may share the job's turn (docs/architecture.md, "Concurrent writes and reads"). A write whose
// turn came runs to its end though its client leaves (seenThrough): the wait is what the
// client's leaving ends.
import { KeyedMutex, MutexQueueFullError, MutexWaitTimeoutError } from "./keyed-mutex.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { deadlineExceeded, problem, resourceExhausted } from "../http/problem.js";
import { seenThrough } from "./call-options.js";

export interface JobWriteQueueOptions {
  /** Writes of one job that may wait behind the running one; one more is a 429. Default: 100. */
  readonly maxWaiting?: number;
}

/** How a write takes its job's turn. */
export interface JobWriteOptions {
  /**
   * Runs beside the other shared writes of the job, never beside an exclusive one, in arrival
   * order (docs/architecture.md, "Concurrent writes and reads": unconditional PUTs).
   * Default: false, the write runs alone.
   */
  readonly shared?: boolean;
}

export class JobWriteQueue {
  readonly #mutex: KeyedMutex;
  readonly #maxWaiting: number;

  constructor(options: JobWriteQueueOptions = {}) {
    this.#maxWaiting = options.maxWaiting ?? 100;
    this.#mutex = new KeyedMutex({ maxWaiters: this.#maxWaiting });
  }

  /** Jobs with a write running or waiting; 0 when idle. */
  get size(): number {
    return this.#mutex.size;
  }

  /**
   * Runs `write` once the earlier writes of `jobId` have finished (or, for a shared write, once
   * only shared ones run). The wait ends with the request: when the client goes away (CANCELLED)
   * or after the request's deadline, `timeoutMs` (DEADLINE_EXCEEDED, a 504); `write` then never
   * runs. A write that need not wait makes no timer and no signal; one that waits, one timer.
   * `write` is given the options of its calls: `options` without the client's disconnect
   * signal, since a change begun is seen through (seenThrough).
   */
  run<T>(jobId: string, options: CallOptions, write: (calls: CallOptions) => Promise<T>, how: JobWriteOptions = {}): Promise<T> {
    const wait = how.shared === true ? { signal: options.signal, timeoutMs: options.timeoutMs, shared: true } : options;
    const begin = (): Promise<T> => write(seenThrough(options));
    // Nothing to wait for (the common case): no error of the wait to translate.
    if (!this.#mutex.held(jobId) && options.signal?.aborted !== true) return this.#mutex.run(jobId, begin, wait);
    return this.#mutex.run(jobId, begin, wait).catch((error: unknown) => {
      throw this.#waitProblem(error, options.signal) ?? error;
    });
  }

  /**
   * The answer for a wait that ended without running the write (the gateway's own, so that
   * nothing takes it for a Manager's call that may have taken effect); undefined for the
   * write's own errors.
   */
  #waitProblem(error: unknown, signal: AbortSignal | undefined): Error | undefined {
    if (error instanceof MutexQueueFullError) {
      return resourceExhausted(`too many changes of this job are waiting (at most ${this.#maxWaiting}); try again later`);
    }
    if (error instanceof MutexWaitTimeoutError) {
      return deadlineExceeded("earlier changes of this job did not finish before the deadline");
    }
    if (signal?.aborted === true && error === signal.reason) {
      return problem("CANCELLED", "the client went away while the change waited");
    }
    return undefined;
  }
}

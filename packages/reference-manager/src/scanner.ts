// Runs job searches with a regular expression on a worker thread, so that the event loop the
// reference Manager shares with the gateway stays free while they run. RE2 matches in time
// linear in the text, but that is still the program size times the length: a tag value of a
// megabyte against a large pattern costs seconds, and compiling one costs hundreds of ms.
//
// Contracts:
// - One worker, started at the first scan and kept; scans run one at a time, in arrival order.
// - A scan whose call ends (cancelled, deadline passed) is dropped: waiting, it leaves the
//   queue; running, its worker is terminated (the one way to stop it mid-match) and the next
//   scan starts on a new one. Either way its promise rejects with CANCELLED.
// - A worker that fails (it should not) fails its scan with INTERNAL; the next starts afresh.
// - close() fails every scan still waiting or running with UNAVAILABLE and ends the worker.
import { Worker } from "node:worker_threads";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import type { ScanResult, ScanTask } from "./scan.js";

interface Pending {
  readonly task: ScanTask;
  readonly signal: AbortSignal;
  readonly resolve: (matched: readonly number[]) => void;
  readonly reject: (error: GrpcError) => void;
  readonly onAbort: () => void;
}

export interface ScannerOptions {
  /** Called with what made a worker fail (its scan fails with INTERNAL). Default: ignore. */
  readonly onWorkerError?: (error: unknown) => void;
}

export class Scanner {
  readonly #onWorkerError: (error: unknown) => void;
  readonly #queue: Pending[] = [];
  #running: Pending | undefined;
  #worker: Worker | undefined;
  #closed = false;

  constructor(options: ScannerOptions = {}) {
    this.#onWorkerError = options.onWorkerError ?? (() => undefined);
  }

  /** The indexes of the task's matching candidates; rejects with a GrpcError. */
  scan(task: ScanTask, signal: AbortSignal): Promise<readonly number[]> {
    if (this.#closed) return Promise.reject(new GrpcError(Code.UNAVAILABLE, "the manager is shutting down"));
    if (signal.aborted) return Promise.reject(cancelled());
    return new Promise((resolve, reject) => {
      const pending: Pending = {
        task,
        signal,
        resolve,
        reject,
        onAbort: () => {
          this.#abort(pending);
        },
      };
      signal.addEventListener("abort", pending.onAbort, { once: true });
      this.#queue.push(pending);
      this.#next();
    });
  }

  /** Fails what is waiting or running with UNAVAILABLE and ends the worker. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const unavailable = new GrpcError(Code.UNAVAILABLE, "the manager is shutting down");
    const running = this.#running;
    this.#running = undefined;
    for (const pending of [...(running === undefined ? [] : [running]), ...this.#queue.splice(0)]) {
      detach(pending).reject(unavailable);
    }
    await this.#endWorker();
  }

  #next(): void {
    if (this.#running !== undefined || this.#closed) return;
    const pending = this.#queue.shift();
    if (pending === undefined) return;
    this.#running = pending;
    this.#startedWorker().postMessage(pending.task);
  }

  #abort(pending: Pending): void {
    if (this.#running === pending) {
      this.#running = undefined;
      void this.#endWorker();
    } else {
      const at = this.#queue.indexOf(pending);
      if (at !== -1) this.#queue.splice(at, 1);
    }
    detach(pending).reject(cancelled());
    this.#next();
  }

  #startedWorker(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(WORKER_URL);
    // A scan in flight keeps the process alive through its caller; an idle worker must not.
    worker.unref();
    worker.on("message", (result: ScanResult) => {
      this.#answer(worker, result);
    });
    worker.on("error", (error) => {
      if (worker === this.#worker) this.#onWorkerError(error);
      this.#lose(worker);
    });
    worker.on("exit", () => {
      this.#lose(worker);
    });
    this.#worker = worker;
    return worker;
  }

  #answer(worker: Worker, result: ScanResult): void {
    const pending = this.#running;
    if (worker !== this.#worker || pending === undefined) return;
    this.#running = undefined;
    if (result.ok) detach(pending).resolve(result.matched);
    else detach(pending).reject(new GrpcError(result.code, result.details));
    this.#next();
  }

  /** The worker failed or exited by itself: its scan fails, the next starts on a new worker. */
  #lose(worker: Worker): void {
    if (worker !== this.#worker) return;
    this.#worker = undefined;
    const pending = this.#running;
    this.#running = undefined;
    if (pending !== undefined) detach(pending).reject(new GrpcError(Code.INTERNAL, "the search failed"));
    this.#next();
  }

  async #endWorker(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    if (worker !== undefined) await worker.terminate();
  }
}

/** Stops listening for the end of the scan's call: it is being answered. */
function detach(pending: Pending): Pending {
  pending.signal.removeEventListener("abort", pending.onAbort);
  return pending;
}

function cancelled(): GrpcError {
  return new GrpcError(Code.CANCELLED, "the search was cancelled");
}

/**
 * The worker's module: scan-worker.js beside this one or, when this module runs as TypeScript
 * (tests, `npm run manager`), scan-worker.ts imported through tsx's API: a worker thread does
 * not inherit the loader of the thread that starts it.
 */
const WORKER_URL = workerUrl(import.meta.url);

function workerUrl(here: string): URL {
  if (!here.endsWith(".ts")) return new URL("./scan-worker.js", here);
  const entry = JSON.stringify(new URL("./scan-worker.ts", here).href);
  const tsx = JSON.stringify(import.meta.resolve("tsx/esm/api"));
  return new URL(`data:text/javascript,${encodeURIComponent(`import { tsImport } from ${tsx}; await tsImport(${entry}, ${entry});`)}`);
}

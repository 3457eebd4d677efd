// What ends a call: the caller's AbortSignal, its timeout, or whoever holds it (a stream its
// consumer stops). One AbortController per call, its signal given to every fetch of the call
// and to every wait between them, so that ending the call ends whatever it is doing.
import { TimeoutError } from "./problem.js";

export class Deadline {
  readonly #controller = new AbortController();
  readonly #caller: AbortSignal | undefined;
  readonly #onCallerAbort = (): void => {
    this.#controller.abort(this.#caller?.reason);
  };
  #timer: ReturnType<typeof setTimeout> | undefined;
  #endsAt = Number.POSITIVE_INFINITY;

  /** `timeoutMs` 0: no timeout. */
  constructor(timeoutMs: number, caller: AbortSignal | undefined) {
    this.#caller = caller;
    if (caller?.aborted === true) this.#controller.abort(caller.reason);
    else caller?.addEventListener("abort", this.#onCallerAbort, { once: true });
    if (timeoutMs > 0) {
      this.#endsAt = Date.now() + timeoutMs;
      this.#timer = setTimeout(() => {
        this.#controller.abort(new TimeoutError(timeoutMs));
      }, timeoutMs);
    }
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  remainingMs(): number {
    return this.#endsAt - Date.now();
  }

  /** Throws why the call ended, if it has. */
  throwIfEnded(): void {
    if (this.#controller.signal.aborted) throw this.#controller.signal.reason;
  }

  /** `promise`, or why the call ended if it ends first. */
  bound<T>(promise: Promise<T>): Promise<T> {
    const signal = this.#controller.signal;
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<T>((resolve, reject) => {
      const onAbort = (): void => {
        reject(signal.reason as Error);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      promise.then(resolve, reject).finally(() => {
        signal.removeEventListener("abort", onAbort);
      });
    });
  }

  /** A stream has started: from now on only the caller's signal, or abort(), ends it. */
  endTimeout(): void {
    clearTimeout(this.#timer);
    this.#endsAt = Number.POSITIVE_INFINITY;
  }

  /** Ends the call now: its fetch, and the body being read. */
  abort(reason?: unknown): void {
    this.#controller.abort(reason);
  }

  /** The call is over: nothing of it is kept alive by the timer or the caller's signal. */
  release(): void {
    clearTimeout(this.#timer);
    this.#caller?.removeEventListener("abort", this.#onCallerAbort);
  }
}

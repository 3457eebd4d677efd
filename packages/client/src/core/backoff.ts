// How long to wait before sending a request again: the answer's Retry-After when it has one
// (RFC 9110: seconds or an HTTP date), else a jittered exponential backoff; either capped.

export interface Backoff {
  /** The first backoff; each next one doubles it. */
  readonly initialDelayMs: number;
  /** The longest wait, a backoff's or a Retry-After's. */
  readonly maxDelayMs: number;
}

/**
 * The wait before retry number `retry` (0 for the first): a random point in the upper half of
 * the doubled delay, so that clients failed by the same outage do not come back together.
 */
export function backoffDelay(retry: number, backoff: Backoff, random: () => number = Math.random): number {
  const ceiling = Math.min(backoff.maxDelayMs, backoff.initialDelayMs * 2 ** retry);
  return Math.round(ceiling * (0.5 + random() / 2));
}

/** The wait a Retry-After value asks for, capped; undefined when there is none or it does not parse. */
export function retryAfterDelay(value: string | null, backoff: Backoff, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  const text = value.trim();
  const ms = /^[0-9]+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  if (Number.isNaN(ms)) return undefined;
  return Math.min(Math.max(ms, 0), backoff.maxDelayMs);
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

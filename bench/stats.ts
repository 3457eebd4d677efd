// Latency percentiles and the one-line report format shared by the benchmarks.
export interface Result {
  readonly name: string;
  readonly requests: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

export function rate(result: Result): number {
  return result.requests / result.seconds;
}

export function line(result: Result): string {
  return `${result.name.padEnd(44)} ${rate(result).toFixed(0).padStart(8)} req/s   p50 ${result.p50Ms.toFixed(2).padStart(7)} ms   p99 ${result.p99Ms.toFixed(2).padStart(7)} ms   errors ${result.errors}`;
}

/**
 * Runs `call` from `concurrency` workers for `seconds`, timing each call. Bounded in time; a
 * failed call is counted, not retried.
 */
export async function drive(name: string, concurrency: number, seconds: number, call: (i: number) => Promise<unknown>): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (performance.now() < end) {
      const i = next++;
      const t0 = performance.now();
      try {
        await call(i);
      } catch {
        errors++;
      }
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { name, requests: latencies.length, seconds: elapsed, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), errors };
}

// Load past a gateway's capacity, for the overload test and bench:overload: autocannon on many
// connections (at a fixed offered rate, or as fast as answers come), the answers counted by
// status, and the gateway process's resident memory sampled from /proc meanwhile.
import { readFileSync } from "node:fs";
import autocannon from "autocannon";

/** The resident set of process `pid`, in MB (Linux's /proc). */
export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${String(pid)}/status`, "utf8"));
  return Number(match?.[1] ?? 0) / 1024;
}

export interface LoadOptions {
  /** The gateway, e.g. http://127.0.0.1:8080. */
  readonly url: string;
  /** The gateway's process, whose memory is sampled. */
  readonly pid: number;
  /** The paths asked for (GET), in turn. */
  readonly paths: readonly string[];
  readonly connections: number;
  readonly seconds: number;
  /** Requests per second offered across all connections; unset: as fast as answers come. */
  readonly rate?: number;
}

export interface LoadResult {
  /** Answers by HTTP status. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Requests that got no answer: connection errors (resets, refusals), timeouts included. */
  readonly errors: number;
  /** Of those, the timeouts. */
  readonly timeouts: number;
  /** How long the load ran, in s, and the requests sent in that time. */
  readonly seconds: number;
  readonly sent: number;
  /** Answers per second, and the 99th percentile of their latency, in ms. */
  readonly answeredPerSecond: number;
  readonly p99Ms: number;
  /** The gateway's resident set before and at its highest during the load, in MB. */
  readonly rssBeforeMb: number;
  readonly rssPeakMb: number;
}

export async function driveLoad(options: LoadOptions): Promise<LoadResult> {
  const rssBeforeMb = rssMb(options.pid);
  let rssPeakMb = rssBeforeMb;
  const sampler = setInterval(() => {
    rssPeakMb = Math.max(rssPeakMb, rssMb(options.pid));
  }, 100);
  let i = 0;
  try {
    const result = await autocannon({
      url: options.url,
      connections: options.connections,
      duration: options.seconds,
      ...(options.rate === undefined ? {} : { overallRate: options.rate }),
      // An answer later than this counts as a timeout: a gateway that sheds answers well within it.
      timeout: 10,
      requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: options.paths[i++ % options.paths.length] ?? "/" }) }],
    });
    const statuses: Record<string, number> = {};
    for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {})) statuses[status] = count ?? 0;
    return {
      statuses,
      errors: result.errors,
      timeouts: result.timeouts,
      seconds: result.duration,
      sent: result.requests.sent,
      answeredPerSecond: result.requests.total / result.duration,
      p99Ms: result.latency.p99,
      rssBeforeMb,
      rssPeakMb: Math.max(rssPeakMb, rssMb(options.pid)),
    };
  } finally {
    clearInterval(sampler);
  }
}

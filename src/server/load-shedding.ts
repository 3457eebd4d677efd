// Load shedding: while the process is past a threshold (its event loop lagging, its heap or
// resident memory too large), new requests are refused with a 503 problem and Retry-After
// before any work is done for them, so that the gateway drains what it holds instead of
// falling over. @fastify/under-pressure samples the process (event-loop delay as the mean over
// each sample, heap used and RSS at each sample) and calls the handler here for each request
// that arrives while a threshold is exceeded. Only new requests are refused: an answer being
// sent (an event stream, a long list) is not touched, and the exempt paths (probes, metrics)
// are always answered, so that an orchestrator sees a live process and an operator can see why.
import underPressure from "@fastify/under-pressure";
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { problem } from "../http/problem.js";

/** Why a request was shed: the threshold that was exceeded (a metric label). */
export type ShedReason = "event_loop_delay" | "heap_used" | "rss";

export interface SheddingOptions {
  /** Mean event-loop delay over a sample, in ms, above which requests are shed; 0: not checked. */
  readonly maxEventLoopDelayMs: number;
  /** V8 heap in use, in bytes, above which requests are shed; 0: not checked. */
  readonly maxHeapUsedBytes: number;
  /** Resident set size, in bytes, above which requests are shed; 0: not checked. */
  readonly maxRssBytes: number;
  /** How often the process is sampled, in ms (a pressure lasts at least this long). */
  readonly sampleIntervalMs: number;
  /** Told of each request shed. */
  readonly onShed?: (reason: ShedReason) => void;
}

/** How often the process is sampled, in ms, unless buildApp is told otherwise. */
export const SAMPLE_INTERVAL_MS = 1_000;

/** True when some threshold is checked. */
export function sheddingEnabled(options: SheddingOptions): boolean {
  return options.maxEventLoopDelayMs > 0 || options.maxHeapUsedBytes > 0 || options.maxRssBytes > 0;
}

const REASONS: Readonly<Record<string, ShedReason>> = {
  [underPressure.TYPE_EVENT_LOOP_DELAY]: "event_loop_delay",
  [underPressure.TYPE_HEAP_USED_BYTES]: "heap_used",
  [underPressure.TYPE_RSS_BYTES]: "rss",
};

/**
 * Sheds requests on `app` as `options` say, except those whose route is one of `exempt` (route
 * templates such as "/healthz"). Registered among the onRequest hooks, so it runs after those
 * added before it (request id, access log, metrics: a shed request is logged and counted) and
 * before those added after it. Does nothing when no threshold is checked.
 */
export async function registerLoadShedding(app: FastifyInstance, options: SheddingOptions, exempt: ReadonlySet<string>): Promise<void> {
  if (!sheddingEnabled(options)) return;
  const episodes = new EpisodeLog(app.log, options.sampleIntervalMs);
  // Building the app and its document holds the loop for seconds: the samples that cover the
  // start measure it, not the load. A sample covers the interval before it, so the first that
  // covers none of the start ends at most two intervals after the app is ready.
  let shedFrom = Number.POSITIVE_INFINITY;
  app.addHook("onReady", (done) => {
    shedFrom = performance.now() + 2 * options.sampleIntervalMs;
    done();
  });
  const refusal = (request: FastifyRequest, reply: FastifyReply, type: string, value: number | undefined): Promise<void> | undefined => {
    if (exempt.has(request.routeOptions.url ?? "") || performance.now() < shedFrom) return undefined;
    const reason = REASONS[type] ?? "event_loop_delay";
    options.onShed?.(reason);
    episodes.shed(reason, value);
    // A rejected promise: under-pressure passes its reason on to the error handler, which
    // answers it as a problem (its detail is the table's generic one: nothing of the process).
    return Promise.reject(problem("OVERLOADED", `shedding load: ${reason}`));
  };
  await app.register(underPressure, {
    maxEventLoopDelay: options.maxEventLoopDelayMs,
    maxHeapUsedBytes: options.maxHeapUsedBytes,
    maxRssBytes: options.maxRssBytes,
    sampleInterval: options.sampleIntervalMs,
    pressureHandler: refusal,
  });
}

/**
 * One warning when shedding starts (with the reason and the measured value), one line when it
 * has stopped; not one per request, which under overload would add to the load.
 */
class EpisodeLog {
  #last = 0;
  #count = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly log: FastifyBaseLogger,
    private readonly quietMs: number,
  ) {}

  shed(reason: ShedReason, value: number | undefined): void {
    this.#last = Date.now();
    this.#count += 1;
    if (this.#timer !== undefined) return;
    this.log.warn({ reason, value }, "load shedding: refusing new requests (503)");
    this.#timer = setInterval(() => { this.#check(); }, this.quietMs * 2);
    this.#timer.unref();
  }

  #check(): void {
    if (Date.now() - this.#last < this.quietMs * 2) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.log.info({ shed: this.#count }, "load shedding: stopped");
    this.#count = 0;
  }
}

// The body of GET /v1/jobs once the search has started: a Readable that fastify pipes into the
// response, which pulls the next job from the gRPC stream only when the client has taken what
// was sent (pipe stops reading while res.write() returns false, and this body asks the stream
// for more only from _read). So back-pressure goes all the way to the Manager: a slow client
// pauses the gRPC stream (grpc-js reads a message only when asked, and HTTP/2 flow control then
// pauses the Manager), and the gateway holds at most its buffers (about HIGH_WATER_MARK here,
// grpc-js's 16 messages, the sockets') whatever the length of the list.
//
// Contracts (docs/architecture.md, "Deadlines"):
// - The search's call bounds each wait for the Manager (CallOptions.idleTimeoutMs); this body
//   bounds each wait for the client: one that takes nothing for `stallTimeoutMs` while the body
//   has more for it is cut, and its call cancelled.
// - A failure after the first job cannot change the status: NDJSON ends with one
//   {"error": Problem} line; a JSON body is cut off (the response destroyed), so that no client
//   takes a partial list for a whole one.
// - A body that has ended, cleanly or with its error line, and that the client stops taking for
//   `stallTimeoutMs`, is cut too, so that a client that stopped reading cannot hold its
//   connection and buffers for ever.
import { Readable } from "node:stream";
import type { ServerResponse } from "node:http";
import type { CurrentJob } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { resourceExhausted } from "../http/problem.js";
import { jobToJson } from "../json/index.js";
import type { JobJson } from "../json/index.js";
import type { ProblemJson } from "../../schemas/common.js";

/** A search that has delivered its first job, or its end. */
export interface StartedSearch {
  readonly first: IteratorResult<CurrentJob>;
  readonly jobs: AsyncIterator<CurrentJob>;
}

/** A Job's JSON text, as the route's response schema would write it. */
export type Stringify = (job: JobJson) => string;

/** Whether a job the Manager sent is on the list (a filter the gateway applies). */
export type Keep = (job: NonNullable<CurrentJob["job"]>) => boolean;

export interface SearchBodyOptions {
  readonly format: "json" | "ndjson";
  readonly search: StartedSearch;
  /** Jobs sent at most; the rest of the stream is cancelled. Default: all. */
  readonly limit?: number | undefined;
  /** The jobs sent; the others are read and dropped. Default: every job. */
  readonly keep?: Keep | undefined;
  readonly stringify: Stringify;
  /** How long the client may take nothing while there is more for it, in ms. */
  readonly stallTimeoutMs: number;
  readonly response: ServerResponse;
  /** The Problem of the NDJSON error line for a failure (a thrown error). */
  readonly problemOf: (error: unknown) => ProblemJson;
  /** Told about a failure that cut the list short, for the log. */
  readonly onFailure?: (error: unknown) => void;
}

/** Bytes this body holds for the client before it stops pulling jobs. */
export const HIGH_WATER_MARK = 64 * 1024;

/**
 * Jobs go to the response in batches of about this many characters, or of what came when no
 * more has for FLUSH_AFTER_MS: a write per job would spend much of the gateway's time in
 * writev alone. (grpc-js hands messages over a few per event-loop turn, so a batch flushed at
 * the end of each turn would still be a handful of jobs.)
 */
const BATCH_CHARS = 16 * 1024;
const FLUSH_AFTER_MS = 5;

export class SearchBody extends Readable {
  readonly #options: SearchBodyOptions;
  /** The first result, until it is taken. */
  #first: IteratorResult<CurrentJob> | undefined;
  /** The first job's line, written before the status is sent. */
  #firstLine: string | undefined;
  #sent = 0;
  #separator = "";
  /** Lines not yet pushed. */
  #batch = "";
  #flushSoon: NodeJS.Timeout | undefined;
  /** Whether the client can take more now (the last push was under the high-water mark). */
  #wanted = true;
  #pulling = false;
  #state: "open" | "ended" = "open";
  #stall: NodeJS.Timeout | undefined;

  constructor(options: SearchBodyOptions) {
    super({ highWaterMark: HIGH_WATER_MARK });
    this.#options = options;
    this.#first = options.search.first;
    if (options.format === "json") this.push('{"jobs":[');
    const { first } = options.search;
    if (first.done !== true && first.value.job !== undefined && this.#keeps(first.value.job)) {
      // Converted now, before the status is sent: a first job the mirror cannot represent (the
      // Manager's bad data) is the route's 502, not a 200 cut short.
      try {
        this.#firstLine = this.#line(first.value.job);
      } catch (error) {
        this.#state = "ended";
        this.#stopUpstream();
        throw error;
      }
    }
  }

  override _read(): void {
    // The client took something: it is reading, and wants more.
    this.#wanted = true;
    this.#clearStall();
    if (!this.#pulling && this.#state === "open") void this.#pull();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // The response closed (the client went away, or the body was cut): stop the call.
    this.#state = "ended";
    this.#clearStall();
    clearTimeout(this.#flushSoon);
    this.#stopUpstream();
    callback(error);
  }

  /** Pulls and pushes jobs until the client has enough for now, the list ends, or it fails. */
  async #pull(): Promise<void> {
    this.#pulling = true;
    try {
      while (this.#wanted && this.#state === "open") {
        const first = this.#first;
        this.#first = undefined;
        const next = first ?? (await this.#nextJob());
        // Cut or destroyed while the job was on its way.
        if (!this.#isOpen()) return;
        if (next.done === true) {
          this.#finish();
          return;
        }
        if (next.value.job === undefined || !this.#keeps(next.value.job)) continue;
        this.#batch += first !== undefined && this.#firstLine !== undefined ? this.#firstLine : this.#line(next.value.job);
        if (++this.#sent === this.#options.limit) {
          this.#finish();
          return;
        }
        if (this.#batch.length >= BATCH_CHARS) this.#flush();
      }
      if (this.#state === "open") this.#armStall();
    } catch (error) {
      this.#fail(error);
    } finally {
      this.#pulling = false;
    }
  }

  #keeps(job: NonNullable<CurrentJob["job"]>): boolean {
    return this.#options.keep?.(job) ?? true;
  }

  #isOpen(): boolean {
    return this.#state === "open";
  }

  /** The next job; what is batched goes out within FLUSH_AFTER_MS, sooner if it fills first. */
  #nextJob(): Promise<IteratorResult<CurrentJob>> {
    if (this.#batch !== "" && this.#flushSoon === undefined) {
      this.#flushSoon = setTimeout(() => {
        this.#flushSoon = undefined;
        if (this.#state === "open") this.#flush();
      }, FLUSH_AFTER_MS);
    }
    return this.#options.search.jobs.next();
  }

  #flush(): void {
    clearTimeout(this.#flushSoon);
    this.#flushSoon = undefined;
    if (this.#batch === "") return;
    const batch = this.#batch;
    this.#batch = "";
    this.#wanted = this.push(batch);
  }

  #line(job: NonNullable<CurrentJob["job"]>): string {
    const text = this.#options.stringify(jobToJson(job));
    if (this.#options.format === "ndjson") return `${text}\n`;
    const line = this.#separator + text;
    this.#separator = ",";
    return line;
  }

  /** The list is complete: close it, and stop the call if it has more (a limit). */
  #finish(): void {
    this.#flush();
    this.#state = "ended";
    this.#stopUpstream();
    if (this.#options.format === "json") this.push("]}");
    this.push(null);
    this.#lingerWhileUnread();
  }

  /** The list cannot be completed: an error line (NDJSON), or a cut body (JSON). */
  #fail(error: unknown): void {
    if (this.#state !== "open") return;
    this.#clearStall();
    this.#options.onFailure?.(error);
    if (this.#options.format === "json") {
      this.#state = "ended";
      this.#stopUpstream();
      this.destroy(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    // Every job read goes out before the error line.
    this.#flush();
    this.#state = "ended";
    this.#stopUpstream();
    this.push(`${JSON.stringify({ error: this.#options.problemOf(error) })}\n`);
    this.push(null);
    this.#lingerWhileUnread();
  }

  #armStall(): void {
    this.#clearStall();
    this.#stall = setTimeout(() => {
      const ms = this.#options.stallTimeoutMs;
      this.#fail(resourceExhausted(`the client took nothing for ${ms} ms; the list is incomplete`));
    }, this.#options.stallTimeoutMs);
  }

  #clearStall(): void {
    clearTimeout(this.#stall);
    this.#stall = undefined;
  }

  /**
   * After the end: a client that takes nothing of what is left for `stallTimeoutMs` (no 'drain'
   * of the response in that time) is disconnected.
   */
  #lingerWhileUnread(): void {
    const { response, stallTimeoutMs } = this.#options;
    if (response.writableFinished || response.destroyed) return;
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (!response.writableFinished) response.destroy();
      }, stallTimeoutMs);
    };
    const done = (): void => {
      clearTimeout(timer);
      response.off("drain", arm);
    };
    arm();
    response.on("drain", arm);
    response.once("finish", done);
    response.once("close", done);
  }

  /** Cancels the gRPC stream unless it has ended; its pending read, if any, then fails. */
  #stopUpstream(): void {
    const { jobs } = this.#options.search;
    // An async generator finishes at once when suspended; while a read is pending, the call's
    // signal (the client's disconnect) or its wait bound ends that read first.
    jobs.return?.().catch(() => undefined);
  }
}

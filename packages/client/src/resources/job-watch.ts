// jobs.watch: a live view of the jobs that have some tags, the list-then-watch pattern of
// Kubernetes' informers for this API. It follows the event stream narrowed to the changes of
// jobs with its tags, and on each connection, once the stream is live (its initialDataComplete),
// lists every job (all pages) and swaps the list in as the whole state: the events that come
// meanwhile wait in the stream and are applied after, in order, so nothing between the list and
// the stream is lost.
// The stream cannot resume, so a reconnection lists again, and the changes since are told as
// the difference between the two states. Tags are matched here as well as by the stream: a job
// whose tags change so that it no longer matches is sent on the tag-narrowed stream once more,
// with its new tags (GET /v1/events, tag=), and this view drops it then.
import type { RequestOptions } from "../core/options.js";
import type { StreamOptions } from "../core/event-stream.js";
import type { Pages } from "../core/pages.js";
import type { Job } from "../types.js";
import type { EventName, EventsQuery, ManagerEvent } from "./events.js";
import type { ListQuery } from "./job-queries.js";

export interface WatchQuery {
  /** Only jobs with each of these tags, "name:value". @default every job */
  readonly tag?: readonly string[];
}

export type JobWatchChange =
  | { readonly type: "added" | "updated"; readonly job: Job }
  | { readonly type: "deleted"; readonly job: Job };

export interface JobWatch extends AsyncIterable<JobWatchChange> {
  /** The jobs as last known, by id: read it at any moment. */
  readonly jobs: ReadonlyMap<string, Job>;
  /** Settles when the first list is in (or the watch failed before). */
  readonly synced: Promise<void>;
  /** Settles when the watch ends: fulfilled after close(), rejected with what ended it otherwise. */
  readonly done: Promise<void>;
  /** Calls `listener` with each change; returns what stops it. */
  onChange(listener: (change: JobWatchChange) => void): () => void;
  close(): void;
}

/** What a watch reads through: client.jobs.list and client.events. */
export interface WatchSources {
  list(query: ListQuery, options: RequestOptions): Pages<Job>;
  events(query: EventsQuery, options: StreamOptions): AsyncIterable<ManagerEvent>;
}

const CHANGES: readonly EventName[] = ["jobUpdated", "jobDeleted"];

export function watchJobs(sources: WatchSources, query: WatchQuery, options: RequestOptions = {}): JobWatch {
  const controller = new AbortController();
  options.signal?.addEventListener("abort", () => { controller.abort(); }, { once: true });
  const view = new View((job) => matches(job, query.tag ?? []));
  let markSynced: () => void = () => undefined;
  let failSynced: (error: unknown) => void = () => undefined;
  const synced = new Promise<void>((resolve, reject) => {
    markSynced = resolve;
    failSynced = reject;
  });
  const run = async (): Promise<void> => {
    let connection = 0;
    const request = { ...options, signal: controller.signal };
    const tag = query.tag === undefined ? undefined : [...query.tag];
    for await (const event of sources.events({ type: CHANGES, tag }, request)) {
      if (event.event === "initialDataComplete") {
        // Live from here on: list, and take the list as the whole state.
        connection = event.connection;
        view.replace(await sources.list({ tag }, request).all());
        markSynced();
      } else if (event.connection === connection) view.apply(event);
    }
  };
  const done = run().then(
    () => {
      view.end();
    },
    (error: unknown) => {
      view.end();
      failSynced(error);
      if (!controller.signal.aborted) throw error;
    },
  );
  // A caller who only reads the map need not await done.
  done.catch(() => undefined);
  return {
    jobs: view.jobs,
    synced,
    done,
    onChange: (listener) => view.listen(listener),
    close: () => {
      controller.abort();
    },
    [Symbol.asyncIterator]: () => view.changes(),
  };
}

function matches(job: Job, tags: readonly string[]): boolean {
  return tags.every((tag) => {
    const colon = tag.indexOf(":");
    return job.tags[tag.slice(0, colon)] === tag.slice(colon + 1);
  });
}

/** The state of a watch, and who is told of its changes. */
class View {
  readonly jobs = new Map<string, Job>();
  readonly #matches: (job: Job) => boolean;
  readonly #listeners = new Set<(change: JobWatchChange | undefined) => void>();

  constructor(matches: (job: Job) => boolean) {
    this.#matches = matches;
  }

  /** Takes `listed` as the whole state, telling the difference from the one before. */
  replace(listed: readonly Job[]): void {
    const next = new Map(listed.filter(this.#matches).map((job) => [job.jobId, job]));
    for (const [jobId, job] of this.jobs) if (!next.has(jobId)) this.#set(jobId, undefined, job);
    for (const [jobId, job] of next) {
      const before = this.jobs.get(jobId);
      if (before?.currentHash !== job.currentHash) this.#set(jobId, job, before);
    }
  }

  apply(event: ManagerEvent): void {
    if (event.event === "jobDeleted") {
      const jobId = event.data.jobId ?? "";
      this.#set(jobId, undefined, this.jobs.get(jobId));
    } else if (event.event === "jobUpdated") {
      const job = event.data.jobWithHistory?.job;
      if (job === undefined) return;
      this.#set(job.jobId, this.#matches(job) ? job : undefined, this.jobs.get(job.jobId));
    }
  }

  #set(jobId: string, job: Job | undefined, before: Job | undefined): void {
    if (job === undefined) {
      if (before === undefined) return;
      this.jobs.delete(jobId);
      this.#tell({ type: "deleted", job: before });
      return;
    }
    this.jobs.set(jobId, job);
    this.#tell({ type: before === undefined ? "added" : "updated", job });
  }

  #tell(change: JobWatchChange | undefined): void {
    for (const listener of this.#listeners) listener(change);
  }

  listen(listener: (change: JobWatchChange) => void): () => void {
    const own = (change: JobWatchChange | undefined): void => {
      if (change !== undefined) listener(change);
    };
    this.#listeners.add(own);
    return () => this.#listeners.delete(own);
  }

  /** The watch has ended: iterations end too. */
  end(): void {
    this.#tell(undefined);
    this.#listeners.clear();
  }

  /** The changes from now on, queued until read; ends when the watch does. */
  async *changes(): AsyncGenerator<JobWatchChange, void, undefined> {
    const queue: (JobWatchChange | undefined)[] = [];
    let wake: (() => void) | undefined;
    const listener = (change: JobWatchChange | undefined): void => {
      queue.push(change);
      wake?.();
    };
    this.#listeners.add(listener);
    try {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const change = queue.shift();
        if (change === undefined) return;
        yield change;
      }
    } finally {
      this.#listeners.delete(listener);
    }
  }
}

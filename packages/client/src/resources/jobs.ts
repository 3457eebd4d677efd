// client.jobs: a job's reads and writes, named as the SDK names its calls. Thin: each method
// is one operation of the catalogue, sent by the transport; pages, the NDJSON stream, safe
// updates and the live view are their own modules.
import type { RequestOptions } from "../core/options.js";
import { Pages } from "../core/pages.js";
import type { Page } from "../core/pages.js";
import { ndjsonValues } from "../core/ndjson.js";
import type { Transport } from "../core/transport.js";
import type { Job, JobActivity, JobInput, JobPatch, JsonPatch, PartialJob } from "../types.js";
import { ifMatchHeader } from "./conditions.js";
import type { WriteOptions } from "./conditions.js";
import { Instances } from "./instances.js";
import type { GetOptions, ListQuery, StreamQuery } from "./job-queries.js";
import { updateJob } from "./job-update.js";
import type { JobChange, UpdateOptions } from "./job-update.js";
import type { Backoff } from "../core/backoff.js";
import { watchJobs } from "./job-watch.js";
import type { JobWatch, WatchQuery, WatchSources } from "./job-watch.js";

const DEFAULT_PAGE_SIZE = 100;

export class Jobs {
  readonly #transport: Transport;
  readonly #backoff: Backoff;
  readonly instances: Instances;

  readonly #events: WatchSources["events"];

  /** `events` is client.events, which a watch follows. */
  constructor(transport: Transport, backoff: Backoff, events: WatchSources["events"]) {
    this.#transport = transport;
    this.#backoff = backoff;
    this.#events = events;
    this.instances = new Instances(transport);
  }

  /**
   * A live view of the jobs with `tag`: every job listed, then kept up to date from the event
   * stream, listed again after a reconnection (src/resources/job-watch.ts).
   */
  watch(query: WatchQuery = {}, options: RequestOptions = {}): JobWatch {
    return watchJobs({ list: (listQuery, listOptions) => this.list(listQuery, listOptions), events: this.#events }, query, options);
  }

  /** Every job the filters select, a page at a time: `for await (const job of client.jobs.list({ tag: ["env:prod"] }))`. */
  list(query: ListQuery = {}, options: RequestOptions = {}): Pages<Job> {
    const { pageSize = DEFAULT_PAGE_SIZE, pageToken, ...filters } = query;
    const read = async (token: string | undefined): Promise<Page<Job>> => {
      const call = { operation: "jobSearch", query: { ...filters, pageSize, pageToken: token } } as const;
      const { value } = await this.#transport.json(call, options);
      const list = value as { jobs: Job[]; nextPageToken?: string };
      return { items: list.jobs, nextPageToken: list.nextPageToken };
    };
    return new Pages(read, pageToken);
  }

  /**
   * Every job the filters select, as NDJSON: one at a time as the gateway sends them, never the
   * whole list in memory. Breaking out of the loop ends the request.
   */
  async *stream(query: StreamQuery = {}, options: RequestOptions = {}): AsyncGenerator<Job, void, undefined> {
    const opened = await this.#transport.open({ operation: "jobSearch", query, accept: "application/x-ndjson" }, options);
    for await (const value of ndjsonValues(opened)) yield value as Job;
  }

  /**
   * Creates a job (201), or finds the identical one already made (200: the gateway takes the same
   * create sent again as a safe retry, so this one is retried); a different job under the same
   * id is a ConflictError.
   */
  async create(job: JobInput, options: RequestOptions = {}): Promise<Job> {
    const { value } = await this.#transport.json({ operation: "createJob", body: job }, options);
    return value as Job;
  }

  /** The job; a NotFoundError when there is none. */
  async get(jobId: string, options: GetOptions = {}): Promise<Job> {
    const { fields, ...rest } = options;
    const { value } = await this.#transport.json({ operation: "jobById", path: { jobId }, query: { fields } }, rest);
    return value as Job;
  }

  /** The job's fields named by `fields` (comma-separated), jobId always among them. */
  async getPartial(jobId: string, fields: string, options: RequestOptions = {}): Promise<PartialJob> {
    const { value } = await this.#transport.json({ operation: "jobById", path: { jobId }, query: { fields } }, options);
    return value as PartialJob;
  }

  /** Replaces the job whole (fields left out take their zero value); with ifMatch, only if unchanged. */
  async replace(jobId: string, job: JobInput, options: WriteOptions = {}): Promise<Job> {
    const call = { operation: "updateJob", path: { jobId }, body: job, headers: ifMatchHeader(options) } as const;
    const { value } = await this.#transport.json(call, options);
    return value as Job;
  }

  /**
   * Reads the job, applies `change`, and writes the result with If-Match; when another writer
   * came between (412), does it again on what that writer left, a bounded number of times
   * (src/resources/job-update.ts): `client.jobs.update(id, (job) => ({ ...job, description: "x" }))`.
   */
  update(jobId: string, change: JobChange, options: UpdateOptions = {}): Promise<Job> {
    return updateJob(this, this.#backoff, jobId, change, options);
  }

  /** A JSON Merge Patch (RFC 7396): what it names changes, null removes, the rest is kept. */
  async patch(jobId: string, patch: JobPatch, options: WriteOptions = {}): Promise<Job> {
    const call = { operation: "patchJob", path: { jobId }, body: patch, mediaType: "application/merge-patch+json", headers: ifMatchHeader(options) } as const;
    const { value } = await this.#transport.json(call, options);
    return value as Job;
  }

  /** A JSON Patch (RFC 6902), all or nothing; a failed test is a ConflictError. */
  async jsonPatch(jobId: string, operations: JsonPatch, options: WriteOptions = {}): Promise<Job> {
    const call = { operation: "patchJob", path: { jobId }, body: operations, mediaType: "application/json-patch+json", headers: ifMatchHeader(options) } as const;
    const { value } = await this.#transport.json(call, options);
    return value as Job;
  }

  async delete(jobId: string, options: WriteOptions = {}): Promise<void> {
    await this.#transport.json({ operation: "deleteJob", path: { jobId }, headers: ifMatchHeader(options) }, options);
  }

  /** Stops every running instance; the job's state becomes post, which is final. */
  async complete(jobId: string, options: WriteOptions = {}): Promise<void> {
    await this.#transport.json({ operation: "completeJob", path: { jobId }, headers: ifMatchHeader(options) }, options);
  }

  /** The job's activity (active, pending or none) and history, from the Manager's current picture. */
  async activity(jobId: string, options: RequestOptions = {}): Promise<JobActivity> {
    const { value } = await this.#transport.json({ operation: "jobActivity", path: { jobId } }, options);
    return value as JobActivity;
  }
}

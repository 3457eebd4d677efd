// A safe update: read the job, apply the caller's change to it, write it with If-Match on the
// ETag read; when another writer came between (412), read again and apply the change again to
// what that writer left, after a jittered backoff, a bounded number of times. Never a blind
// write: every write is conditional on the version the change was applied to, so no other
// writer's change is lost. Only a 412 is tried again; any other failure (a 409 included: a
// conflict the change itself must resolve) is thrown as it is.
import { backoffDelay, sleep } from "../core/backoff.js";
import type { Backoff } from "../core/backoff.js";
import type { RequestOptions } from "../core/options.js";
import { PreconditionFailedError } from "../core/problem.js";
import type { Job, JobInput } from "../types.js";
import { etagOf } from "./conditions.js";

export interface UpdateOptions extends RequestOptions {
  /**
   * How many times the job is read and the change applied and written, the first time
   * included, before the last PreconditionFailedError is thrown.
   * @default 5
   */
  readonly maxAttempts?: number;
}

export const DEFAULT_UPDATE_ATTEMPTS = 5;

/** The reads and writes an update is made of (client.jobs's). */
export interface JobAccess {
  get(jobId: string, options: RequestOptions): Promise<Job>;
  replace(jobId: string, job: JobInput, options: RequestOptions & { readonly ifMatch: string }): Promise<Job>;
}

/** `change` may be called more than once, each time with the job as it is then: it must not have effects of its own. */
export type JobChange = (job: Job) => JobInput | Promise<JobInput>;

export async function updateJob(access: JobAccess, backoff: Backoff, jobId: string, change: JobChange, options: UpdateOptions): Promise<Job> {
  const { maxAttempts = DEFAULT_UPDATE_ATTEMPTS, ...request } = options;
  for (let attempt = 1; ; attempt++) {
    const job = await access.get(jobId, request);
    const changed = await change(job);
    try {
      return await access.replace(jobId, changed, { ...request, ifMatch: etagOf(job) });
    } catch (error) {
      if (!(error instanceof PreconditionFailedError) || attempt >= maxAttempts) throw error;
      await sleep(backoffDelay(attempt - 1, backoff), request.signal);
    }
  }
}

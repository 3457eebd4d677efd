// The preconditions a write may carry (docs/reference/http-api.md, "Preconditions"), as the
// headers that say them.
import type { RequestOptions } from "../core/options.js";

export interface WriteOptions extends RequestOptions {
  /**
   * Write only if the job's ETag is this one (as jobs.get read it, or etagOf(job)), or, with
   * "*", only if the job exists; else a PreconditionFailedError and nothing is written. A
   * write with If-Match may be retried: a second one after the first succeeded fails its
   * precondition instead of writing twice.
   */
  readonly ifMatch?: string;
}

/** A job's ETag: its currentHash, quoted, as the gateway sends it. */
export function etagOf(job: { readonly currentHash?: string | undefined }): string {
  return `"${job.currentHash ?? "0"}"`;
}

export function ifMatchHeader(options: WriteOptions): Record<string, string | undefined> {
  return { "if-match": options.ifMatch };
}

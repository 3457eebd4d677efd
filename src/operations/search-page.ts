// Pages of GET /v1/jobs (docs/guide/jobs.md, "Pages"). The Manager has no cursor: a page is the
// search made again, its jobs up to and including the position skipped in the gateway, then
// `pageSize` jobs taken, and one more read to learn whether there is a next page. So page n
// costs the Manager and the gateway the first n pages' worth of jobs, and nothing is kept
// between pages: the token carries everything, and survives a gateway restart or a replica.
//
// Token contract: base64url of one version byte, the filters' digest (FILTER_DIGEST_BYTES) and
// the last job id sent (UTF-8). The digest ties a token to the filters it was made for, so a
// token sent with other filters is a 400 instead of a page of another list. A token is not
// signed: a forged one can name only a position in the caller's own search, which any client
// reaches by asking for that id range, so a signature would protect nothing.
import { createHash } from "node:crypto";
import { idProblem } from "norsk-manager-contract/lexical/ids.js";
import type { CurrentJob } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { StartedSearch } from "./search-body.js";
import { MAX_PAGE_TOKEN_LENGTH } from "../../schemas/search.js";

const TOKEN_VERSION = 1;
const FILTER_DIGEST_BYTES = 16;

/** Where a page starts: after this job id, in the search whose filters have this digest. */
export interface PagePosition {
  readonly afterJobId: string;
  readonly filterDigest: Buffer;
}

/**
 * The digest of a search's filters: the (name, value) pairs that select jobs, in any order (the
 * filters are AND-ed, so their order does not change the list).
 */
export function filterDigest(filters: readonly (readonly [string, string])[]): Buffer {
  const canonical = [...filters].map(([name, value]) => JSON.stringify([name, value])).sort();
  return createHash("sha256").update(canonical.join("\n")).digest().subarray(0, FILTER_DIGEST_BYTES);
}

export function encodePageToken(position: PagePosition): string {
  return Buffer.concat([Buffer.of(TOKEN_VERSION), position.filterDigest, Buffer.from(position.afterJobId, "utf8")]).toString("base64url");
}

/** The position a token names, or what is wrong with it (in the client's words). */
export function decodePageToken(token: string): PagePosition | string {
  if (token.length > MAX_PAGE_TOKEN_LENGTH) return `must be at most ${MAX_PAGE_TOKEN_LENGTH} characters`;
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return "is not a page token of this API (use nextPageToken as it was sent)";
  const bytes = Buffer.from(token, "base64url");
  if (bytes.length <= 1 + FILTER_DIGEST_BYTES || bytes[0] !== TOKEN_VERSION) return "is not a page token of this API (use nextPageToken as it was sent)";
  let afterJobId: string;
  try {
    afterJobId = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes.subarray(1 + FILTER_DIGEST_BYTES));
  } catch {
    return "is not a page token of this API (use nextPageToken as it was sent)";
  }
  if (idProblem(afterJobId) !== undefined) return "is not a page token of this API (use nextPageToken as it was sent)";
  return { afterJobId, filterDigest: bytes.subarray(1, 1 + FILTER_DIGEST_BYTES) };
}

/**
 * Job ids in the Manager's order: the reference Manager sorts by SQLite's binary collation,
 * which is UTF-8 byte order (code point order; JavaScript's < on UTF-16 differs past U+FFFF).
 */
export function compareJobIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

export interface PageOptions {
  /** Jobs on the page at most (1 to MAX_PAGE_SIZE). */
  readonly size: number;
  /** Start after this job id; undefined: the first page. */
  readonly afterJobId?: string | undefined;
  /** Whether a job is on the list (filters applied in the gateway); default: every job. */
  readonly keep?: ((job: NonNullable<CurrentJob["job"]>) => boolean) | undefined;
}

export interface Page {
  readonly jobs: readonly NonNullable<CurrentJob["job"]>[];
  /** Whether a job follows the last one on the page. */
  readonly more: boolean;
}

/**
 * Reads one page from a started search: skips to the position, takes up to `size` jobs, and
 * reads one more to tell whether a next page exists; the search is then stopped. Each read is
 * bounded by the search's own call (its idle timeout and the client's disconnect).
 */
export async function readPage(search: StartedSearch, options: PageOptions): Promise<Page> {
  const { size, afterJobId, keep } = options;
  const jobs: NonNullable<CurrentJob["job"]>[] = [];
  let next: IteratorResult<CurrentJob> | undefined = search.first;
  try {
    for (; next.done !== true; next = await search.jobs.next()) {
      const job = next.value.job;
      if (job === undefined) continue;
      if (afterJobId !== undefined && compareJobIds(job.jobId?.jobId ?? "", afterJobId) <= 0) continue;
      if (keep !== undefined && !keep(job)) continue;
      if (jobs.length === size) return { jobs, more: true };
      jobs.push(job);
    }
    return { jobs, more: false };
  } finally {
    if (next.done !== true) await search.jobs.return?.().catch(() => undefined);
  }
}

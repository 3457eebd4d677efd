// What the job reads take: the search's filters, a list's paging, a stream's limit, a read's fields.
import type { QueryOf } from "../core/operation-types.js";
import type { RequestOptions } from "../core/options.js";

/** The search's filters (every query parameter but the paging ones and fields). */
export type JobFilters = Omit<QueryOf<"jobSearch">, "pageSize" | "pageToken" | "limit" | "fields">;

export interface ListQuery extends JobFilters {
  /** Jobs per page, 1 to 1000. @default 100 */
  readonly pageSize?: number;
  /** Where to start: a nextPageToken kept from an earlier page of the same filters. @default the first page */
  readonly pageToken?: string;
}

export interface StreamQuery extends JobFilters {
  /** Stop after this many jobs. @default every job */
  readonly limit?: number;
}

export interface GetOptions extends RequestOptions {
  /** Only these top-level fields, comma-separated: the job is then partial. @default every field */
  readonly fields?: string;
}

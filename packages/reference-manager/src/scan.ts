// The part of a job search that runs in the scan worker (scan-worker.ts): compile the filters
// and test each job against them. It is given everything it needs as plain data (the request
// and the rows, as bytes and strings, since messages with methods do not cross threads) and
// answers with the positions of the matching rows, or with the status that refused the filters.
import { fromBinary } from "@bufbuild/protobuf";
import { JobSchema, JobSearchRequestSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { GrpcError } from "norsk-manager-contract/grpc/errors.js";
import type { Code } from "norsk-manager-contract/grpc/errors.js";
import { compileSearch } from "./filters.js";

export interface ScanTask {
  /** The JobSearchRequest, encoded. */
  readonly request: Uint8Array;
  /** The candidate jobs' ids, in the order the answer refers to. */
  readonly ids: readonly string[];
  /** The candidate jobs, encoded, in the same order; only when a filter reads more than the id. */
  readonly jobs: readonly Uint8Array[] | undefined;
}

export type ScanResult =
  | { readonly ok: true; readonly matched: readonly number[] }
  | { readonly ok: false; readonly code: Code; readonly details: string };

/** Indexes (ascending) of the candidates that match every filter of the task's request. */
export function scan(task: ScanTask): ScanResult {
  try {
    return { ok: true, matched: matchingIndexes(task) };
  } catch (error) {
    const status = GrpcError.from(error);
    return { ok: false, code: status.code, details: status.details };
  }
}

function matchingIndexes({ request, ids, jobs }: ScanTask): number[] {
  const { matchesId, matchesJob } = compileSearch(fromBinary(JobSearchRequestSchema, request).jobFilter);
  if (matchesJob !== undefined && jobs === undefined) throw new Error("scan: the filters read the jobs, but none were given");
  const matched: number[] = [];
  ids.forEach((id, i) => {
    if (!matchesId(id)) return;
    const bytes = jobs?.[i];
    if (matchesJob !== undefined && (bytes === undefined || !matchesJob(fromBinary(JobSchema, bytes)))) return;
    matched.push(i);
  });
  return matched;
}

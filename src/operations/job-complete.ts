// POST /v1/jobs/{jobId}/complete with its preconditions. The Manager's CompleteJob takes a job
// id and no hash, so "complete this job if its ETag is still E" is a read, a comparison, then
// CompleteJob. Through this gateway nothing comes between (the job's writes are queued:
// job-write-queue.ts); a write through another replica may, and is then kept (completing
// changes only the job's state): the job completed is that write's version, not E. No fence as
// DELETE's (job-delete.ts): its tag would stay on the completed job.
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { preconditionFailed } from "../http/problem.js";
import type { IfMatch } from "../http/preconditions.js";
import { JOB_ABSENT, checkIfMatch, findJob, jobNotFound } from "./job-access.js";
import type { ManagerClient } from "./job-access.js";

/**
 * Completes `jobId` as If-Match asks: without it, CompleteJob (404 when absent); with `*`,
 * CompleteJob (412 when absent); with an entity tag, only if the job's ETag is that one and not
 * "0" (412 otherwise, and when absent; then nothing is written).
 */
export async function completeAsAsked(client: ManagerClient, jobId: string, ifMatch: IfMatch, options: CallOptions): Promise<void> {
  if (ifMatch.kind === "hash") {
    const current = await findJob(client, jobId, options);
    if (current?.job === undefined) throw preconditionFailed(JOB_ABSENT);
    checkIfMatch(ifMatch, current.job.currentHash);
  }
  try {
    await client.completeJob({ jobId }, options);
  } catch (error) {
    if (!(error instanceof GrpcError) || error.code !== Code.NOT_FOUND) throw error;
    throw ifMatch.kind === "none" ? jobNotFound(jobId) : preconditionFailed(JOB_ABSENT);
  }
}

// POST /v1/jobs: CreateJob, where meeting an existing job is read to tell a safe retry (the
// same job sent again, answered as if the first attempt's answer had arrived) from a conflict.
import { clone, equals } from "@bufbuild/protobuf";
import { JobSchema } from "../gen/norsk/api/manager_pb.js";
import type { Job } from "../gen/norsk/api/manager_pb.js";
import { Code, GrpcError } from "../grpc/errors.js";
import type { CallOptions } from "../grpc/types.js";
import { alreadyExists } from "../http/problem.js";
import { findJob } from "./job-access.js";
import type { ManagerClient } from "./job-access.js";

/** The detail of a create that meets a different job under its id. */
export const DIFFERENT_JOB = "a different job with this jobId already exists";

/**
 * CreateJob. An existing job with the same id is a safe retry when it is the same job (200 with
 * the stored one) and a conflict otherwise (ALREADY_EXISTS).
 */
export async function createOrRecognise(client: ManagerClient, job: Job, options: CallOptions): Promise<{ job: Job; status: 200 | 201 }> {
  try {
    const { hash } = await client.createJob(job, options);
    job.currentHash = hash;
    return { job, status: 201 };
  } catch (error) {
    if (!(error instanceof GrpcError) || error.code !== Code.ALREADY_EXISTS) throw error;
  }
  const existing = await findJob(client, job.jobId?.jobId ?? "", options);
  if (existing?.job !== undefined && sameJob(existing.job, job)) return { job: existing.job, status: 200 };
  throw alreadyExists(DIFFERENT_JOB);
}

/** Same job, the hash aside: what a client would send again when retrying a create. */
function sameJob(stored: Job, sent: Job): boolean {
  const a = clone(JobSchema, stored);
  const b = clone(JobSchema, sent);
  a.currentHash = 0n;
  b.currentHash = 0n;
  return equals(JobSchema, a, b);
}

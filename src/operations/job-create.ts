// Creating a job. POST /v1/jobs: CreateJob, where meeting an existing job is read to tell a safe
// retry (the same job sent again, answered as if the first attempt's answer had arrived) from a
// conflict. PUT with If-None-Match: * (create only): CreateJob too, where any existing job fails
// the precondition, since the client said none should exist.
import { clone, equals } from "@bufbuild/protobuf";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { alreadyExists, preconditionFailed } from "../http/problem.js";
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

/** The detail of a 412 for a create-only PUT of a job that exists. */
export const JOB_EXISTS = "the job exists, and If-None-Match: * asks to create it only if it does not";

/**
 * CreateJob for a PUT with If-None-Match: *. The Manager's CreateJob refuses an existing id
 * atomically, so the job is created only if it did not exist: a 412 otherwise, an identical
 * job included (RFC 9110, If-None-Match: the method is not performed when a current
 * representation exists). The job, with the hash the Manager returned, on success.
 */
export async function createOnly(client: ManagerClient, job: Job, options: CallOptions): Promise<Job> {
  try {
    const { hash } = await client.createJob(job, options);
    job.currentHash = hash;
    return job;
  } catch (error) {
    if (error instanceof GrpcError && error.code === Code.ALREADY_EXISTS) throw preconditionFailed(JOB_EXISTS);
    throw error;
  }
}

/** Same job, the hash aside: what a client would send again when retrying a create. */
function sameJob(stored: Job, sent: Job): boolean {
  const a = clone(JobSchema, stored);
  const b = clone(JobSchema, sent);
  a.currentHash = 0n;
  b.currentHash = 0n;
  return equals(JobSchema, a, b);
}

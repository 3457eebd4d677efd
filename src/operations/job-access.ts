// The gRPC calls behind the job routes, in the Manager's terms: find one job, and write one
// with the preconditions of docs/ARCHITECTURE.md (Versions and preconditions) turned into the
// Manager's test-and-set.
//
// UpdateJob's current_hash 0 means "no test": an If-Match entity tag is therefore never sent as
// 0. If-Match "0" fails like any other tag on a job whose hash differs, and on a job whose hash
// is 0 (a Manager that gives it no version) it fails too, with a detail saying so: the write the
// client asked for (only if unchanged) cannot be made, and a blind one is not what it asked.
import type { CurrentJob, Job, Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { readWithRetry } from "norsk-manager-contract/grpc/dropped.js";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import type { CallOptions, Client } from "norsk-manager-contract/grpc/types.js";
import type { CallingRouteOptions } from "./call-options.js";
import { invalidArgument, notFound, preconditionFailed } from "../http/problem.js";
import type { ProblemError } from "../http/problem.js";
import type { IfMatch } from "../http/preconditions.js";
import { metadataKey } from "./coalesced-reads.js";
import type { ReadCoalescer } from "./coalesced-reads.js";
import type { StartedSearch } from "./search-body.js";

export type ManagerClient = Client<typeof Manager>;

/** The options of every route plugin that calls the Manager (jobs, instances, nodes, search). */
export interface ManagerRouteOptions extends CallingRouteOptions<ManagerClient> {
  /** Job writes (routes/jobs.ts): attempts of a PATCH whose test-and-set loses to a concurrent change. Default: 3. */
  readonly patchAttempts?: number | undefined;
  /** Job writes: writes of one job that may wait behind the running one (job-write-queue.ts); one more is a 429. Default: 100. */
  readonly maxWaitingWrites?: number | undefined;
  /** Reads of one job by id (GET of a job, of its instances) shared between identical concurrent reads. Default: none, each read its own call. */
  readonly jobReads?: ReadCoalescer<CurrentJob | undefined> | undefined;
  /** Searches (GET /v1/jobs) shared between identical concurrent searches. Default: none, each its own call. */
  readonly searches?: ReadCoalescer<StartedSearch> | undefined;
}

/**
 * JobSearch by id (one filter, id eq). The stream is read to its end (at most one job) rather
 * than cancelled at the first match: a cancellation is an RST_STREAM, and a server that sees
 * many of them in a burst takes it for a rapid-reset attack and closes the whole connection,
 * failing every call on it (seen under load as INTERNAL "Session closed with error code 2").
 * A read whose connection went away is made once more (packages/contract/src/grpc/dropped.ts).
 */
export function findJob(client: ManagerClient, jobId: string, options: CallOptions): Promise<CurrentJob | undefined> {
  const request = { jobFilter: [{ jobFilter: { case: "idFilter" as const, value: { comparison: { case: "eq" as const, value: jobId } } } }] };
  return readWithRetry(async () => {
    let found: CurrentJob | undefined;
    for await (const current of client.jobSearch(request, options)) {
      if (found === undefined && current.job?.jobId?.jobId === jobId) found = current;
    }
    return found;
  }, options.signal);
}

/** findJob, shared with the identical reads in flight through `reads` when given. */
export function findJobShared(reads: ReadCoalescer<CurrentJob | undefined> | undefined, client: ManagerClient, jobId: string, options: CallOptions): Promise<CurrentJob | undefined> {
  if (reads === undefined) return findJob(client, jobId, options);
  return reads.read(`${jobId}\u0000${metadataKey(options.metadata)}`, options, (shared) => findJob(client, jobId, shared));
}

/**
 * The job, or a 404. With `reads`, the answer may be shared with other readers: the caller must
 * not change it.
 */
export async function requireJob(
  client: ManagerClient,
  jobId: string,
  options: CallOptions,
  reads?: ReadCoalescer<CurrentJob | undefined>,
): Promise<CurrentJob & { job: Job }> {
  const current = await findJobShared(reads, client, jobId, options);
  if (current?.job === undefined) throw jobNotFound(jobId);
  return current as CurrentJob & { job: Job };
}

/** The detail of a 404 for a job id. */
export function noSuchJob(jobId: string): string {
  return `job ${JSON.stringify(jobId)} does not exist`;
}

export function jobNotFound(jobId: string): ProblemError {
  return notFound(noSuchJob(jobId));
}

/** The detail of a 412 for an If-Match entity tag on a job whose hash is 0. */
export const NO_VERSION =
  'the Manager gives this job no version to test (its ETag is "0"), so If-Match cannot be checked; make the write without If-Match';

/** The detail of a 412 for an If-Match entity tag that is not the job's ETag. */
export const STALE_TAG = "the job's ETag differs from If-Match";

/**
 * Checks If-Match against `current`, the hash of the job as just read: a 412 when an entity
 * tag differs from it, or when it is 0 (NO_VERSION: nothing to test the write against).
 */
export function checkIfMatch(ifMatch: IfMatch, current: bigint): void {
  if (ifMatch.kind !== "hash") return;
  if (ifMatch.hash !== current) throw preconditionFailed(STALE_TAG);
  if (current === 0n) throw preconditionFailed(NO_VERSION);
}

/**
 * PUT: UpdateJob of `job` (which the caller owns) as If-Match and the body's currentHash ask.
 * If-Match "0" is never sent (it would be a blind write): the job is read to say why it fails.
 * A body currentHash of 0 stays "no precondition", as on the wire.
 */
export async function replaceJob(client: ManagerClient, job: Job, ifMatch: IfMatch, options: CallOptions): Promise<bigint> {
  const expected = expectedHash(ifMatch, job.currentHash);
  if (ifMatch.kind === "hash" && expected === 0n) throw await zeroTagFailure(client, job.jobId?.jobId ?? "", options);
  const clientAsked = ifMatch.kind !== "none" || job.currentHash !== 0n;
  return writeJob(client, job, expected, clientAsked, options);
}

/** The detail of a 412 for a conditional write of a job that does not exist. */
export const JOB_ABSENT = "the job does not exist";

/** Why If-Match "0" fails for `jobId`, read from the Manager: absent, another hash, or hash 0. */
async function zeroTagFailure(client: ManagerClient, jobId: string, options: CallOptions): Promise<ProblemError> {
  const current = await findJob(client, jobId, options);
  if (current?.job === undefined) return preconditionFailed(JOB_ABSENT);
  return preconditionFailed(current.job.currentHash === 0n ? NO_VERSION : STALE_TAG);
}

/**
 * The hash a write must be conditional on: If-Match's, or the body's non-zero currentHash; both
 * present and different is a contradiction (400). Zero means unconditional, as on the wire.
 */
export function expectedHash(ifMatch: IfMatch, bodyHash: bigint): bigint {
  if (ifMatch.kind === "hash") {
    if (bodyHash !== 0n && bodyHash !== ifMatch.hash) {
      throw invalidArgument("currentHash in the body contradicts If-Match", {
        errors: [
          { pointer: "/currentHash", message: "differs from the If-Match entity tag" },
          { header: "if-match", message: "differs from currentHash in the body" },
        ],
      });
    }
    return ifMatch.hash;
  }
  return bodyHash;
}

/**
 * UpdateJob with `expected` as the test-and-set hash, set in `job` (which the caller owns). ABORTED means the stored hash differs:
 * PRECONDITION_FAILED (412) when the client asked for the precondition, else the Manager's
 * ABORTED (409: someone else's change won). A conditional write of a job that does not exist
 * also fails its precondition (RFC 9110 §13.1.1).
 */
export async function writeJob(
  client: ManagerClient,
  job: Job,
  expected: bigint,
  clientAsked: boolean,
  options: CallOptions,
): Promise<bigint> {
  try {
    // The caller's job, with the expected hash in place: a copy of a different shape would
    // cost protobuf-es's encoder more than the copy itself.
    job.currentHash = expected;
    const reply = await client.updateJob(job, options);
    return reply.hash;
  } catch (error) {
    if (error instanceof GrpcError && clientAsked) {
      if (error.code === Code.ABORTED) throw preconditionFailed("the job has changed since the entity tag was read");
      if (error.code === Code.NOT_FOUND) throw preconditionFailed(JOB_ABSENT);
    }
    throw error;
  }
}

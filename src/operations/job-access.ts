// The gRPC calls behind the job routes, in the Manager's terms: find one job, and write one
// with the preconditions of (docs/architecture.md, "Versions and preconditions") turned into the
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
import { Manager as ManagerService } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { namedCallKey } from "./shared-calls/key.js";
import type { SharedCalls } from "./shared-calls/calls.js";
import type { StartedSearch } from "./search-body.js";

export type ManagerClient = Client<typeof Manager>;

/** The options of every route plugin that calls the Manager (jobs, instances, nodes, search). */
export interface ManagerRouteOptions extends CallingRouteOptions<ManagerClient> {
  /** Job writes (routes/jobs.ts): attempts of a PATCH whose test-and-set loses to a concurrent change. Default: PATCH_ATTEMPTS (job-patch.ts). */
  readonly patchAttempts?: number | undefined;
  /** Job writes: writes of one job that may wait behind the running one (job-write-queue.ts); one more is a 429. Default: 100. */
  readonly maxWaitingWrites?: number | undefined;
  /** Reads of one job by id (GET of a job, of its instances) shared between identical concurrent reads. Default: none, each read its own call. */
  readonly jobReads?: SharedCalls<CurrentJob | undefined> | undefined;
  /** Searches (GET /v1/jobs) shared between identical concurrent searches. Default: none, each its own call. */
  readonly searches?: SharedCalls<StartedSearch> | undefined;
}

/**
 * JobSearch by id (one filter, id eq). The stream is read to its end (at most one job) rather
 * than cancelled at the first match: a cancellation is an RST_STREAM, and a server that sees
 * many of them in a burst takes it for a rapid-reset attack and closes the whole connection,
 * failing every call on it (seen under load as INTERNAL "Session closed with error code 2").
 * A read whose connection went away is made once more (packages/contract/src/grpc/dropped.ts).
 */
export function findJob(client: ManagerClient, jobId: string, options: CallOptions): Promise<CurrentJob | undefined> {
  const request = jobByIdRequest(jobId);
  return readWithRetry(async () => {
    let found: CurrentJob | undefined;
    for await (const current of client.jobSearch(request, options)) {
      if (found === undefined && current.job?.jobId?.jobId === jobId) found = current;
    }
    return found;
  }, options.signal);
}

/** JobSearch's request for the one job `jobId`. */
function jobByIdRequest(jobId: string) {
  return { jobFilter: [{ jobFilter: { case: "idFilter" as const, value: { comparison: { case: "eq" as const, value: jobId } } } }] };
}

/** findJob, shared with the identical reads in flight through `reads` when given. */
export function findJobShared(reads: SharedCalls<CurrentJob | undefined> | undefined, client: ManagerClient, jobId: string, options: CallOptions): Promise<CurrentJob | undefined> {
  if (reads === undefined) return findJob(client, jobId, options);
  // The id is the whole of the request (jobByIdRequest), so it names the read.
  const key = namedCallKey(ManagerService.method.jobSearch, jobId, options.metadata);
  return reads.read(key, options, (shared) => findJob(client, jobId, shared));
}

/**
 * The job, or a 404. With `reads`, the answer may be shared with other readers: the caller must
 * not change it.
 */
export async function requireJob(
  client: ManagerClient,
  jobId: string,
  options: CallOptions,
  reads?: SharedCalls<CurrentJob | undefined>,
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
  const preconditionAsked = ifMatch.kind !== "none" || job.currentHash !== 0n;
  return writeJob(client, job, { expectedHash: expected, preconditionAsked }, options);
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

/** How writeJob tests and answers a write. */
export interface WriteJobOptions {
  /** The hash the Manager's test-and-set compares the stored job's with. Default: 0n, no test (an unconditional write). */
  readonly expectedHash?: bigint;
  /**
   * Whether the client asked for the precondition (If-Match, or a non-zero currentHash in the
   * body): a lost test-and-set is then the client's 412, not the Manager's 409. Default: false.
   */
  readonly preconditionAsked?: boolean;
}

/**
 * UpdateJob of `job` (which the caller owns) with `expectedHash` as the test-and-set hash, set in
 * `job`. ABORTED means the stored hash differs: PRECONDITION_FAILED (412) when the client asked
 * for the precondition, else the Manager's ABORTED (409: someone else's change won). A
 * conditional write of a job that does not exist also fails its precondition (RFC 9110 §13.1.1).
 * The job's new hash.
 */
export async function writeJob(client: ManagerClient, job: Job, write: WriteJobOptions, options: CallOptions): Promise<bigint> {
  const { expectedHash = 0n, preconditionAsked = false } = write;
  try {
    // The caller's job, with the expected hash in place: a copy of a different shape would
    // cost protobuf-es's encoder more than the copy itself.
    job.currentHash = expectedHash;
    const reply = await client.updateJob(job, options);
    return reply.hash;
  } catch (error) {
    if (error instanceof GrpcError && preconditionAsked) {
      if (error.code === Code.ABORTED) throw preconditionFailed("the job has changed since the entity tag was read");
      if (error.code === Code.NOT_FOUND) throw preconditionFailed(JOB_ABSENT);
    }
    throw error;
  }
}

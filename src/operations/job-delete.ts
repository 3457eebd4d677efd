// DELETE /v1/jobs/{jobId} with its preconditions. The Manager's DeleteJob takes a job id and no
// hash, so "delete this job if its ETag is still E" cannot be one call; a read, a comparison and
// then DeleteJob leaves a window in which another writer's change, made with the same ETag and
// acknowledged, is deleted with the job: a lost write. So the gateway first fences the job: an
// UpdateJob test-and-set on E (the Manager's compare-and-swap) writing the job as read plus the
// reserved tag DELETING_TAG. That write changes the job's hash, so from then on every other
// writer conditional on E (through this gateway or any other replica) fails with 412, and PATCH
// refuses a job carrying the tag (job-patch.ts); only then comes DeleteJob.
//
// What remains: an unconditional write through another replica (a PUT without If-Match, or one
// conditional on the fenced ETag) that lands between the fence and DeleteJob is deleted with
// the job; writes through this replica are queued behind the delete (job-write-queue.ts). If
// DeleteJob fails after the fence, the job stays, carrying the tag and a new ETag: the client
// reads it (GET) and deletes again with that ETag.
import { randomUUID } from "node:crypto";
import { clone } from "@bufbuild/protobuf";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { aborted, invalidArgument, preconditionFailed } from "../http/problem.js";
import type { ProblemError } from "../http/problem.js";
import { JOB_ABSENT, checkIfMatch, findJob, jobNotFound, writeJob } from "./job-access.js";
import type { ManagerClient } from "./job-access.js";
import type { IfMatch } from "../http/preconditions.js";
import { childPointer } from "../json/errors.js";

/** The tag a conditional DELETE sets on the job it is about to delete; reserved to the gateway. */
export const DELETING_TAG = "gateway.norsk/deleting";

const POINTER = childPointer("/tags", DELETING_TAG);

/** 400 when a client's job or patch names the reserved tag: it must stay the gateway's. */
export function refuseDeletingTag(tags: unknown): void {
  if (typeof tags !== "object" || tags === null || !Object.hasOwn(tags, DELETING_TAG)) return;
  throw invalidArgument(`the tag ${DELETING_TAG} is reserved to the gateway`, { errors: [{ pointer: POINTER, message: "is reserved to the gateway" }] });
}

/** True when a conditional DELETE has fenced the job (and may be deleting it right now). */
export function isBeingDeleted(job: Job): boolean {
  return Object.hasOwn(job.tags, DELETING_TAG);
}

/**
 * Deletes `jobId` as If-Match asks: without it, DeleteJob (404 when absent); with `*`, DeleteJob
 * too, which is atomic at the Manager (412 when absent); with an entity tag, fence then delete
 * (412 when the job is absent, its ETag differs or is "0", and then nothing is written).
 */
export async function deleteAsAsked(client: ManagerClient, jobId: string, ifMatch: IfMatch, requestId: string, options: CallOptions): Promise<void> {
  if (ifMatch.kind === "hash") await fence(client, jobId, ifMatch.hash, requestId, options);
  try {
    await client.deleteJob({ jobId }, options);
  } catch (error) {
    if (!(error instanceof GrpcError) || error.code !== Code.NOT_FOUND) throw error;
    if (ifMatch.kind === "none") throw jobNotFound(jobId);
    // After a fence, only a writer that ignores it (an unconditional DELETE) can have come first.
    throw preconditionFailed(ifMatch.kind === "hash" ? "the job was deleted by another request after its ETag was checked" : JOB_ABSENT);
  }
}

/**
 * The test-and-set that makes the job's hash differ from `hash` before it is deleted. Its tag's
 * value names the request and a nonce, so that each fence changes the hash, even a retry of the
 * same request on a job that still carries the tag of the attempt before.
 */
async function fence(client: ManagerClient, jobId: string, hash: bigint, requestId: string, options: CallOptions): Promise<void> {
  const current = await findJob(client, jobId, options);
  if (current?.job === undefined) throw preconditionFailed(JOB_ABSENT);
  // Also refuses hash 0, which the fence's test-and-set cannot test (job-access.ts).
  checkIfMatch({ kind: "hash", hash }, current.job.currentHash);
  const fenced = clone(JobSchema, current.job);
  fenced.tags[DELETING_TAG] = `${requestId} ${randomUUID()}`;
  await writeJob(client, fenced, { expectedHash: hash, preconditionAsked: true }, options);
}

/** PATCH's answer for a job that a conditional DELETE has fenced. */
export function beingDeleted(): ProblemError {
  return aborted(`the job is being deleted (it carries the tag ${DELETING_TAG}); if that DELETE failed, DELETE or PUT it again with its current ETag`);
}

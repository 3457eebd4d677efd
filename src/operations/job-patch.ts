// PATCH /v1/jobs/{jobId}: a JSON Merge Patch (RFC 7396) or a JSON Patch (RFC 6902) applied to
// the job as read, written
// with a test-and-set on the hash read, and made again (at most PatchOptions.attempts times) when another
// writer came between the read and the write. The route runs it in the job's write queue, so
// those writers are never this gateway's own requests.
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { jobToJson, mergePatchMessage } from "../json/index.js";
import { JsonPatchError, applyJsonPatch, mergePatchBetween, parseJsonPatch } from "../json/json-patch.js";
import type { JsonPatchOperation } from "../json/json-patch.js";
import { isJsonObject } from "../json/errors.js";
import { aborted, invalidArgument, preconditionFailed, problem } from "../http/problem.js";
import { JOB_ABSENT, checkIfMatch, findJob, jobNotFound, writeJob } from "./job-access.js";
import type { ManagerClient } from "./job-access.js";
import { beingDeleted, isBeingDeleted, refuseDeletingTag } from "./job-delete.js";
import type { IfMatch } from "../http/preconditions.js";

/** Fields of the Job that a merge patch may not remove: the SDK interface requires them. */
const NOT_REMOVABLE = ["jobId", "startDateTime"] as const;

const LOST_RACE = Symbol("lost race");

/** How patchWithRetries writes. */
export interface PatchOptions {
  /** The client's If-Match. */
  readonly ifMatch: IfMatch;
  /** Read-merge-writes made before giving up on a job that keeps changing. Default: PATCH_ATTEMPTS. */
  readonly attempts?: number | undefined;
  /** Told the hash of each version read; the last one told is the version the patch replaced. Default: none. */
  readonly onRead?: ((hash: bigint) => void) | undefined;
}

/** PatchOptions.attempts's default: 3. */
export const PATCH_ATTEMPTS = 3;

/** A change of a job: the job as read, changed; made again on each attempt, from the job read then. */
export type JobChange = (read: Job) => Job;

/** A merge patch as a change: the fields it names merged in, all else kept (unknown fields included). */
export function mergePatchChange(patch: Record<string, unknown>): JobChange {
  return (read) => mergePatchMessage(JobSchema, read, patch);
}

/** The operations of a JSON Patch body; a 400 naming the operation's member (`/2/path`). */
export function jsonPatchOf(body: unknown): JsonPatchOperation[] {
  try {
    return parseJsonPatch(body);
  } catch (error) {
    throw asProblem(error);
  }
}

/**
 * A JSON Patch as a change: applied to the job's JSON (the SDK mirror), then written as the merge
 * patch between the job and the result, so that it takes the merge patch's path: what it does not
 * change is kept exactly, unknown fields included, and it may not change jobId or currentHash.
 * A failed `test`, or a path that names nothing in the job, is a 409 (PATCH_CONFLICT).
 */
export function jsonPatchChange(operations: readonly JsonPatchOperation[], jobId: string): JobChange {
  return (read) => {
    const before = jobToJson(read) as unknown as Record<string, unknown>;
    let after: unknown;
    try {
      after = applyJsonPatch(before, operations);
    } catch (error) {
      throw asProblem(error);
    }
    if (!isJsonObject(after)) throw invalidArgument("the patched job is not a JSON object", { errors: [{ pointer: "", message: "must leave a job object" }] });
    const patch = mergePatchBetween(before, after);
    checkPatchable(patch, jobId);
    return mergePatchMessage(JobSchema, read, patch);
  };
}

function asProblem(error: unknown): unknown {
  if (!(error instanceof JsonPatchError)) return error;
  const errors = [{ pointer: error.pointer, message: error.message }];
  if (error.kind === "conflict") return problem("PATCH_CONFLICT", `the JSON Patch does not apply to the job: ${error.pointer} ${error.message}`, { errors });
  return invalidArgument(`the JSON Patch is invalid: ${error.pointer === "" ? "the body" : error.pointer} ${error.message}`, { errors });
}

/**
 * A PATCH: read-merge-write until a write wins, at most PatchOptions.attempts times. Each loss is another
 * writer's change (another replica's: this gateway's own writes of the job are queued), so with
 * If-Match the first loss is a 412, and without it the patch is merged into the newer job.
 */
export async function patchWithRetries(
  client: ManagerClient,
  jobId: string,
  change: JobChange,
  { ifMatch, attempts = PATCH_ATTEMPTS, onRead }: PatchOptions,
  options: CallOptions,
): Promise<Job> {
  for (let attempt = 1; ; attempt++) {
    const next = await patchOnce(client, jobId, change, ifMatch, options, onRead);
    if (next !== LOST_RACE) return next;
    if (ifMatch.kind === "hash") throw preconditionFailed("the job changed after the entity tag was read");
    if (attempt >= attempts) throw aborted(`the job kept changing; gave up after ${attempts} attempts`);
  }
}

/**
 * One read-merge-write of a PATCH: the write is a test-and-set on the hash just read (If-Match,
 * when given, was checked against that same hash). LOST_RACE when another writer came between.
 * A job that does not exist is a 404, or with If-Match a 412, as for every conditional write.
 * A job whose hash is 0 has nothing to test: without If-Match it is written as merged, blind
 * to a writer elsewhere that came between (docs/architecture.md, "Versions and preconditions").
 */
async function patchOnce(
  client: ManagerClient,
  jobId: string,
  change: JobChange,
  ifMatch: IfMatch,
  options: CallOptions,
  onRead: PatchOptions["onRead"],
): Promise<Job | typeof LOST_RACE> {
  const read = (await findJob(client, jobId, options))?.job;
  if (read === undefined) throw ifMatch.kind === "none" ? jobNotFound(jobId) : preconditionFailed(JOB_ABSENT);
  onRead?.(read.currentHash);
  checkIfMatch(ifMatch, read.currentHash);
  // Written now, the patch could land between a DELETE's fence and its DeleteJob, and be lost.
  if (isBeingDeleted(read)) throw beingDeleted();
  // Fields the patch does not name, unknown fields of a newer Manager included, stay as read.
  const next = change(read);
  try {
    next.currentHash = await writeJob(client, next, { expectedHash: read.currentHash }, options);
    return next;
  } catch (error) {
    if (!(error instanceof GrpcError)) throw error;
    if (error.code === Code.ABORTED) return LOST_RACE;
    // Deleted since the read: as absent at the read.
    if (error.code === Code.NOT_FOUND) throw ifMatch.kind === "none" ? jobNotFound(jobId) : preconditionFailed(JOB_ABSENT);
    throw error;
  }
}

/** 400 for a patch that removes a required field, changes the id, sets currentHash or names the reserved tag. */
export function checkPatchable(patch: Record<string, unknown>, jobId: string): void {
  for (const name of NOT_REMOVABLE) {
    if (patch[name] === null) throw invalidArgument(`${name} cannot be removed`, { errors: [{ pointer: `/${name}`, message: "cannot be removed" }] });
  }
  if (patch.jobId !== undefined && patch.jobId !== jobId) {
    throw invalidArgument("a patch cannot change jobId", { errors: [{ pointer: "/jobId", message: "must equal the jobId of the path" }] });
  }
  refuseDeletingTag(patch.tags);
  if (patch.currentHash !== undefined) {
    throw invalidArgument("currentHash cannot be patched; use If-Match for a conditional change", {
      errors: [{ pointer: "/currentHash", message: "cannot be patched" }],
    });
  }
}

// The job resource (docs/architecture.md, "HTTP surface"): create, read, replace, merge-patch,
// delete, complete. Each route makes one gRPC call, except PATCH (read, then test-and-set write,
// retried), a DELETE
// with an entity tag (read, fence, delete: job-delete.ts), a complete with one (read, then
// complete: job-complete.ts), a PUT with If-Match "0" (a read, to say why it fails:
// job-access.ts) and a create that meets an existing job (read, to tell a safe retry from a
// conflict: job-create.ts). PUT with If-None-Match: * is CreateJob (create only). The writes of
// one job through this gateway, creates included, run one at a time, and each runs to its end
// though its client leaves (src/operations/job-write-queue.ts).
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { IncomingHttpHeaders } from "node:http";
import type { FastifyReply } from "fastify";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { jobFromJson, jobToJson } from "../json/index.js";
import { JobJson, JobIdParams, JobInputJson, JobPatchJson, JsonPatchJson, PartialJobJson } from "../../schemas/job.js";
import { invalidArgument, preconditionFailed } from "../http/problem.js";
import { unaryCallOptions } from "../operations/call-options.js";
import { replaceJob, requireJob } from "../operations/job-access.js";
import type { ManagerRouteOptions } from "../operations/job-access.js";
import { DIFFERENT_JOB, JOB_EXISTS, createOnly, createOrRecognise } from "../operations/job-create.js";
import { completeAsAsked } from "../operations/job-complete.js";
import { DELETING_TAG, deleteAsAsked, refuseDeletingTag } from "../operations/job-delete.js";
import { checkPatchable, jsonPatchChange, jsonPatchOf, mergePatchChange, patchWithRetries } from "../operations/job-patch.js";
import type { JobChange } from "../operations/job-patch.js";
import { JSON_PATCH_TYPE, JSON_TYPE, MERGE_PATCH_TYPE, mediaType } from "../http/media-type.js";
import { JobWriteQueue } from "../operations/job-write-queue.js";
import type { JobWriteOptions } from "../operations/job-write-queue.js";
import { parseFields, partialJobStringify, projectJob } from "../operations/job-fields.js";
import { FieldsParameter } from "../../schemas/search.js";
import { Type } from "@sinclair/typebox";
import { etagOf, isCreateOnly, noneMatch, parseIfMatch, refuseIfNoneMatch } from "../http/preconditions.js";
import type { IfMatch } from "../http/preconditions.js";
import { emptyResponse, errorResponses, jsonResponse } from "../http/responses.js";
import { statusOf } from "../http/status.js";
import { acceptOnly } from "../http/content-type.js";
import fastJson from "fast-json-stringify";
import { serializerOptions } from "../http/validation.js";
import { JSON_UTF8, JsonTextCache } from "../http/json-text.js";
import { ETagHeader, IfMatchHeaders, IfNoneMatchHeaders, LocationHeader, ReplaceHeaders } from "../../schemas/headers.js";
import { needs } from "../auth/scopes.js";
import { noteAudit } from "../telemetry/audit-log.js";

const NO_SUCH_JOB = "no job has this id";

/** The query of a job read: fields alone; other parameters are ignored, as before fields existed. */
const JobReadQuery = Type.Object({ fields: FieldsParameter });
const TOO_MANY_WAITING = "too many changes of this job are waiting in this gateway";
const RESERVED = `The tag ${DELETING_TAG} is reserved to the gateway (${statusOf("INVALID_ARGUMENT")}).`;
const NO_IF_NONE_MATCH = `If-None-Match is not taken (${statusOf("INVALID_ARGUMENT")}).`;

// The options of each route (its schema, and which bodies it reads), named after its operation.

const CREATE_JOB = {
  config: needs("jobs:write"),
  schema: {
    operationId: "createJob",
    tags: ["jobs"],
    summary: "Create a job",
    description:
      "CreateJob (the body as JobInput describes). The answer is the job as accepted with the hash the Manager returned, and its `Location` and `ETag`. " +
      `Sending the same job again is a safe retry (200 with the stored job); a different job under the same id is a ${statusOf("ALREADY_EXISTS")}. ` +
      RESERVED,
    body: JobInputJson,
    response: {
      200: jsonResponse(JobJson, "OK: an identical job already exists (a safe retry); this is the stored job.", { ETag: ETagHeader, Location: LocationHeader }),
      201: jsonResponse(JobJson, "Created: the job as accepted, with the hash the Manager returned.", { ETag: ETagHeader, Location: LocationHeader }),
      ...errorResponses("INVALID_ARGUMENT", { ALREADY_EXISTS: DIFFERENT_JOB }, "CONTENT_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE"),
    },
  },
  preValidation: acceptOnly("application/json"),
};

const JOB_BY_ID = {
  config: needs("jobs:read"),
  schema: {
    operationId: "jobById",
    tags: ["jobs"],
    summary: "Read a job",
    description:
      "JobSearch for this one id. The `ETag` is the job's `currentHash`; with a matching `If-None-Match` the answer is 304 without a body. " +
      "With `fields`, the job is partial and its ETag still the whole job's.",
    params: JobIdParams,
    querystring: JobReadQuery,
    headers: IfNoneMatchHeaders,
    response: {
      200: jsonResponse(Type.Union([JobJson, PartialJobJson]), "OK: the job; with `fields`, a PartialJob.", { ETag: ETagHeader }),
      304: emptyResponse("Not Modified: the job's ETag matches If-None-Match.", { ETag: ETagHeader }),
      ...errorResponses("INVALID_ARGUMENT", { NOT_FOUND: NO_SUCH_JOB }),
    },
  },
};

const UPDATE_JOB = {
  config: needs("jobs:write"),
  schema: {
    operationId: "updateJob",
    tags: ["jobs"],
    summary: "Replace a job",
    description:
      "UpdateJob: a full replacement; fields left out take their zero value. `If-Match`, or a non-zero `currentHash` in the body, " +
      "makes it conditional (412 when stale, and nothing is written). `If-Match: \"0\"` is always a 412: the Manager takes hash 0 " +
      "as \"no test\", so a job whose ETag is \"0\" is replaced without If-Match (a `currentHash` of \"0\" in the body means no " +
      `precondition). A job that does not exist is a ${statusOf("NOT_FOUND")}, unless \`If-None-Match: *\` asks to create it: then ` +
      "the PUT is CreateJob, 201 when the job did not exist and 412 when it does. GET then PUT of the same body changes nothing. " +
      RESERVED,
    params: JobIdParams,
    headers: ReplaceHeaders,
    body: JobInputJson,
    response: {
      200: jsonResponse(JobJson, "OK: the job as replaced, with its new hash.", { ETag: ETagHeader }),
      201: jsonResponse(JobJson, "Created (If-None-Match: *): the job as created, with the hash the Manager returned.", { ETag: ETagHeader, Location: LocationHeader }),
      ...errorResponses(
        "INVALID_ARGUMENT",
        { NOT_FOUND: NO_SUCH_JOB, ABORTED: "the job changed concurrently (ABORTED) and no precondition was asked for" },
        { PRECONDITION_FAILED: `If-Match (or a non-zero currentHash) does not match the job's ETag, or is "0"; or, with If-None-Match: *, ${JOB_EXISTS}; nothing was written` },
        "CONTENT_TOO_LARGE",
        "UNSUPPORTED_MEDIA_TYPE",
        { RESOURCE_EXHAUSTED: TOO_MANY_WAITING },
      ),
    },
  },
  preValidation: acceptOnly("application/json"),
};

const PATCH_JOB = {
  config: needs("jobs:write"),
  schema: {
    operationId: "patchJob",
    tags: ["jobs"],
    summary: "Change some fields of a job (JSON Merge Patch or JSON Patch)",
    description:
      "JSON Merge Patch (RFC 7396): what the patch names changes, `null` removes it, all else is kept, fields this gateway " +
      "does not know included; an array is replaced whole. Or, as `application/json-patch+json`, a JSON Patch (RFC 6902): " +
      "operations on the job's JSON, all or nothing, which can change one element of an array; a failed `test`, or a path " +
      `that names nothing in the job, is a ${statusOf("PATCH_CONFLICT")} (the job's state, not a precondition header, which is 412). ` +
      "Written by a test-and-set on the hash read, retried up to 3 times if another writer comes " +
      "between (with `If-Match`, a changed job is a 412 instead); PATCHes of one job through one gateway run one at a time. " +
      `A job that a conditional DELETE is deleting (tagged ${DELETING_TAG}) is not patched: ${statusOf("ABORTED")}. ` +
      NO_IF_NONE_MATCH,
    params: JobIdParams,
    headers: IfMatchHeaders,
    body: {
      content: {
        [MERGE_PATCH_TYPE]: { schema: JobPatchJson },
        [JSON_TYPE]: { schema: JobPatchJson },
        [JSON_PATCH_TYPE]: { schema: JsonPatchJson },
      },
    },
    response: {
      200: jsonResponse(JobJson, "OK: the job as patched, with its new hash.", { ETag: ETagHeader }),
      ...errorResponses(
        "INVALID_ARGUMENT",
        { NOT_FOUND: NO_SUCH_JOB, ABORTED: "the job kept changing (the gateway gave up after 3 attempts), or a conditional DELETE is deleting it" },
        { PATCH_CONFLICT: "a JSON Patch does not apply to the job: a test failed, or a path names nothing in it" },
        "PRECONDITION_FAILED",
        "CONTENT_TOO_LARGE",
        "UNSUPPORTED_MEDIA_TYPE",
        { RESOURCE_EXHAUSTED: TOO_MANY_WAITING },
      ),
    },
  },
  preValidation: acceptOnly(MERGE_PATCH_TYPE, JSON_TYPE, JSON_PATCH_TYPE),
};

const DELETE_JOB = {
  config: needs("jobs:write"),
  schema: {
    operationId: "deleteJob",
    tags: ["jobs"],
    summary: "Delete a job",
    description:
      "DeleteJob. With `If-Match: *`, only if the job exists; with an entity tag, only if the job's ETag is that one (else 412, " +
      "also when there is no job), losing no change made with that ETag: DeleteJob takes no hash, so the gateway first tags " +
      `the job ${DELETING_TAG} by a test-and-set on the ETag, which fails every other write conditional on it (412), then ` +
      "deletes. If the delete then fails, the job keeps the tag, with a new ETag: read it and delete again. Not covered: a " +
      "write without If-Match through another gateway replica between the two steps is deleted with the job. " +
      NO_IF_NONE_MATCH,
    params: JobIdParams,
    headers: IfMatchHeaders,
    response: {
      204: emptyResponse("No Content: the job is deleted."),
      ...errorResponses("INVALID_ARGUMENT", { NOT_FOUND: NO_SUCH_JOB }, "PRECONDITION_FAILED", { RESOURCE_EXHAUSTED: TOO_MANY_WAITING }),
    },
  },
};

const COMPLETE_JOB = {
  config: needs("jobs:write"),
  schema: {
    operationId: "completeJob",
    tags: ["jobs"],
    summary: "Complete (stop) a job",
    description:
      "CompleteJob: stops every running instance; the job's state becomes `post`, which is final. Completing a completed job changes nothing. " +
      "With `If-Match: *`, only if the job exists; with an entity tag, only if the job's ETag is that one (else 412, also when there is " +
      "no job): CompleteJob takes no hash, so the gateway reads the job first. Not covered: a write through another gateway replica " +
      "between the read and the completion (it is kept, and the job is completed as that write left it). " +
      NO_IF_NONE_MATCH,
    params: JobIdParams,
    headers: IfMatchHeaders,
    response: {
      204: emptyResponse("No Content: the job is complete."),
      ...errorResponses("INVALID_ARGUMENT", { NOT_FOUND: NO_SUCH_JOB }, "PRECONDITION_FAILED", { RESOURCE_EXHAUSTED: TOO_MANY_WAITING }),
    },
  },
};

/**
 * How a PUT takes its job's turn: a full replacement with no precondition need not wait for
 * another such one, only for the job's other writes (docs/architecture.md, "Concurrent writes
 * and reads"); a conditional one runs alone.
 */
function replacementTurn(ifMatch: IfMatch, bodyHash: bigint): JobWriteOptions {
  return { shared: ifMatch.kind === "none" && bodyHash === 0n };
}

/**
 * The routes of the job resource. Each handler is a named function of the plugin, sharing its
 * client, its deadline and the job write queue.
 */
export const jobsRoutes: FastifyPluginCallbackTypebox<ManagerRouteOptions> = (app, options, done) => {
  const { client, requestTimeoutMs, jobReads } = options;
  const writes = new JobWriteQueue({ maxWaiting: options.maxWaitingWrites });
  const jobText = new JsonTextCache<Job>(fastJson(JobJson, serializerOptions), jobToJson);

  app.post("/v1/jobs", CREATE_JOB, async function createJob(request, reply) {
    const job = jobFromJson(request.body);
    refuseDeletingTag(job.tags);
    const { job: stored, status } = await writes.run(job.jobId?.jobId ?? "", unaryCallOptions(request, reply, requestTimeoutMs), (calls) => createOrRecognise(client, job, calls));
    // A safe retry (200) changed nothing: the job was as it is.
    if (status === 200) noteAudit(request, { etagBefore: etagOf(stored.currentHash) });
    return sendJob(reply.header("location", `/v1/jobs/${encodeURIComponent(stored.jobId?.jobId ?? "")}`), stored, status);
  });

  app.get("/v1/jobs/:jobId", JOB_BY_ID, async function jobById(request, reply) {
    const fields = fieldsOf(request.query.fields);
    const { job } = await requireJob(client, request.params.jobId, unaryCallOptions(request, reply, requestTimeoutMs), jobReads);
    if (noneMatch(request.headers["if-none-match"], job.currentHash)) return reply.code(304).header("etag", etagOf(job.currentHash)).send(null);
    // A read shared by many requests is written once for all of them.
    const untyped: FastifyReply = reply;
    return untyped.code(200).header("etag", etagOf(job.currentHash)).type(JSON_UTF8).send(jobAsAsked(jobText, job, fields));
  });

  app.put("/v1/jobs/:jobId", UPDATE_JOB, async function updateJob(request, reply) {
    const job = jobFromJson(request.body);
    const { jobId } = request.params;
    refuseOtherId(job, jobId);
    refuseDeletingTag(job.tags);
    const ifMatch = parseIfMatch(request.headers["if-match"]);
    const call = unaryCallOptions(request, reply, requestTimeoutMs);
    if (isCreateOnly(request.headers["if-none-match"])) {
      refuseWithCreateOnly(ifMatch, job.currentHash);
      const created = await writes.run(jobId, call, (calls) => createOnly(client, job, calls));
      void reply.header("location", `/v1/jobs/${encodeURIComponent(jobId)}`);
      return sendJob(reply, created, 201);
    }
    refuseWeak(ifMatch);
    job.currentHash = await writes.run(jobId, call, (calls) => replaceJob(client, job, ifMatch, calls), replacementTurn(ifMatch, job.currentHash));
    return sendJob(reply, job);
  });

  app.patch("/v1/jobs/:jobId", PATCH_JOB, async function patchJob(request, reply) {
    const { jobId } = request.params;
    const change = changeOf(request.headers["content-type"], request.body, jobId);
    const ifMatch = ifMatchOnly(request.headers);
    const call = unaryCallOptions(request, reply, requestTimeoutMs);
    const patched = await writes.run(jobId, call, (calls) => patchWithRetries(client, jobId, change, { ifMatch, attempts: options.patchAttempts, onRead: (hash) => { noteAudit(request, { etagBefore: etagOf(hash) }); } }, calls));
    return sendJob(reply, patched);
  });

  app.delete("/v1/jobs/:jobId", DELETE_JOB, async function deleteJob(request, reply) {
    const ifMatch = ifMatchOnly(request.headers);
    const call = unaryCallOptions(request, reply, requestTimeoutMs);
    const { jobId } = request.params;
    await writes.run(jobId, call, (calls) => deleteAsAsked(client, jobId, ifMatch, request.id, calls));
    noteAudit(request, { etagAfter: null });
    return reply.code(204).send(null);
  });

  app.post("/v1/jobs/:jobId/complete", COMPLETE_JOB, async function completeJob(request, reply) {
    const ifMatch = ifMatchOnly(request.headers);
    const call = unaryCallOptions(request, reply, requestTimeoutMs);
    const { jobId } = request.params;
    await writes.run(jobId, call, (calls) => completeAsAsked(client, jobId, ifMatch, calls));
    return reply.code(204).send(null);
  });

  done();
};

/**
 * The If-Match of a PATCH, DELETE or complete, which take no If-None-Match (400); a weak entity
 * tag is a 412 before anything is read.
 */
function ifMatchOnly(headers: IncomingHttpHeaders): IfMatch {
  refuseIfNoneMatch(headers["if-none-match"]);
  const ifMatch = parseIfMatch(headers["if-match"]);
  refuseWeak(ifMatch);
  return ifMatch;
}

const stringifyPartial = partialJobStringify();

/** A job's JSON text: the whole job (written once for all the reads that share it), or the fields asked for. */
function jobAsAsked(whole: JsonTextCache<Job>, job: Job, fields: readonly string[] | undefined): string {
  return fields === undefined ? whole.of(job) : stringifyPartial(projectJob(jobToJson(job), fields));
}

/** The change a PATCH body makes: a JSON Patch by its media type, else a merge patch. */
function changeOf(contentType: string | undefined, body: unknown, jobId: string): JobChange {
  if (mediaType(contentType) === JSON_PATCH_TYPE) return jsonPatchChange(jsonPatchOf(body), jobId);
  const patch = body as Record<string, unknown>;
  checkPatchable(patch, jobId);
  return mergePatchChange(patch);
}

/** The fields a job read asks for (undefined: all); a 400 naming fields. */
function fieldsOf(value: string | undefined): readonly string[] | undefined {
  if (value === undefined) return undefined;
  const fields = parseFields(value);
  if (typeof fields === "string") throw invalidArgument("the query string is invalid", { errors: [{ parameter: "fields", message: fields }] });
  return fields;
}

/** 400 for a PUT whose body names another job than its path. */
function refuseOtherId(job: Job, jobId: string): void {
  if (job.jobId?.jobId !== jobId) {
    throw invalidArgument("jobId in the body differs from the path", { errors: [{ pointer: "/jobId", message: "must equal the jobId of the path" }] });
  }
}

/** A weak entity tag never matches If-Match: the precondition fails before anything is read. */
function refuseWeak(ifMatch: IfMatch): void {
  if (ifMatch.kind === "never") throw preconditionFailed("a weak entity tag never matches If-Match");
}

/**
 * 400 for a create-only PUT that also asks for a version: If-Match, or a non-zero currentHash
 * in the body, needs the job to exist where If-None-Match: * needs it not to.
 */
function refuseWithCreateOnly(ifMatch: IfMatch, bodyHash: bigint): void {
  if (ifMatch.kind !== "none") {
    throw invalidArgument("If-Match and If-None-Match: * contradict each other", {
      errors: [
        { header: "if-match", message: "asks for an existing job" },
        { header: "if-none-match", message: "asks that the job not exist" },
      ],
    });
  }
  if (bodyHash !== 0n) {
    throw invalidArgument("currentHash in the body contradicts If-None-Match: *", {
      errors: [
        { pointer: "/currentHash", message: "asks for an existing job; send 0 or leave it out to create" },
        { header: "if-none-match", message: "asks that the job not exist" },
      ],
    });
  }
}

function sendJob(reply: FastifyReply, job: Job, status = 200): FastifyReply {
  return reply.code(status).header("etag", etagOf(job.currentHash)).send(jobToJson(job));
}

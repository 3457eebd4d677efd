// The job resource (docs/ARCHITECTURE.md §5): create, read, replace, merge-patch, delete, complete. Each
// route makes one gRPC call, except PATCH (read, then test-and-set write, retried), a DELETE
// with an entity tag (read, fence, delete: job-delete.ts) and a create that meets an existing
// job (read, to tell a safe retry from a conflict). The writes of one job through this gateway
// run one at a time (job-write-queue.ts).
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { clone, equals } from "@bufbuild/protobuf";
import { JobSchema } from "../gen/norsk/api/manager_pb.js";
import type { Job } from "../gen/norsk/api/manager_pb.js";
import { Code, GrpcError } from "../grpc/errors.js";
import { jobFromJson, jobToJson } from "../json/index.js";
import { Job as JobJsonSchema, JobIdParams, JobInput, JobPatch } from "../../schemas/job.js";
import { badRequest, ProblemError } from "../http/problem.js";
import { callOptionsFor } from "../http/call-options.js";
import { expectedHash, findJob, notFound, preconditionFailed, requireJob, updateJob } from "../operations/job-access.js";
import type { ManagerClient } from "../operations/job-access.js";
import { DELETING_TAG, deleteJob, refuseDeletingTag } from "../operations/job-delete.js";
import { checkPatchable, patchJob } from "../operations/job-patch.js";
import { JobWriteQueue } from "../operations/job-write-queue.js";
import { etagOf, noneMatch, parseIfMatch } from "../http/preconditions.js";
import type { CallOptions } from "../grpc/types.js";
import { emptyResponse, errorResponses, jsonResponse } from "../http/responses.js";
import { acceptOnly } from "../http/content-type.js";
import { notFoundAs } from "../http/problem.js";
import { ETagHeader, IfMatchHeaders, IfNoneMatchHeaders, LocationHeader } from "../../schemas/headers.js";

export interface JobsRoutesOptions {
  readonly client: ManagerClient;
  /** Deadline of each gRPC call, in ms. */
  readonly requestTimeoutMs: number;
  /** Attempts of a PATCH whose test-and-set loses to a concurrent change. Default: 3. */
  readonly patchAttempts?: number;
  /** Writes of one job that may wait behind the running one (job-write-queue.ts); one more is a 429. Default: 100. */
  readonly maxWaitingWrites?: number;
}

export const jobsRoutes: FastifyPluginCallbackTypebox<JobsRoutesOptions> = (app, options, done) => {
  const { client, requestTimeoutMs } = options;
  const patchAttempts = options.patchAttempts ?? 3;
  const writes = new JobWriteQueue({ maxWaiting: options.maxWaitingWrites });
  const callOptions = (request: Parameters<typeof callOptionsFor>[0], reply: FastifyReply) =>
    callOptionsFor(request, reply, requestTimeoutMs);

  const sendJob = (reply: FastifyReply, job: Job, status = 200) =>
    reply.code(status).header("etag", etagOf(job.currentHash)).send(jobToJson(job));

  app.post(
    "/v1/jobs",
    {
      preValidation: acceptOnly("application/json"),
      schema: {
        operationId: "createJob",
        tags: ["jobs"],
        summary: "Create a job",
        description:
          "CreateJob. Only `jobId` and `startDateTime` are required; every other field defaults to its zero value. " +
          "The answer is the job as accepted with the hash the Manager returned, and its `Location` and `ETag`. " +
          "Sending the same job again is a safe retry (200 with the stored job); a different job under the same id is a 409. " +
          `The tag ${DELETING_TAG} is reserved to the gateway (400).`,
        body: JobInput,
        response: {
          200: jsonResponse(JobJsonSchema, "OK: an identical job already exists (a safe retry); this is the stored job.", { ETag: ETagHeader, Location: LocationHeader }),
          201: jsonResponse(JobJsonSchema, "Created: the job as accepted, with the hash the Manager returned.", { ETag: ETagHeader, Location: LocationHeader }),
          ...errorResponses(400, [409, "a different job with this jobId already exists"], 413, 415),
        },
      },
    },
    async (request, reply) => {
      const job = jobFromJson(request.body);
      refuseDeletingTag(job.tags);
      const { job: stored, status } = await createOrRecognise(client, job, callOptions(request, reply));
      void reply.header("location", `/v1/jobs/${encodeURIComponent(stored.jobId?.jobId ?? "")}`);
      return sendJob(reply, stored, status);
    },
  );

  app.get(
    "/v1/jobs/:jobId",
    {
      schema: {
        operationId: "jobById",
        tags: ["jobs"],
        summary: "Read a job",
        description: "JobSearch for this one id. The `ETag` is the job's `currentHash`; with a matching `If-None-Match` the answer is 304 without a body.",
        params: JobIdParams,
        headers: IfNoneMatchHeaders,
        response: {
          200: jsonResponse(JobJsonSchema, "OK: the job.", { ETag: ETagHeader }),
          304: emptyResponse("Not Modified: the job's ETag matches If-None-Match.", { ETag: ETagHeader }),
          ...errorResponses(400, [404, "no job has this id"]),
        },
      },
    },
    async (request, reply) => {
      const { job } = await requireJob(client, request.params.jobId, callOptions(request, reply));
      if (noneMatch(request.headers["if-none-match"], job.currentHash)) {
        return reply.code(304).header("etag", etagOf(job.currentHash)).send(null);
      }
      return sendJob(reply, job);
    },
  );

  app.put(
    "/v1/jobs/:jobId",
    {
      preValidation: acceptOnly("application/json"),
      schema: {
        operationId: "updateJob",
        tags: ["jobs"],
        summary: "Replace a job",
        description:
          "UpdateJob: a full replacement; fields left out take their zero value. `If-Match`, or a non-zero `currentHash` in the body, " +
          "makes it conditional (412 when stale, and nothing is written). GET then PUT of the same body changes nothing. " +
          `The tag ${DELETING_TAG} is reserved to the gateway (400).`,
        params: JobIdParams,
        headers: IfMatchHeaders,
        body: JobInput,
        response: {
          200: jsonResponse(JobJsonSchema, "OK: the job as replaced, with its new hash.", { ETag: ETagHeader }),
          ...errorResponses(
            400,
            [404, "no job has this id"],
            [409, "the job changed concurrently (ABORTED) and no precondition was asked for"],
            412,
            413,
            415,
            [429, "too many changes of this job are waiting in this gateway"],
          ),
        },
      },
    },
    async (request, reply) => {
      const job = jobFromJson(request.body);
      if (job.jobId?.jobId !== request.params.jobId) {
        throw badRequest("jobId in the body differs from the path", [{ pointer: "/jobId", message: "must equal the jobId of the path" }]);
      }
      refuseDeletingTag(job.tags);
      const ifMatch = parseIfMatch(request.headers["if-match"]);
      if (ifMatch.kind === "never") throw preconditionFailed("a weak entity tag never matches If-Match");
      const expected = expectedHash(ifMatch, job.currentHash);
      const clientAsked = ifMatch.kind !== "none" || job.currentHash !== 0n;
      const options = callOptions(request, reply);
      job.currentHash = await writes.run(request.params.jobId, options, () => updateJob(client, job, expected, clientAsked, options));
      return sendJob(reply, job);
    },
  );

  app.patch(
    "/v1/jobs/:jobId",
    {
      preValidation: acceptOnly("application/merge-patch+json", "application/json"),
      schema: {
        operationId: "patchJob",
        tags: ["jobs"],
        summary: "Change some fields of a job (JSON Merge Patch)",
        description:
          "JSON Merge Patch (RFC 7396): what the patch names changes, `null` removes it, everything else is kept, including fields " +
          "this gateway does not know. Written with a test-and-set on the hash read, retried up to 3 times when another writer " +
          "comes between; with `If-Match`, a changed job is a 412 instead. PATCHes of one job through one gateway run one after " +
          "the other, so they never compete with each other. A job that a conditional DELETE is deleting (it carries the tag " +
          `${DELETING_TAG}) is not patched: 409.`,
        consumes: ["application/merge-patch+json", "application/json"],
        params: JobIdParams,
        headers: IfMatchHeaders,
        body: JobPatch,
        response: {
          200: jsonResponse(JobJsonSchema, "OK: the job as patched, with its new hash.", { ETag: ETagHeader }),
          ...errorResponses(
            400,
            [404, "no job has this id"],
            [409, "the job kept changing (the gateway gave up after 3 attempts), or a conditional DELETE is deleting it"],
            412,
            413,
            415,
            [429, "too many changes of this job are waiting in this gateway"],
          ),
        },
      },
    },
    async (request, reply) => {
      const patch = request.body as Record<string, unknown>;
      checkPatchable(patch, request.params.jobId);
      const ifMatch = parseIfMatch(request.headers["if-match"]);
      if (ifMatch.kind === "never") throw preconditionFailed("a weak entity tag never matches If-Match");
      const options = callOptions(request, reply);
      const { jobId } = request.params;
      return sendJob(reply, await writes.run(jobId, options, () => patchJob(client, jobId, patch, ifMatch, patchAttempts, options)));
    },
  );

  app.delete(
    "/v1/jobs/:jobId",
    {
      schema: {
        operationId: "deleteJob",
        tags: ["jobs"],
        summary: "Delete a job",
        description:
          "DeleteJob. With `If-Match: *`, only if the job exists; with an entity tag, only if the job's ETag is that one (412 otherwise, " +
          "also when the job does not exist), and no change made with that ETag is lost: since DeleteJob takes no hash, the gateway " +
          `first writes the job with the reserved tag ${DELETING_TAG} by a test-and-set on that ETag, which ` +
          "fails every other write conditional on it (412), then deletes. Should the delete fail after that write, the job stays with " +
          "the tag and a new ETag: read it and delete again. Not covered: a write without If-Match through another gateway replica " +
          "between the two steps is deleted with the job.",
        params: JobIdParams,
        headers: IfMatchHeaders,
        response: {
          204: emptyResponse("No Content: the job is deleted."),
          ...errorResponses(400, [404, "no job has this id"], 412, [429, "too many changes of this job are waiting in this gateway"]),
        },
      },
    },
    async (request, reply) => {
      const ifMatch = parseIfMatch(request.headers["if-match"]);
      if (ifMatch.kind === "never") throw preconditionFailed("a weak entity tag never matches If-Match");
      const options = callOptions(request, reply);
      const { jobId } = request.params;
      await writes.run(jobId, options, () => deleteJob(client, jobId, ifMatch, request.id, options));
      return reply.code(204).send(null);
    },
  );

  app.post(
    "/v1/jobs/:jobId/complete",
    {
      schema: {
        operationId: "completeJob",
        tags: ["jobs"],
        summary: "Complete (stop) a job",
        description: "CompleteJob: stops every running instance; the job's state becomes `post`, which is final. Completing a completed job changes nothing.",
        params: JobIdParams,
        response: {
          204: emptyResponse("No Content: the job is complete."),
          ...errorResponses(400, [404, "no job has this id"], [429, "too many changes of this job are waiting in this gateway"]),
        },
      },
    },
    async (request, reply) => {
      const options = callOptions(request, reply);
      const { jobId } = request.params;
      await writes.run(jobId, options, () => client.completeJob({ jobId }, options).catch(notFoundAs(notFound(jobId).detail)));
      return reply.code(204).send(null);
    },
  );

  done();
};

/**
 * CreateJob. An existing job with the same id is a safe retry when it is the same job (200 with
 * the stored one, as if the first attempt's answer had arrived) and a conflict otherwise (409).
 */
async function createOrRecognise(client: ManagerClient, job: Job, options: CallOptions): Promise<{ job: Job; status: 200 | 201 }> {
  try {
    const { hash } = await client.createJob(job, options);
    job.currentHash = hash;
    return { job, status: 201 };
  } catch (error) {
    if (!(error instanceof GrpcError) || error.code !== Code.ALREADY_EXISTS) throw error;
  }
  const existing = await findJob(client, job.jobId?.jobId ?? "", options);
  if (existing?.job !== undefined && sameJob(existing.job, job)) return { job: existing.job, status: 200 };
  throw new ProblemError(409, "a different job with this jobId already exists", undefined, "ALREADY_EXISTS");
}

/** Same job, the hash aside: what a client would send again when retrying a create. */
function sameJob(stored: Job, sent: Job): boolean {
  const a = clone(JobSchema, stored);
  const b = clone(JobSchema, sent);
  a.currentHash = 0n;
  b.currentHash = 0n;
  return equals(JobSchema, a, b);
}

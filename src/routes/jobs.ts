// The job resource (docs/ARCHITECTURE.md §5): create, read, replace, merge-patch, delete, complete. Each
// route makes one gRPC call, except PATCH (read, then test-and-set write, retried) and a
// create that meets an existing job (read, to tell a safe retry from a conflict).
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { clone, equals } from "@bufbuild/protobuf";
import { JobSchema } from "../gen/norsk/api/manager_pb.js";
import type { Job } from "../gen/norsk/api/manager_pb.js";
import { Code, GrpcError } from "../grpc/errors.js";
import { jobFromJson, jobToJson } from "../json/index.js";
import { Job as JobJsonSchema, JobInput, JobPatch } from "../../schemas/job.js";
import { badRequest, ProblemError } from "../problem.js";
import { callOptionsFor } from "./call-context.js";
import { expectedHash, findJob, notFound, preconditionFailed, requireJob, updateJob } from "./job-access.js";
import type { ManagerClient } from "./job-access.js";
import { applyMergePatch } from "./merge-patch.js";
import { etagOf, noneMatch, parseIfMatch } from "./preconditions.js";
import type { IfMatch } from "./preconditions.js";
import type { CallOptions } from "../grpc/types.js";
import {
  ETagHeader,
  IfMatchHeaders,
  IfNoneMatchHeaders,
  JobIdParams,
  LocationHeader,
  acceptOnly,
  emptyResponse,
  errorResponses,
  jsonResponse,
  notFoundAs,
} from "./route-schemas.js";

export interface JobsRoutesOptions {
  readonly client: ManagerClient;
  /** Deadline of each gRPC call, in ms. */
  readonly requestTimeoutMs: number;
  /** Attempts of a PATCH whose test-and-set loses to a concurrent change. Default: 3. */
  readonly patchAttempts?: number;
}

/** A Job field's property name in protobuf-es, by its JSON name; built once. */
const LOCAL_NAME_OF_JSON_NAME = new Map(JobSchema.fields.map((field) => [field.jsonName, field.localName]));

/** Fields of the Job that a merge patch may not remove: the SDK interface requires them. */
const NOT_REMOVABLE = ["jobId", "startDateTime"] as const;

export const jobsRoutes: FastifyPluginCallbackTypebox<JobsRoutesOptions> = (app, options, done) => {
  const { client, requestTimeoutMs } = options;
  const patchAttempts = options.patchAttempts ?? 3;
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
          "Sending the same job again is a safe retry (200 with the stored job); a different job under the same id is a 409.",
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
          "makes it conditional (412 when stale, and nothing is written). GET then PUT of the same body changes nothing.",
        params: JobIdParams,
        headers: IfMatchHeaders,
        body: JobInput,
        response: {
          200: jsonResponse(JobJsonSchema, "OK: the job as replaced, with its new hash.", { ETag: ETagHeader }),
          ...errorResponses(400, [404, "no job has this id"], [409, "the job changed concurrently (ABORTED) and no precondition was asked for"], 412, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const job = jobFromJson(request.body);
      if (job.jobId?.jobId !== request.params.jobId) {
        throw badRequest("jobId in the body differs from the path", [{ pointer: "/jobId", message: "must equal the jobId of the path" }]);
      }
      const ifMatch = parseIfMatch(request.headers["if-match"]);
      if (ifMatch.kind === "never") throw preconditionFailed("a weak entity tag never matches If-Match");
      const expected = expectedHash(ifMatch, job.currentHash);
      const clientAsked = ifMatch.kind !== "none" || job.currentHash !== 0n;
      job.currentHash = await updateJob(client, job, expected, clientAsked, callOptions(request, reply));
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
          "comes between; with `If-Match`, a changed job is a 412 instead.",
        consumes: ["application/merge-patch+json", "application/json"],
        params: JobIdParams,
        headers: IfMatchHeaders,
        body: JobPatch,
        response: {
          200: jsonResponse(JobJsonSchema, "OK: the job as patched, with its new hash.", { ETag: ETagHeader }),
          ...errorResponses(400, [404, "no job has this id"], [409, "the job kept changing; the gateway gave up after 3 attempts"], 412, 413, 415),
        },
      },
    },
    async (request, reply) => {
      const patch = request.body as Record<string, unknown>;
      checkPatchable(patch, request.params.jobId);
      const ifMatch = parseIfMatch(request.headers["if-match"]);
      if (ifMatch.kind === "never") throw preconditionFailed("a weak entity tag never matches If-Match");
      const options = callOptions(request, reply);
      for (let attempt = 1; ; attempt++) {
        const next = await patchOnce(client, request.params.jobId, patch, ifMatch, options);
        if (next !== LOST_RACE) return sendJob(reply, next);
        if (ifMatch.kind === "hash") throw preconditionFailed("the job changed after the entity tag was read");
        if (attempt >= patchAttempts) {
          throw new ProblemError(409, `the job kept changing; gave up after ${patchAttempts} attempts`, undefined, "ABORTED");
        }
      }
    },
  );

  app.delete(
    "/v1/jobs/:jobId",
    {
      schema: {
        operationId: "deleteJob",
        tags: ["jobs"],
        summary: "Delete a job",
        description: "DeleteJob. With `If-Match`, only if the job's ETag is that one (412 otherwise, also when the job does not exist).",
        params: JobIdParams,
        headers: IfMatchHeaders,
        response: { 204: emptyResponse("No Content: the job is deleted."), ...errorResponses(400, [404, "no job has this id"], 412) },
      },
    },
    async (request, reply) => {
      const ifMatch = parseIfMatch(request.headers["if-match"]);
      if (ifMatch.kind === "never") throw preconditionFailed("a weak entity tag never matches If-Match");
      const options = callOptions(request, reply);
      if (ifMatch.kind !== "none") {
        // DeleteJob takes no hash: the precondition is checked by a read just before it.
        const current = await findJob(client, request.params.jobId, options);
        if (current?.job === undefined) throw preconditionFailed("the job does not exist");
        if (ifMatch.kind === "hash" && current.job.currentHash !== ifMatch.hash) throw preconditionFailed("the job's ETag differs from If-Match");
      }
      await client.deleteJob({ jobId: request.params.jobId }, options).catch(notFoundAs(notFound(request.params.jobId).detail));
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
        response: { 204: emptyResponse("No Content: the job is complete."), ...errorResponses(400, [404, "no job has this id"]) },
      },
    },
    async (request, reply) => {
      await client.completeJob({ jobId: request.params.jobId }, callOptions(request, reply)).catch(notFoundAs(notFound(request.params.jobId).detail));
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

const LOST_RACE = Symbol("lost race");

/**
 * One read-merge-write of a PATCH: the write is a test-and-set on the hash just read (If-Match,
 * when given, was checked against that same hash). LOST_RACE when another writer came between.
 */
async function patchOnce(
  client: ManagerClient,
  jobId: string,
  patch: Record<string, unknown>,
  ifMatch: IfMatch,
  options: CallOptions,
): Promise<Job | typeof LOST_RACE> {
  const { job: read } = await requireJob(client, jobId, options);
  if (ifMatch.kind === "hash" && ifMatch.hash !== read.currentHash) throw preconditionFailed("the job's ETag differs from If-Match");
  const next = patched(read, patch);
  try {
    next.currentHash = await updateJob(client, next, read.currentHash, false, options);
    return next;
  } catch (error) {
    if (error instanceof GrpcError && error.code === Code.ABORTED) return LOST_RACE;
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

function checkPatchable(patch: Record<string, unknown>, jobId: string): void {
  for (const name of NOT_REMOVABLE) {
    if (patch[name] === null) throw badRequest(`${name} cannot be removed`, [{ pointer: `/${name}`, message: "cannot be removed" }]);
  }
  if (patch.jobId !== undefined && patch.jobId !== jobId) {
    throw badRequest("a patch cannot change jobId", [{ pointer: "/jobId", message: "must equal the jobId of the path" }]);
  }
  if (patch.currentHash !== undefined) {
    throw badRequest("currentHash cannot be patched; use If-Match for a conditional change", [
      { pointer: "/currentHash", message: "cannot be patched" },
    ]);
  }
}

/**
 * The job after the patch: each top-level field the patch names is recomputed from the merged
 * JSON; every other field, and the fields this gateway does not know (unknown fields of a newer
 * Manager), are kept exactly as read.
 */
function patched(read: Job, patch: Record<string, unknown>): Job {
  const merged = jobFromJson(applyMergePatch(jobToJson(read), patch));
  const next = clone(JobSchema, read);
  const target = next as unknown as Record<string, unknown>;
  const source = merged as unknown as Record<string, unknown>;
  for (const key of Object.keys(patch)) {
    const local = LOCAL_NAME_OF_JSON_NAME.get(key);
    if (local !== undefined) target[local] = source[local];
  }
  return next;
}

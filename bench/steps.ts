// The gateway's own per-request steps, called as its routes call them (the same compiled
// validators and serializers, from the same schemas), for the benchmarks that time them:
// bench:steps (each step alone, for a full job) and npm run bench (each scenario's steps
// together, for the bench's own job: "our steps" in its sum of the parts). Protobuf encoding and
// decoding are not steps here: they belong to the gRPC call.
import fastJson from "fast-json-stringify";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { TSchema } from "@sinclair/typebox";
import { parseJsonBody } from "../src/json/body.js";
import { jobFromJson, jobToJson, mergePatchMessage } from "../src/json/index.js";
import { serializerOptions, validatorCompiler } from "../src/http/validation.js";
import { searchOfUrl } from "../src/operations/job-search.js";
import { IfMatchHeaders, IfNoneMatchHeaders, ReplaceHeaders } from "../schemas/headers.js";
import { JobIdParams, JobInputJson, JobJson, JobPatchJson } from "../schemas/job.js";
import { JobSearchQuery } from "../schemas/search.js";

type HttpPart = "body" | "querystring" | "params" | "headers";

/** The validator fastify compiles for one part of a route's request (src/http/validation.ts). */
export function routeValidator(schema: TSchema, httpPart: HttpPart, method: string, url: string): (value: unknown) => boolean {
  return validatorCompiler({ schema, method, url, httpPart }) as (value: unknown) => boolean;
}

/** The route's check of a PUT body. */
export const validateJobInput = routeValidator(JobInputJson, "body", "PUT", "/v1/jobs/:jobId");
/** The route's check of a merge-patch body. */
export const validateJobPatch = routeValidator(JobPatchJson, "body", "PATCH", "/v1/jobs/:jobId");
/** The route's check of a search's query, as fastify's parser leaves it. */
export const validateSearchQuery = routeValidator(JobSearchQuery, "querystring", "GET", "/v1/jobs");
const validateJobIdParams = routeValidator(JobIdParams, "params", "GET", "/v1/jobs/:jobId");
const validateReadHeaders = routeValidator(IfNoneMatchHeaders, "headers", "GET", "/v1/jobs/:jobId");
const validateReplaceHeaders = routeValidator(ReplaceHeaders, "headers", "PUT", "/v1/jobs/:jobId");
const validatePatchHeaders = routeValidator(IfMatchHeaders, "headers", "PATCH", "/v1/jobs/:jobId");

/** The response serializer of a Job answer: what fastify compiles for the routes' JobJson responses. */
export const stringifyJob: (json: unknown) => string = fastJson(JobJson, serializerOptions);

/** A job answer's text, as the routes make it: the mirror's JSON, then the serializer. */
export const jobText = (job: Job): string => stringifyJob(jobToJson(job));

/** A request's steps by name, each called once per request. */
export type Steps = Readonly<Record<string, () => unknown>>;

/** The headers a load generator sends, as the route's header check sees them. */
const HEADERS = { host: "127.0.0.1" };

function checked(name: string, valid: boolean): void {
  if (!valid) throw new Error(`the benchmark's ${name} must be valid`);
}

/** GET /v1/jobs/:jobId answered with `job`: the route's checks of its path and headers, the answer's text. */
export function jobReadSteps(job: Job): Steps {
  const params = { jobId: job.jobId?.jobId ?? "" };
  checked("path", validateJobIdParams(params));
  return {
    "Ajv check of the path and headers": () => validateJobIdParams(params) && validateReadHeaders(HEADERS),
    "answer: jobToJson, serializer": () => jobText(job),
  };
}

/**
 * PUT /v1/jobs/:jobId of `body` (the request's bytes): read, checked, to a Job, answered with
 * the job and `newHash`, the hash the Manager returns.
 */
export function jobReplaceSteps(body: Buffer, newHash: bigint): Steps {
  const parsed = parseJsonBody(body);
  checked("PUT body", validateJobInput(parsed));
  const job = jobFromJson(parsed);
  job.currentHash = newHash;
  const params = { jobId: job.jobId?.jobId ?? "" };
  return {
    "body read (parseJsonBody)": () => parseJsonBody(body),
    "Ajv check of the body, path and headers": () => validateJobInput(parsed) && validateJobIdParams(params) && validateReplaceHeaders(HEADERS),
    "mirror: JSON to Job (jobFromJson)": () => jobFromJson(parsed),
    "answer: jobToJson, serializer": () => jobText(job),
  };
}

/** PATCH /v1/jobs/:jobId of `job` by the merge patch `body`: read, checked, merged, answered. */
export function jobMergePatchSteps(job: Job, body: Buffer): Steps {
  const patch = parseJsonBody(body) as Record<string, unknown>;
  checked("PATCH body", validateJobPatch(patch));
  const params = { jobId: job.jobId?.jobId ?? "" };
  const patched = mergePatchMessage(JobSchema, job, patch);
  return {
    "body read (parseJsonBody)": () => parseJsonBody(body),
    "Ajv check of the body, path and headers": () => validateJobPatch(patch) && validateJobIdParams(params) && validatePatchHeaders(HEADERS),
    "merge (mergePatchMessage)": () => mergePatchMessage(JobSchema, job, patch),
    "answer: jobToJson, serializer": () => jobText(patched),
  };
}

/**
 * GET `url` (a search) answered with `jobs`: the route's check of the query (`query`, as fastify's
 * parser leaves it), the query read, each job's text.
 */
export function searchSteps(url: string, query: Readonly<Record<string, unknown>>, jobs: readonly Job[]): Steps {
  checked("query", validateSearchQuery(query));
  return {
    "Ajv check of the query": () => validateSearchQuery(query),
    "query read (searchOfUrl)": () => searchOfUrl(url),
    "answer: each job's jobToJson, serializer": () => jobs.map(jobText),
  };
}

/**
 * CPU (user + system, process.cpuUsage) per call of `run`, µs: the best of `tries` runs of
 * `iterations` calls each, after one such run to warm up.
 */
export function cpuMicroseconds(run: () => unknown, iterations: number, tries = 3): number {
  let best = Infinity;
  for (let attempt = 0; attempt <= tries; attempt++) {
    const before = process.cpuUsage();
    for (let i = 0; i < iterations; i++) run();
    const used = process.cpuUsage(before);
    if (attempt > 0) best = Math.min(best, (used.user + used.system) / iterations);
  }
  return best;
}

/** CPU per request of all of `steps` one after the other, µs (cpuMicroseconds). */
export function stepsCpuMicroseconds(steps: Steps, iterations: number): number {
  const all = Object.values(steps);
  return cpuMicroseconds(() => {
    for (const step of all) step();
  }, iterations);
}

// The walk's cases in front of the reference Manager (conformance.test.ts): for each
// operation, its success statuses and the errors real conditions produce. They run in this
// order against one Manager holding c-1 (read and written), c-done (completed here),
// c-del (deleted here) and c-fenced (carries the tag of a conditional DELETE); c-put is created
// here by a create-only PUT.
import type { ConformanceRequest } from "../helpers/conformance.js";
import { encodePageToken, filterDigest } from "../../src/operations/search-page.js";

export const JSON_TYPE = { "content-type": "application/json" } as const;
const MERGE_PATCH = { "content-type": "application/merge-patch+json" } as const;
const TEXT = { "content-type": "text/plain" } as const;
const JSON_PATCH = { "content-type": "application/json-patch+json" } as const;
/** A page token as the gateway makes them, but for a search with other filters than the case's. */
const OTHER_FILTERS_TOKEN = encodePageToken({ afterJobId: "c-1", filterDigest: filterDigest([["id", "elsewhere"]]) });
const BAD_DEADLINE = { "grpc-timeout": "1 S" } as const;
const STALE = { "if-match": '"1"' } as const;
const START = "2026-12-24T18:00:00Z";
/** Over the gateway's 16 KiB body limit in the walk. */
const OVERSIZED = JSON.stringify({ jobId: "big", startDateTime: START, description: "x".repeat(20_000) });
const AWS = JSON.stringify({ nodeId: "aws-c", region: "eu-west-1", instanceType: "c5.large" });
const OCI = JSON.stringify({ nodeId: "oci-c", availabilityDomain: "AD-1", shape: "VM.Standard.E4.Flex", subnet: "s", architecture: "aarch_64" });

/** A job as the Manager's CreateJob takes it. */
export function job(id: string) {
  return { jobId: { jobId: id }, startDateTime: { seconds: 1_798_135_200n } };
}

const jobJson = (id: string, more: Record<string, unknown> = {}) => JSON.stringify({ jobId: id, startDateTime: START, ...more });

export interface Case {
  readonly op: string;
  readonly status: number;
  readonly why: string;
  /** The request, or a function of c-1's current ETag. */
  readonly request: ConformanceRequest | ((etag: string) => ConformanceRequest);
}

const get = (path: string, headers?: Record<string, string>): ConformanceRequest => ({ method: "get", path, ...(headers ? { headers } : {}) });
const del = (path: string, headers?: Record<string, string>): ConformanceRequest => ({ method: "delete", path, ...(headers ? { headers } : {}) });
const send = (method: "post" | "put" | "patch", path: string, body: string, headers: Record<string, string> = JSON_TYPE): ConformanceRequest => ({ method, path, headers, body });
const SSE = { accept: "text/event-stream", "grpc-timeout": "300m" } as const;

export const CASES: readonly Case[] = [
  { op: "getLiveness", status: 200, why: "the process serves", request: get("/healthz") },
  { op: "getReadiness", status: 200, why: "the Manager serves", request: get("/readyz") },

  { op: "jobSearch", status: 200, why: "a search", request: get("/v1/jobs?id=c-1&hasTag=env&limit=5") },
  { op: "jobSearch", status: 400, why: "a bad timestamp filter", request: get("/v1/jobs?startAt=soon") },
  { op: "jobSearch", status: 200, why: "a first page of one job in a state, with nextPageToken", request: get("/v1/jobs?state=pre&state=active&pageSize=1") },
  { op: "jobSearch", status: 400, why: "a page token made for other filters", request: get(`/v1/jobs?pageSize=1&pageToken=${OTHER_FILTERS_TOKEN}`) },
  { op: "jobSearch", status: 200, why: "a few fields of each job (a PartialJobList)", request: get("/v1/jobs?id=c-1&fields=state,tags") },
  { op: "jobSearch", status: 200, why: "a page of a few fields, with nextPageToken", request: get("/v1/jobs?fields=state&pageSize=1") },
  { op: "jobSearch", status: 400, why: "fields naming no field of a Job", request: get("/v1/jobs?fields=state,colour") },

  { op: "createJob", status: 201, why: "a new job", request: send("post", "/v1/jobs", jobJson("c-new")) },
  { op: "createJob", status: 200, why: "the same job again", request: send("post", "/v1/jobs", jobJson("c-new")) },
  { op: "createJob", status: 400, why: "a number as jobId", request: send("post", "/v1/jobs", '{"jobId":1}') },
  { op: "createJob", status: 409, why: "another job under that id", request: send("post", "/v1/jobs", jobJson("c-new", { description: "other" })) },
  { op: "createJob", status: 413, why: "a body over the limit", request: send("post", "/v1/jobs", OVERSIZED) },
  { op: "createJob", status: 415, why: "a text body", request: send("post", "/v1/jobs", jobJson("c-text"), TEXT) },

  { op: "jobById", status: 200, why: "the job", request: get("/v1/jobs/c-1") },
  { op: "jobById", status: 200, why: "a few fields of the job (a PartialJob)", request: get("/v1/jobs/c-1?fields=state,currentHash") },
  { op: "jobById", status: 400, why: "fields naming no field of a Job", request: get("/v1/jobs/c-1?fields=colour") },
  { op: "jobById", status: 304, why: "If-None-Match its ETag", request: (etag) => get("/v1/jobs/c-1", { "if-none-match": etag }) },
  { op: "jobById", status: 400, why: "a malformed Grpc-Timeout", request: get("/v1/jobs/c-1", BAD_DEADLINE) },
  { op: "jobById", status: 404, why: "no such job", request: get("/v1/jobs/ghost") },

  { op: "updateJob", status: 200, why: "a replacement", request: send("put", "/v1/jobs/c-1", jobJson("c-1", { description: "put" })) },
  { op: "updateJob", status: 201, why: "If-None-Match: * where no job is", request: send("put", "/v1/jobs/c-put", jobJson("c-put"), { ...JSON_TYPE, "if-none-match": "*" }) },
  { op: "updateJob", status: 400, why: "another jobId in the body", request: send("put", "/v1/jobs/c-1", jobJson("c-2")) },
  { op: "updateJob", status: 404, why: "no such job", request: send("put", "/v1/jobs/ghost", jobJson("ghost")) },
  { op: "updateJob", status: 412, why: "a stale If-Match", request: { ...send("put", "/v1/jobs/c-1", jobJson("c-1")), headers: { ...JSON_TYPE, ...STALE } } },
  { op: "updateJob", status: 413, why: "a body over the limit", request: send("put", "/v1/jobs/c-1", OVERSIZED) },
  { op: "updateJob", status: 415, why: "a text body", request: send("put", "/v1/jobs/c-1", jobJson("c-1"), TEXT) },

  { op: "patchJob", status: 200, why: "a merge patch", request: send("patch", "/v1/jobs/c-1", '{"description":"patched"}', MERGE_PATCH) },
  { op: "patchJob", status: 400, why: "a number as startDateTime", request: send("patch", "/v1/jobs/c-1", '{"startDateTime":5}', MERGE_PATCH) },
  { op: "patchJob", status: 404, why: "no such job", request: send("patch", "/v1/jobs/ghost", '{"description":"p"}', MERGE_PATCH) },
  { op: "patchJob", status: 409, why: "a conditional DELETE is deleting the job", request: send("patch", "/v1/jobs/c-fenced", '{"description":"p"}', MERGE_PATCH) },
  { op: "patchJob", status: 412, why: "a stale If-Match", request: send("patch", "/v1/jobs/c-1", '{"description":"p"}', { ...MERGE_PATCH, ...STALE }) },
  { op: "patchJob", status: 413, why: "a body over the limit", request: send("patch", "/v1/jobs/c-1", OVERSIZED, MERGE_PATCH) },
  { op: "patchJob", status: 415, why: "a text body", request: send("patch", "/v1/jobs/c-1", '{"description":"p"}', TEXT) },
  { op: "patchJob", status: 200, why: "a JSON Patch", request: send("patch", "/v1/jobs/c-1", '[{"op":"add","path":"/tags/stage","value":"walk"}]', JSON_PATCH) },
  { op: "patchJob", status: 400, why: "a JSON Patch with an unknown op", request: send("patch", "/v1/jobs/c-1", '[{"op":"swap","path":"/tags"}]', JSON_PATCH) },
  { op: "patchJob", status: 409, why: "a JSON Patch whose test fails", request: send("patch", "/v1/jobs/c-1", '[{"op":"test","path":"/description","value":"never"}]', JSON_PATCH) },

  { op: "listJobInstances", status: 200, why: "no instance yet", request: get("/v1/jobs/c-1/instances") },
  { op: "listJobInstances", status: 400, why: "a malformed Grpc-Timeout", request: get("/v1/jobs/c-1/instances", BAD_DEADLINE) },
  { op: "listJobInstances", status: 404, why: "no such job", request: get("/v1/jobs/ghost/instances") },

  { op: "startJob", status: 201, why: "an instance starts", request: send("post", "/v1/jobs/c-1/instances", '{"role":"main","nodeId":"n-1"}') },
  { op: "listJobInstances", status: 200, why: "one instance", request: get("/v1/jobs/c-1/instances") },
  { op: "startJob", status: 400, why: "no nodeId", request: send("post", "/v1/jobs/c-1/instances", '{"role":"r"}') },
  { op: "startJob", status: 404, why: "no such job", request: send("post", "/v1/jobs/ghost/instances", '{"role":"main","nodeId":"n-1"}') },
  { op: "startJob", status: 413, why: "a body over the limit", request: send("post", "/v1/jobs/c-1/instances", OVERSIZED) },
  { op: "startJob", status: 415, why: "a text body", request: send("post", "/v1/jobs/c-1/instances", '{"role":"main","nodeId":"n-1"}', TEXT) },

  { op: "stopJob", status: 204, why: "the instance stops", request: del("/v1/jobs/c-1/instances/main?nodeId=n-1") },
  { op: "stopJob", status: 400, why: "no nodeId", request: del("/v1/jobs/c-1/instances/main") },
  { op: "stopJob", status: 404, why: "no instance in that role", request: del("/v1/jobs/c-1/instances/none?nodeId=n-1") },

  { op: "completeJob", status: 204, why: "the job completes", request: { method: "post", path: "/v1/jobs/c-done/complete" } },
  { op: "completeJob", status: 400, why: "a malformed Grpc-Timeout", request: { method: "post", path: "/v1/jobs/c-done/complete", headers: BAD_DEADLINE } },
  { op: "completeJob", status: 404, why: "no such job", request: { method: "post", path: "/v1/jobs/ghost/complete" } },
  { op: "completeJob", status: 412, why: "a stale If-Match", request: { method: "post", path: "/v1/jobs/c-1/complete", headers: STALE } },

  { op: "deleteJob", status: 204, why: "the job is deleted", request: del("/v1/jobs/c-del") },
  { op: "deleteJob", status: 400, why: "a malformed Grpc-Timeout", request: del("/v1/jobs/c-1", BAD_DEADLINE) },
  { op: "deleteJob", status: 404, why: "no such job", request: del("/v1/jobs/ghost") },
  { op: "deleteJob", status: 412, why: "a stale If-Match", request: del("/v1/jobs/c-1", STALE) },

  { op: "createAwsNode", status: 202, why: "a new node", request: send("post", "/v1/nodes/aws", AWS) },
  { op: "createAwsNode", status: 400, why: "no nodeId", request: send("post", "/v1/nodes/aws", "{}") },
  { op: "createAwsNode", status: 409, why: "the node exists", request: send("post", "/v1/nodes/aws", AWS) },
  { op: "createAwsNode", status: 415, why: "a text body", request: send("post", "/v1/nodes/aws", AWS, TEXT) },
  { op: "createOciNode", status: 202, why: "a new node", request: send("post", "/v1/nodes/oci", OCI) },
  { op: "createOciNode", status: 400, why: "no nodeId", request: send("post", "/v1/nodes/oci", "{}") },
  { op: "createOciNode", status: 409, why: "the node exists", request: send("post", "/v1/nodes/oci", OCI) },
  { op: "createOciNode", status: 415, why: "a text body", request: send("post", "/v1/nodes/oci", OCI, TEXT) },

  { op: "terminateNode", status: 202, why: "the node stops", request: del("/v1/nodes/aws-c") },
  { op: "terminateNode", status: 400, why: "an id too long", request: del(`/v1/nodes/${"n".repeat(300)}`) },
  { op: "terminateNode", status: 404, why: "no such node", request: del("/v1/nodes/ghost") },

  { op: "updatePhysicalNode", status: 200, why: "a new physical node", request: send("put", "/v1/physical-nodes/rack-c", '{"daemonVersion":"1.0.384"}') },
  { op: "updatePhysicalNode", status: 400, why: "another id in the body", request: send("put", "/v1/physical-nodes/rack-c", '{"id":"other"}') },
  { op: "updatePhysicalNode", status: 415, why: "a text body", request: send("put", "/v1/physical-nodes/rack-c", "{}", TEXT) },

  { op: "nodes", status: 200, why: "the picture's OCI nodes", request: get("/v1/nodes?cloud=oci&state=running") },
  { op: "nodes", status: 400, why: "a cloud that is none", request: get("/v1/nodes?cloud=gcp") },
  { op: "nodeById", status: 200, why: "a node of the picture", request: get("/v1/nodes/oci-c") },
  { op: "nodeById", status: 400, why: "an id too long", request: get(`/v1/nodes/${"n".repeat(300)}`) },
  { op: "nodeById", status: 404, why: "no such node", request: get("/v1/nodes/ghost") },
  { op: "cloudHealth", status: 200, why: "the providers' health", request: get("/v1/health") },
  { op: "cloudHealth", status: 400, why: "a malformed Grpc-Timeout", request: get("/v1/health", BAD_DEADLINE) },
  { op: "jobActivity", status: 200, why: "a job's activity", request: get("/v1/jobs/c-1/activity") },
  { op: "jobActivity", status: 400, why: "a malformed Grpc-Timeout", request: get("/v1/jobs/c-1/activity", BAD_DEADLINE) },
  { op: "jobActivity", status: 404, why: "no such job", request: get("/v1/jobs/ghost/activity") },

  { op: "eventStream", status: 200, why: "the picture, then the end of a 300 ms Grpc-Timeout", request: get("/v1/events?pendingWindowS=60", SSE) },
  { op: "eventStream", status: 400, why: "a negative pendingWindowS", request: get("/v1/events?pendingWindowS=-1", SSE) },
  { op: "eventStream", status: 200, why: "narrowed to one job's updates", request: get("/v1/events?jobId=c-1&type=jobUpdated,initialDataComplete", SSE) },
  { op: "eventStream", status: 400, why: "an unknown event type", request: get("/v1/events?type=jobExploded", SSE) },
  { op: "createStatusChannel", status: 200, why: "hello, then the end of a 300 ms Grpc-Timeout", request: get("/v1/status", SSE) },
  { op: "createStatusChannel", status: 400, why: "a malformed Grpc-Timeout", request: get("/v1/status", { accept: "text/event-stream", ...BAD_DEADLINE }) },
];

// Reads from the Manager's current picture (docs/architecture.md, "Reads from the picture"):
// the nodes, one node, a job's activity and history, the cloud providers' health. Each reads a
// fresh picture (src/operations/picture.ts), shared with the identical reads in flight.
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { Job, Manager, NodeRunning, PhysicalNodeConnected } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import {
  Job_JobState,
  JobWithHistorySchema,
  PhysicalNodeSchema,
  ProviderHealthSchema,
  RunningJobSchema,
} from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { NodeMetadataSchema, RunningNodeMetadataSchema } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import type { BytesClient } from "norsk-manager-contract/grpc/client.js";
import { messageToJson } from "../json/index.js";
import { notFound } from "../http/problem.js";
import { errorResponses } from "../http/responses.js";
import { unaryCallOptions } from "../operations/call-options.js";
import { jobNotFound, findJobShared } from "../operations/job-access.js";
import type { ManagerRouteOptions } from "../operations/job-access.js";
import { readPicture } from "../operations/picture.js";
import type { Picture, PictureReadOptions } from "../operations/picture.js";
import type { SharedCalls } from "../operations/shared-calls/calls.js";
import { JobIdParams } from "../../schemas/job.js";
import {
  CloudHealthJson,
  JobActivityJson,
  NodeByIdParams,
  NodeJson,
  NodeListJson,
  NodeListQuery,
} from "../../schemas/picture.js";
import type { NodeCloud, NodeListQueryJson } from "../../schemas/picture.js";
import { needs } from "../auth/scopes.js";

export interface PictureRoutesOptions extends ManagerRouteOptions {
  /** The Manager's server streams, messages still encoded: the picture is read from EventStream. */
  readonly streams: BytesClient<typeof Manager>;
  /** Pictures shared by identical reads in flight. Default: none, a call per read. */
  readonly pictures?: SharedCalls<Picture> | undefined;
  /** The most bytes a picture may have (PictureReadOptions.limitBytes). Default: PICTURE_LIMIT_BYTES. */
  readonly pictureLimitBytes?: number | undefined;
}

const FRESH = "Read from a fresh picture of the Manager's (EventStream up to initialDataComplete), shared only with identical reads in flight.";
const PICTURE_FAILURES = [
  "INVALID_ARGUMENT",
  { BAD_GATEWAY: "the Manager's picture does not parse, ends before initialDataComplete, or is larger than the gateway reads" },
  { DEADLINE_EXCEEDED: "the Manager did not complete its picture before the deadline" },
] as const;

const NODES = {
  schema: {
    operationId: "nodes",
    tags: ["nodes"],
    summary: "List the nodes",
    description: `The nodes of the Manager's current picture: cloud nodes running, physical nodes connected, with their instances. ${FRESH}`,
    querystring: NodeListQuery,
    response: { 200: NodeListJson, ...errorResponses(...PICTURE_FAILURES) },
  },
  config: needs("nodes:read"),
};

const NODE_BY_ID = {
  schema: {
    operationId: "nodeById",
    tags: ["nodes"],
    summary: "Read a node",
    description: `One node of the Manager's current picture, cloud or physical; a node not in it (unknown, starting, stopped) is a 404. ${FRESH}`,
    params: NodeByIdParams,
    response: { 200: NodeJson, ...errorResponses(...PICTURE_FAILURES, { NOT_FOUND: "no node with this id is in the Manager's picture" }) },
  },
  config: needs("nodes:read"),
};

const JOB_ACTIVITY = {
  schema: {
    operationId: "jobActivity",
    tags: ["jobs"],
    summary: "Read a job's activity and history",
    description:
      "JobSearch for the id (a job that does not exist is a 404), then the Manager's current picture: the job's jobActive, or for a job " +
      "in state pre its jobPending (the picture read with a pending window reaching the job's startDateTime), with the job's history " +
      `as the picture carries it. A job in neither (state post) is activity none. ${FRESH}`,
    params: JobIdParams,
    response: { 200: JobActivityJson, ...errorResponses(...PICTURE_FAILURES, { NOT_FOUND: "no job has this id" }) },
  },
  config: needs("jobs:read"),
};

const CLOUD_HEALTH = {
  schema: {
    operationId: "cloudHealth",
    tags: ["nodes"],
    summary: "Read the cloud providers' health",
    description: `The providers' health by region, from the initialDataComplete of the Manager's current picture (the gateway's own health is /healthz). ${FRESH}`,
    response: { 200: CloudHealthJson, ...errorResponses(...PICTURE_FAILURES) },
  },
  config: needs("nodes:read"),
};

/** EventStreamRequest.pending_window_s's largest value (an int32). */
const MAX_PENDING_WINDOW_S = 2_147_483_647;

export const pictureRoutes: FastifyPluginCallbackTypebox<PictureRoutesOptions> = (app, options, done) => {
  const { client, streams, requestTimeoutMs, jobReads } = options;
  const pictureOptions: PictureReadOptions = { limitBytes: options.pictureLimitBytes, reads: options.pictures };

  app.get("/v1/nodes", NODES, async function nodes(request, reply) {
    const picture = await readPicture(streams, { pendingWindowS: 0 }, unaryCallOptions(request, reply, requestTimeoutMs), pictureOptions);
    return reply.send({ nodes: nodesOf(picture).filter(matching(request.query)) });
  });

  app.get("/v1/nodes/:nodeId", NODE_BY_ID, async function nodeById(request, reply) {
    const { nodeId } = request.params;
    const picture = await readPicture(streams, { pendingWindowS: 0 }, unaryCallOptions(request, reply, requestTimeoutMs), pictureOptions);
    const node = nodesOf(picture).find((each) => each.nodeId === nodeId);
    if (node === undefined) throw notFound(`node ${JSON.stringify(nodeId)} is not in the Manager's picture`);
    return reply.send(node);
  });

  app.get("/v1/jobs/:jobId/activity", JOB_ACTIVITY, async function jobActivity(request, reply) {
    const { jobId } = request.params;
    const found = await findJobShared(jobReads, client, jobId, unaryCallOptions(request, reply, requestTimeoutMs));
    if (found?.job === undefined) throw jobNotFound(jobId);
    const pendingWindowS = pendingWindowFor(found.job, Date.now());
    const picture = await readPicture(streams, { pendingWindowS }, unaryCallOptions(request, reply, requestTimeoutMs), pictureOptions);
    const isThisJob = (entry: { job?: Job | undefined }): boolean => entry.job?.jobId?.jobId === jobId;
    const active = picture.jobsActive.find(isThisJob);
    const pending = active === undefined ? picture.jobsPending.find(isThisJob) : undefined;
    const entry = active ?? pending;
    const answer: JobActivityJson = { jobId, activity: active !== undefined ? "active" : pending !== undefined ? "pending" : "none" };
    if (entry !== undefined) answer.jobWithHistory = messageToJson(JobWithHistorySchema, entry) as unknown as NonNullable<JobActivityJson["jobWithHistory"]>;
    return reply.send(answer);
  });

  app.get("/v1/health", CLOUD_HEALTH, async function cloudHealth(request, reply) {
    const picture = await readPicture(streams, { pendingWindowS: 0 }, unaryCallOptions(request, reply, requestTimeoutMs), pictureOptions);
    return reply.send({ health: picture.health.map((health) => messageToJson(ProviderHealthSchema, health)) as unknown as CloudHealthJson["health"] });
  });

  done();
};

/**
 * The pending window that puts `job` in the picture when it is in state pre: from now to its
 * startDateTime (a job already due, or without one, needs the least window, 1 s); 0 otherwise.
 */
export function pendingWindowFor(job: Job, nowMs: number): number {
  if (job.state !== Job_JobState.PRE) return 0;
  const startS = job.startDateTime === undefined ? 0 : Number(job.startDateTime.seconds) + (job.startDateTime.nanos > 0 ? 1 : 0);
  const window = Math.ceil(startS - nowMs / 1000);
  return Math.min(MAX_PENDING_WINDOW_S, Math.max(1, window));
}

/** The picture's nodes as answered: its cloud nodes, then its physical nodes. */
function nodesOf(picture: Picture): NodeJson[] {
  return [...picture.nodesRunning.map(cloudNode), ...picture.physicalNodes.map(physicalNode)];
}

function cloudNode(running: NodeRunning): NodeJson {
  const metadata = running.nodeMetadata;
  const provider = metadata?.providerMetadata?.metadata.case;
  const node: NodeJson = {
    nodeId: metadata?.nodeId?.nodeId ?? "",
    state: "running",
    tags: { ...metadata?.tags },
    instances: running.instances.map((instance) => messageToJson(RunningJobSchema, instance)),
  };
  if (provider !== undefined) node.cloud = provider;
  if (metadata !== undefined) node.nodeMetadata = messageToJson(NodeMetadataSchema, metadata) as unknown as NonNullable<NodeJson["nodeMetadata"]>;
  if (running.runningNodeMetadata !== undefined) {
    node.runningNodeMetadata = messageToJson(RunningNodeMetadataSchema, running.runningNodeMetadata) as unknown as NonNullable<NodeJson["runningNodeMetadata"]>;
  }
  return node;
}

function physicalNode(connected: PhysicalNodeConnected): NodeJson {
  const node: NodeJson = {
    nodeId: connected.node?.id ?? "",
    cloud: "physical",
    state: "connected",
    tags: { ...connected.node?.tags },
    instances: connected.instances.map((instance) => messageToJson(RunningJobSchema, instance)),
  };
  if (connected.node !== undefined) node.physicalNode = messageToJson(PhysicalNodeSchema, connected.node) as unknown as NonNullable<NodeJson["physicalNode"]>;
  return node;
}

/** Whether a node passes the query's filters: any of the clouds, any of the states, all of the tags. */
function matching(query: NodeListQueryJson): (node: NodeJson) => boolean {
  const clouds: ReadonlySet<NodeCloud> | undefined = query.cloud === undefined ? undefined : new Set(query.cloud);
  const states = query.state === undefined ? undefined : new Set<string>(query.state);
  const tags = (query.tag ?? []).map((tag) => {
    const colon = tag.indexOf(":");
    return { name: tag.slice(0, colon), value: tag.slice(colon + 1) };
  });
  return (node) =>
    (clouds === undefined || (node.cloud !== undefined && clouds.has(node.cloud))) &&
    (states === undefined || states.has(node.state)) &&
    tags.every(({ name, value }) => Object.hasOwn(node.tags, name) && node.tags[name] === value);
}

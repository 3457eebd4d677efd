// A job's running instances (docs/architecture.md, "HTTP surface"): list them (JobSearch), start
// one (StartJob), stop one (StopJob).
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { create } from "@bufbuild/protobuf";
import { RunningJobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { messageToJson } from "../json/index.js";
import { InstancesJson, JobIdParams, RunningJobJson } from "../../schemas/job.js";
import { InstanceParams, StartInstanceJson, StopInstanceQuery } from "../../schemas/instance.js";
import { deadlinesOf, seenThrough, streamCallOptions, unaryCallOptions } from "../operations/call-options.js";
import { noSuchJob, requireJob } from "../operations/job-access.js";
import type { ManagerRouteOptions } from "../operations/job-access.js";
import { emptyResponse, errorResponses, jsonResponse } from "../http/responses.js";
import { statusOf } from "../http/status.js";
import { acceptOnly } from "../http/content-type.js";
import { notFoundAs } from "../http/problem.js";
import { LocationHeader } from "../../schemas/headers.js";
import { needs } from "../auth/scopes.js";

const NO_SUCH_JOB = "no job has this id";

// The options of each route (its schema, and which bodies it reads), named after its operation.

const LIST_JOB_INSTANCES = {
  config: needs("jobs:read"),
  schema: {
    operationId: "listJobInstances",
    tags: ["jobs"],
    summary: "List a job's running instances",
    description:
      "JobSearch for this one id: the `instances` of its CurrentJob, one per running role. A list: the request timeout bounds " +
      "the wait for the Manager's answer, and `Grpc-Timeout` may set a longer deadline, up to the gateway's maximum.",
    params: JobIdParams,
    response: {
      200: jsonResponse(InstancesJson, "OK: the running instances (none when the job is not running)."),
      ...errorResponses("INVALID_ARGUMENT", { NOT_FOUND: NO_SUCH_JOB }),
    },
  },
};

const START_JOB = {
  config: needs("jobs:write"),
  schema: {
    operationId: "startJob",
    tags: ["jobs"],
    summary: "Start an instance of a job on a node",
    description:
      "StartJob: runs the job in `role` on node `nodeId` and makes it `active`. A role runs at most once; a completed job cannot be started " +
      `(${statusOf("FAILED_PRECONDITION")}, FAILED_PRECONDITION).`,
    params: JobIdParams,
    body: StartInstanceJson,
    response: {
      201: jsonResponse(RunningJobJson, "Created: the instance now running.", { Location: LocationHeader }),
      ...errorResponses(
        {
          INVALID_ARGUMENT: "the body is invalid",
          FAILED_PRECONDITION: "the role already runs, or the job is complete",
          NOT_FOUND: NO_SUCH_JOB,
        },
        "CONTENT_TOO_LARGE",
        "UNSUPPORTED_MEDIA_TYPE",
      ),
    },
  },
  preValidation: acceptOnly("application/json"),
};

const STOP_JOB = {
  config: needs("jobs:write"),
  schema: {
    operationId: "stopJob",
    tags: ["jobs"],
    summary: "Stop an instance of a job",
    description: "StopJob: stops the instance of the job in `role` on node `nodeId`; a job left without instances returns to `pre`.",
    params: InstanceParams,
    querystring: StopInstanceQuery,
    response: {
      204: emptyResponse("No Content: the instance is stopped."),
      ...errorResponses("INVALID_ARGUMENT", { NOT_FOUND: "the job has no instance in this role on that node" }),
    },
  },
};

/** The instance routes: each handler is a named function of the plugin, calling the Manager with its client. */
export const jobInstanceRoutes: FastifyPluginCallbackTypebox<ManagerRouteOptions> = (app, options, done) => {
  const { client, requestTimeoutMs, jobReads } = options;
  const deadlines = deadlinesOf(options);

  app.get("/v1/jobs/:jobId/instances", LIST_JOB_INSTANCES, async function listJobInstances(request, reply) {
    const current = await requireJob(client, request.params.jobId, streamCallOptions(request, reply, deadlines), jobReads);
    return { instances: current.instances.map((instance) => messageToJson(RunningJobSchema, instance)) };
  });

  app.post("/v1/jobs/:jobId/instances", START_JOB, async function startJob(request, reply) {
    const { jobId } = request.params;
    const { role, nodeId } = request.body;
    await client
      .startJob({ jobId: { jobId }, role, nodeId: { nodeId } }, seenThrough(unaryCallOptions(request, reply, requestTimeoutMs)))
      .catch(notFoundAs(noSuchJob(jobId)));
    const instance = create(RunningJobSchema, { jobKey: { jobId: { jobId }, role }, nodeId: { nodeId } });
    return reply
      .code(201)
      .header("location", `/v1/jobs/${encodeURIComponent(jobId)}/instances/${encodeURIComponent(role)}`)
      .send(messageToJson(RunningJobSchema, instance));
  });

  app.delete("/v1/jobs/:jobId/instances/:role", STOP_JOB, async function stopJob(request, reply) {
    const { jobId, role } = request.params;
    await client
      .stopJob({ jobId: { jobId }, role, nodeId: { nodeId: request.query.nodeId } }, seenThrough(unaryCallOptions(request, reply, requestTimeoutMs)))
      .catch(notFoundAs(`job ${JSON.stringify(jobId)} has no instance ${JSON.stringify(role)} on that node`));
    return reply.code(204).send(null);
  });

  done();
};

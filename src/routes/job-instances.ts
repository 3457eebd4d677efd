// A job's running instances (docs/ARCHITECTURE.md §5): list them (JobSearch), start one (StartJob), stop one
// (StopJob).
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { create } from "@bufbuild/protobuf";
import { RunningJobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { messageToJson } from "../json/index.js";
import { InstancesJson, JobIdParams, RunningJobJson } from "../../schemas/job.js";
import { InstanceParams, StartInstanceJson, StopInstanceQuery } from "../../schemas/instance.js";
import { CallingHandlers } from "../operations/call-options.js";
import { noSuchJob, requireJob } from "../operations/job-access.js";
import type { ManagerClient, ManagerRouteOptions } from "../operations/job-access.js";
import { emptyResponse, errorResponses, jsonResponse } from "../http/responses.js";
import type { RouteHandler } from "../http/route-handler.js";
import { statusOf } from "../http/status.js";
import { acceptOnly } from "../http/content-type.js";
import { notFoundAs } from "../http/problem.js";
import { LocationHeader } from "../../schemas/headers.js";

const NO_SUCH_JOB = "no job has this id";

const LIST_JOB_INSTANCES_SCHEMA = {
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
};

const START_JOB_SCHEMA = {
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
};

const STOP_JOB_SCHEMA = {
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
};

export const jobInstanceRoutes: FastifyPluginCallbackTypebox<ManagerRouteOptions> = (app, options, done) => {
  const instances = new InstanceHandlers(options);
  app.get("/v1/jobs/:jobId/instances", { schema: LIST_JOB_INSTANCES_SCHEMA }, instances.listJobInstances);
  app.post("/v1/jobs/:jobId/instances", { preValidation: acceptOnly("application/json"), schema: START_JOB_SCHEMA }, instances.startJob);
  app.delete("/v1/jobs/:jobId/instances/:role", { schema: STOP_JOB_SCHEMA }, instances.stopJob);
  done();
};

/** The handlers, one per operation and named after it. */
class InstanceHandlers extends CallingHandlers<ManagerClient> {
  readonly #reads: ManagerRouteOptions["jobReads"];

  constructor(options: ManagerRouteOptions) {
    super(options);
    this.#reads = options.jobReads;
  }

  readonly listJobInstances: RouteHandler<typeof LIST_JOB_INSTANCES_SCHEMA> = async (request, reply) => {
    const current = await requireJob(this.client, request.params.jobId, this.listOptions(request, reply), this.#reads);
    return { instances: current.instances.map((instance) => messageToJson(RunningJobSchema, instance)) };
  };

  readonly startJob: RouteHandler<typeof START_JOB_SCHEMA> = async (request, reply) => {
    const { jobId } = request.params;
    const { role, nodeId } = request.body;
    await this.client
      .startJob({ jobId: { jobId }, role, nodeId: { nodeId } }, this.callOptions(request, reply))
      .catch(notFoundAs(noSuchJob(jobId)));
    const instance = create(RunningJobSchema, { jobKey: { jobId: { jobId }, role }, nodeId: { nodeId } });
    return reply
      .code(201)
      .header("location", `/v1/jobs/${encodeURIComponent(jobId)}/instances/${encodeURIComponent(role)}`)
      .send(messageToJson(RunningJobSchema, instance));
  };

  readonly stopJob: RouteHandler<typeof STOP_JOB_SCHEMA> = async (request, reply) => {
    const { jobId, role } = request.params;
    await this.client
      .stopJob({ jobId: { jobId }, role, nodeId: { nodeId: request.query.nodeId } }, this.callOptions(request, reply))
      .catch(notFoundAs(`job ${JSON.stringify(jobId)} has no instance ${JSON.stringify(role)} on that node`));
    return reply.code(204).send(null);
  };
}

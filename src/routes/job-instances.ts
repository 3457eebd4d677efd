// A job's running instances (docs/ARCHITECTURE.md §5): list them (JobSearch), start one (StartJob), stop one
// (StopJob).
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { create } from "@bufbuild/protobuf";
import { RunningJobSchema } from "../gen/norsk/api/manager_pb.js";
import { messageToJson } from "../json/index.js";
import { Instances, JobIdParams, RunningJob } from "../../schemas/job.js";
import { InstanceParams, StartInstance, StopInstanceQuery } from "../../schemas/instance.js";
import { callOptionsFor } from "../http/call-options.js";
import { requireJob } from "../operations/job-access.js";
import type { ManagerClient } from "../operations/job-access.js";
import { emptyResponse, errorResponses, jsonResponse } from "../http/responses.js";
import { acceptOnly } from "../http/content-type.js";
import { notFoundAs } from "../http/problem.js";
import { LocationHeader } from "../../schemas/headers.js";

export interface InstanceRoutesOptions {
  readonly client: ManagerClient;
  /** Deadline of each gRPC call, in ms. */
  readonly requestTimeoutMs: number;
}

export const jobInstanceRoutes: FastifyPluginCallbackTypebox<InstanceRoutesOptions> = (app, { client, requestTimeoutMs }, done) => {
  app.get(
    "/v1/jobs/:jobId/instances",
    {
      schema: {
        operationId: "listJobInstances",
        tags: ["jobs"],
        summary: "List a job's running instances",
        description: "JobSearch for this one id: the `instances` of its CurrentJob, one per running role.",
        params: JobIdParams,
        response: { 200: jsonResponse(Instances, "OK: the running instances (none when the job is not running)."), ...errorResponses(400, [404, "no job has this id"]) },
      },
    },
    async (request, reply) => {
      const current = await requireJob(client, request.params.jobId, callOptionsFor(request, reply, requestTimeoutMs));
      return { instances: current.instances.map((instance) => messageToJson(RunningJobSchema, instance)) };
    },
  );

  app.post(
    "/v1/jobs/:jobId/instances",
    {
      preValidation: acceptOnly("application/json"),
      schema: {
        operationId: "startJob",
        tags: ["jobs"],
        summary: "Start an instance of a job on a node",
        description:
          "StartJob: runs the job in `role` on node `nodeId` and makes it `active`. A role runs at most once; a completed job cannot be started (400, FAILED_PRECONDITION).",
        params: JobIdParams,
        body: StartInstance,
        response: {
          201: jsonResponse(RunningJob, "Created: the instance now running.", { Location: LocationHeader }),
          ...errorResponses([400, "the body is invalid, the role already runs, or the job is complete (FAILED_PRECONDITION)"], [404, "no job has this id"], 413, 415),
        },
      },
    },
    async (request, reply) => {
      const { jobId } = request.params;
      const { role, nodeId } = request.body;
      await client
        .startJob({ jobId: { jobId }, role, nodeId: { nodeId } }, callOptionsFor(request, reply, requestTimeoutMs))
        .catch(notFoundAs(`job ${JSON.stringify(jobId)} does not exist`));
      const instance = create(RunningJobSchema, { jobKey: { jobId: { jobId }, role }, nodeId: { nodeId } });
      return reply
        .code(201)
        .header("location", `/v1/jobs/${encodeURIComponent(jobId)}/instances/${encodeURIComponent(role)}`)
        .send(messageToJson(RunningJobSchema, instance));
    },
  );

  app.delete(
    "/v1/jobs/:jobId/instances/:role",
    {
      schema: {
        operationId: "stopJob",
        tags: ["jobs"],
        summary: "Stop an instance of a job",
        description: "StopJob: stops the instance of the job in `role` on node `nodeId`; a job left without instances returns to `pre`.",
        params: InstanceParams,
        querystring: StopInstanceQuery,
        response: { 204: emptyResponse("No Content: the instance is stopped."), ...errorResponses(400, [404, "the job has no instance in this role on that node"]) },
      },
    },
    async (request, reply) => {
      const { jobId, role } = request.params;
      await client
        .stopJob({ jobId: { jobId }, role, nodeId: { nodeId: request.query.nodeId } }, callOptionsFor(request, reply, requestTimeoutMs))
        .catch(notFoundAs(`job ${JSON.stringify(jobId)} has no instance ${JSON.stringify(role)} on that node`));
      return reply.code(204).send(null);
    },
  );

  done();
};

// A job's running instances (DESIGN §5): list them (JobSearch), start one (StartJob), stop one
// (StopJob).
import { Type } from "@sinclair/typebox";
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { create } from "@bufbuild/protobuf";
import { RunningJobSchema } from "../gen/norsk/api/manager_pb.js";
import { messageToJson } from "../json/index.js";
import { Instances, RunningJob } from "../../schemas/job.js";
import { InstanceParams, StartInstance, StopInstanceQuery } from "../../schemas/instance.js";
import { callOptionsFor } from "./call-context.js";
import { requireJob } from "./job-access.js";
import type { ManagerClient } from "./job-access.js";
import { JobIdParams, acceptOnly, errorResponses, notFoundAs } from "./route-schemas.js";

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
        params: JobIdParams,
        response: { 200: Instances, ...errorResponses(400, 404) },
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
        params: JobIdParams,
        body: StartInstance,
        response: { 201: RunningJob, ...errorResponses(400, 404, 415) },
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
        params: InstanceParams,
        querystring: StopInstanceQuery,
        response: { 204: Type.Null(), ...errorResponses(400, 404) },
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

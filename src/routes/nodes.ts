// Nodes (docs/ARCHITECTURE.md §5): create an AWS or OCI node, terminate a node, register or update a
// physical node. Each route makes one gRPC call. Creating and terminating are accepted (202):
// the node starts or stops later, which GET /v1/events reports (nodeStarting, nodeStarted,
// nodeStopping, nodeStopped). The bodies are the request messages through the mirror.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import {
  CreateAwsNodeRequestSchema,
  CreateOciNodeRequestSchema,
  UpdatePhysicalNodeRequestSchema,
} from "../gen/norsk/api/manager_pb.js";
import { messageFromJson, messageToJson } from "../json/index.js";
import {
  AwsNode,
  AwsNodeInput,
  NodeIdParams,
  OciNode,
  OciNodeInput,
  PhysicalNodeParams,
  PhysicalNodeUpdate,
  PhysicalNodeUpdateInput,
} from "../../schemas/nodes.js";
// The mirror's output has the response schema's type by construction (test/schemas checks it).
import type { AwsNodeJson, OciNodeJson, PhysicalNodeUpdateJson } from "../../schemas/nodes.js";
import { badRequest } from "../http/problem.js";
import { callOptionsFor } from "../http/call-options.js";
import type { ManagerClient } from "../operations/job-access.js";
import { errorResponses } from "../http/responses.js";
import { acceptOnly } from "../http/content-type.js";
import { notFoundAs } from "../http/problem.js";

export interface NodeRoutesOptions {
  readonly client: ManagerClient;
  /** Deadline of each gRPC call, in ms. */
  readonly requestTimeoutMs: number;
}

const ACCEPTED = "Accepted: the Manager starts the node; GET /v1/events reports nodeStarting, then nodeStarted.";

export const nodeRoutes: FastifyPluginCallbackTypebox<NodeRoutesOptions> = (app, { client, requestTimeoutMs }, done) => {
  const callOptions = (request: FastifyRequest, reply: FastifyReply) => callOptionsFor(request, reply, requestTimeoutMs);

  app.post(
    "/v1/nodes/aws",
    {
      preValidation: acceptOnly("application/json"),
      schema: {
        operationId: "createAwsNode",
        tags: ["nodes"],
        summary: "Create an AWS node",
        description: `CreateAwsNode. ${ACCEPTED} The answer is the request as the Manager accepted it. A node id in use is a 409.`,
        body: AwsNodeInput,
        response: { 202: AwsNode, ...errorResponses(400, 409, 415) },
      },
    },
    async (request, reply) => {
      const node = messageFromJson(CreateAwsNodeRequestSchema, request.body);
      await client.createAwsNode(node, callOptions(request, reply));
      return reply.code(202).send(messageToJson(CreateAwsNodeRequestSchema, node) as unknown as AwsNodeJson);
    },
  );

  app.post(
    "/v1/nodes/oci",
    {
      preValidation: acceptOnly("application/json"),
      schema: {
        operationId: "createOciNode",
        tags: ["nodes"],
        summary: "Create an OCI node",
        description: `CreateOciNode. ${ACCEPTED} The answer is the request as the Manager accepted it. A node id in use is a 409.`,
        body: OciNodeInput,
        response: { 202: OciNode, ...errorResponses(400, 409, 415) },
      },
    },
    async (request, reply) => {
      const node = messageFromJson(CreateOciNodeRequestSchema, request.body);
      await client.createOciNode(node, callOptions(request, reply));
      return reply.code(202).send(messageToJson(CreateOciNodeRequestSchema, node) as unknown as OciNodeJson);
    },
  );

  app.delete(
    "/v1/nodes/:nodeId",
    {
      schema: {
        operationId: "terminateNode",
        tags: ["nodes"],
        summary: "Terminate a node",
        description:
          "TerminateNode, for a cloud or a physical node. Accepted: the Manager stops the job instances on the node and " +
          "the node; GET /v1/events reports nodeStopping, a jobUpdated for each job that ran there, then nodeStopped.",
        params: NodeIdParams,
        response: { 202: Type.Null({ description: "Accepted; no body." }), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const { nodeId } = request.params;
      await client
        .terminateNode({ nodeId }, callOptions(request, reply))
        .catch(notFoundAs(`node ${JSON.stringify(nodeId)} does not exist`));
      // No payload at all (a 202, unlike a 204, would otherwise carry "null"); the typed reply
      // insists on one, so it is widened.
      const untyped: FastifyReply = reply;
      return untyped.code(202).send();
    },
  );

  app.put(
    "/v1/physical-nodes/:id",
    {
      preValidation: acceptOnly("application/json"),
      schema: {
        operationId: "updatePhysicalNode",
        tags: ["nodes"],
        summary: "Register or update a physical node",
        description:
          "UpdatePhysicalNode: registers the physical node, or updates the daemon version of one already registered; " +
          "GET /v1/events reports physicalNodeConnected. An id that belongs to a cloud node is a 400 (FAILED_PRECONDITION).",
        params: PhysicalNodeParams,
        body: PhysicalNodeUpdateInput,
        response: { 200: PhysicalNodeUpdate, ...errorResponses(400, 415) },
      },
    },
    async (request, reply) => {
      const update = messageFromJson(UpdatePhysicalNodeRequestSchema, request.body);
      const { id } = request.params;
      if (update.id !== "" && update.id !== id) {
        throw badRequest("id in the body differs from the path", [{ pointer: "/id", message: "must equal the id of the path" }]);
      }
      update.id = id;
      await client.updatePhysicalNode(update, callOptions(request, reply));
      return reply.code(200).send(messageToJson(UpdatePhysicalNodeRequestSchema, update) as unknown as PhysicalNodeUpdateJson);
    },
  );

  done();
};

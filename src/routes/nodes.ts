// Nodes (docs/architecture.md, "HTTP surface"): create an AWS or OCI node, terminate a node,
// register or update a physical node. Each route makes one gRPC call. Creating and terminating are
// accepted (202):
// the node starts or stops later, which GET /v1/events reports (nodeStarting, nodeStarted,
// nodeStopping, nodeStopped). The bodies are the request messages through the mirror.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import {
  CreateAwsNodeRequestSchema,
  CreateOciNodeRequestSchema,
  UpdatePhysicalNodeRequestSchema,
} from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { messageFromJson, messageToJson } from "../json/index.js";
// The mirror's output has the response schema's type by construction (test/schemas checks it).
import {
  AwsNodeJson,
  AwsNodeInputJson,
  NodeIdParams,
  OciNodeJson,
  OciNodeInputJson,
  PhysicalNodeParams,
  PhysicalNodeUpdateJson,
  PhysicalNodeUpdateInputJson,
} from "../../schemas/nodes.js";
import { invalidArgument, notFoundAs } from "../http/problem.js";
import { seenThrough, unaryCallOptions } from "../operations/call-options.js";
import type { ManagerRouteOptions } from "../operations/job-access.js";
import { errorResponses } from "../http/responses.js";
import { statusOf } from "../http/status.js";
import { acceptOnly } from "../http/content-type.js";
import { needs } from "../auth/scopes.js";

const ACCEPTED = "Accepted: the Manager starts the node; GET /v1/events reports nodeStarting, then nodeStarted.";
const IN_USE = `A node id in use is a ${statusOf("ALREADY_EXISTS")}.`;

// The options of each route (its schema, and which bodies it reads), named after its operation.

const CREATE_AWS_NODE = {
  config: needs("nodes:write"),
  schema: {
    operationId: "createAwsNode",
    tags: ["nodes"],
    summary: "Create an AWS node",
    description: `CreateAwsNode. ${ACCEPTED} The answer is the request as the Manager accepted it. ${IN_USE}`,
    body: AwsNodeInputJson,
    response: { 202: AwsNodeJson, ...errorResponses("INVALID_ARGUMENT", "ALREADY_EXISTS", "UNSUPPORTED_MEDIA_TYPE") },
  },
  preValidation: acceptOnly("application/json"),
};

const CREATE_OCI_NODE = {
  config: needs("nodes:write"),
  schema: {
    operationId: "createOciNode",
    tags: ["nodes"],
    summary: "Create an OCI node",
    description: `CreateOciNode. ${ACCEPTED} The answer is the request as the Manager accepted it. ${IN_USE}`,
    body: OciNodeInputJson,
    response: { 202: OciNodeJson, ...errorResponses("INVALID_ARGUMENT", "ALREADY_EXISTS", "UNSUPPORTED_MEDIA_TYPE") },
  },
  preValidation: acceptOnly("application/json"),
};

const TERMINATE_NODE = {
  config: needs("nodes:write"),
  schema: {
    operationId: "terminateNode",
    tags: ["nodes"],
    summary: "Terminate a node",
    description:
      "TerminateNode, for a cloud or a physical node. Accepted: the Manager stops the job instances on the node and " +
      "the node; GET /v1/events reports nodeStopping, a jobUpdated for each job that ran there, then nodeStopped.",
    params: NodeIdParams,
    response: { 202: Type.Null({ description: "Accepted; no body." }), ...errorResponses("INVALID_ARGUMENT", "NOT_FOUND") },
  },
};

const UPDATE_PHYSICAL_NODE = {
  config: needs("nodes:write"),
  schema: {
    operationId: "updatePhysicalNode",
    tags: ["nodes"],
    summary: "Register or update a physical node",
    description:
      "UpdatePhysicalNode: registers the physical node, or updates the daemon version of one already registered; " +
      `GET /v1/events reports physicalNodeConnected. An id that belongs to a cloud node is a ${statusOf("FAILED_PRECONDITION")} (FAILED_PRECONDITION).`,
    params: PhysicalNodeParams,
    body: PhysicalNodeUpdateInputJson,
    response: { 200: PhysicalNodeUpdateJson, ...errorResponses("INVALID_ARGUMENT", "FAILED_PRECONDITION", "UNSUPPORTED_MEDIA_TYPE") },
  },
  preValidation: acceptOnly("application/json"),
};

/** The node routes: each handler is a named function of the plugin, calling the Manager with its client. */
export const nodeRoutes: FastifyPluginCallbackTypebox<ManagerRouteOptions> = (app, options, done) => {
  const { client, requestTimeoutMs } = options;

  app.post("/v1/nodes/aws", CREATE_AWS_NODE, async function createAwsNode(request, reply) {
    const node = messageFromJson(CreateAwsNodeRequestSchema, request.body);
    await client.createAwsNode(node, seenThrough(unaryCallOptions(request, reply, requestTimeoutMs)));
    return reply.code(202).send(messageToJson(CreateAwsNodeRequestSchema, node) as unknown as AwsNodeJson);
  });

  app.post("/v1/nodes/oci", CREATE_OCI_NODE, async function createOciNode(request, reply) {
    const node = messageFromJson(CreateOciNodeRequestSchema, request.body);
    await client.createOciNode(node, seenThrough(unaryCallOptions(request, reply, requestTimeoutMs)));
    return reply.code(202).send(messageToJson(CreateOciNodeRequestSchema, node) as unknown as OciNodeJson);
  });

  app.delete("/v1/nodes/:nodeId", TERMINATE_NODE, async function terminateNode(request, reply) {
    const { nodeId } = request.params;
    await client
      .terminateNode({ nodeId }, seenThrough(unaryCallOptions(request, reply, requestTimeoutMs)))
      .catch(notFoundAs(`node ${JSON.stringify(nodeId)} does not exist`));
    // No payload at all (a 202, unlike a 204, would otherwise carry "null"); the typed reply
    // insists on one, so it is widened.
    const untyped: FastifyReply = reply;
    return untyped.code(202).send();
  });

  app.put("/v1/physical-nodes/:id", UPDATE_PHYSICAL_NODE, async function updatePhysicalNode(request, reply) {
    const update = messageFromJson(UpdatePhysicalNodeRequestSchema, request.body);
    const { id } = request.params;
    if (update.id !== "" && update.id !== id) {
      throw invalidArgument("id in the body differs from the path", { errors: [{ pointer: "/id", message: "must equal the id of the path" }] });
    }
    update.id = id;
    await client.updatePhysicalNode(update, seenThrough(unaryCallOptions(request, reply, requestTimeoutMs)));
    return reply.code(200).send(messageToJson(UpdatePhysicalNodeRequestSchema, update) as unknown as PhysicalNodeUpdateJson);
  });

  done();
};

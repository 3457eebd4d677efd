// Nodes: CreateAwsNode, CreateOciNode, TerminateNode and UpdatePhysicalNode.
//
// There is no cloud behind the reference Manager: a created node is recorded (persisted) and
// reported started at once, with node_starting then node_started; its running metadata is
// made up (instance id "i-<node id>" for AWS), and its architecture is reported as x86_64.
// Cloud and physical nodes share one id space. TerminateNode accepts either kind: it stops
// the instances on the node (job_stopping with reason JOB_STOPPED_NODE_TERMINATED, then
// job_stopped), forgets the node, and emits node_stopping(USER_REQUESTED), a job_updated per
// affected job, then node_stopped.
import { create, toBinary } from "@bufbuild/protobuf";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import type { Empty } from "@bufbuild/protobuf/wkt";
import {
  EventStreamEventSchema,
  JobHistoryJobStopping_Reason,
  NodeStartedSchema,
  NodeStopping_Reason,
  PhysicalNodeSchema,
} from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type {
  CreateAwsNodeRequest,
  CreateOciNodeRequest,
  Manager,
  NodeStarted,
  UpdatePhysicalNodeRequest,
} from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Architecture } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import type { NodeId } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import type { ServiceImpl } from "norsk-manager-contract/grpc/index.js";
import { commit } from "./context.js";
import type { ManagerContext } from "./context.js";
import { alreadyExists, failedPrecondition, notFound, required, requiredId } from "./errors.js";
import { settleState, stopInstance } from "./lifecycle.js";
import { decodePhysicalNode, jobUpdatedEvent, runningJob } from "./picture.js";
import type { NodeKind } from "./store.js";

type NodeHandlers = Pick<
  ServiceImpl<typeof Manager>,
  "createAwsNode" | "createOciNode" | "terminateNode" | "updatePhysicalNode"
>;

export function nodeHandlers(context: ManagerContext): NodeHandlers {
  return {
    createAwsNode: (request) => createAwsNode(context, request),
    createOciNode: (request) => createOciNode(context, request),
    terminateNode: (request) => terminateNode(context, request),
    updatePhysicalNode: (request) => updatePhysicalNode(context, request),
  };
}

function createAwsNode(context: ManagerContext, request: CreateAwsNodeRequest): Empty {
  return createCloudNode(context, "aws", request.nodeId?.nodeId, (id) =>
    create(NodeStartedSchema, {
      nodeMetadata: {
        nodeId: { nodeId: id },
        tags: request.tags,
        createdAt: context.now(),
        providerMetadata: {
          metadata: {
            case: "aws",
            value: { instanceType: request.instanceType, region: request.region, architecture: Architecture.X86_64 },
          },
        },
      },
      runningNodeMetadata: { providerMetadata: { instance: { case: "aws", value: { instanceId: `i-${id}` } } } },
    }),
  );
}

function createOciNode(context: ManagerContext, request: CreateOciNodeRequest): Empty {
  return createCloudNode(context, "oci", request.nodeId?.nodeId, (id) =>
    create(NodeStartedSchema, {
      nodeMetadata: {
        nodeId: { nodeId: id },
        tags: request.tags,
        createdAt: context.now(),
        providerMetadata: { metadata: { case: "oci", value: {} } },
      },
      runningNodeMetadata: { providerMetadata: { instance: { case: "oci", value: {} } } },
    }),
  );
}

/** Records a new cloud node, `record` building its NodeStarted, and reports it started. */
function createCloudNode(
  context: ManagerContext,
  kind: Exclude<NodeKind, "physical">,
  nodeId: string | undefined,
  record: (id: string) => NodeStarted,
): Empty {
  const { store } = context;
  const id = requiredId(nodeId, "node_id");
  if (store.node(id) !== undefined) throw alreadyExists(`node ${id} already exists`);
  const started = record(id);
  commit(
    context,
    () => {
      store.putNode({ id, kind, record: toBinary(NodeStartedSchema, started), daemonVersion: "" });
    },
    () => ({
      events: [
        create(EventStreamEventSchema, { event: { case: "nodeStarting", value: { nodeMetadata: started.nodeMetadata } } }),
        create(EventStreamEventSchema, { event: { case: "nodeStarted", value: started } }),
      ],
      summary: `${kind} node ${id} started`,
    }),
  );
  return create(EmptySchema);
}

function terminateNode(context: ManagerContext, request: NodeId): Empty {
  const { store } = context;
  const id = required(request.nodeId, "node_id");
  if (store.node(id) === undefined) throw notFound(`node ${id} not found`);
  const now = context.now();
  commit(
    context,
    () => {
      const instances = store.instancesOn(id);
      for (const instance of instances) {
        stopInstance(store, instance, now, JobHistoryJobStopping_Reason.JOB_STOPPED_NODE_TERMINATED);
      }
      const jobIds = [...new Set(instances.map((i) => i.jobId))];
      for (const jobId of jobIds) settleState(store, jobId);
      store.deleteNode(id);
      return jobIds;
    },
    (jobIds) => ({
      events: [
        create(EventStreamEventSchema, {
          event: { case: "nodeStopping", value: { nodeId: { nodeId: id }, reason: NodeStopping_Reason.USER_REQUESTED } },
        }),
        ...jobIds.map((jobId) => jobUpdatedEvent(store, jobId)),
        create(EventStreamEventSchema, { event: { case: "nodeStopped", value: { nodeId: { nodeId: id } } } }),
      ],
      summary: `node ${id} terminated`,
    }),
  );
  return create(EmptySchema);
}

// Upserts a physical node. PhysicalNode has no place for daemon_version, so it is kept beside
// the record; tags and ip_address (not in the request) keep their stored values. A new node's
// id must follow the id rule (requiredId).
function updatePhysicalNode(context: ManagerContext, request: UpdatePhysicalNodeRequest): Empty {
  const { store } = context;
  const id = required(request.id, "id");
  const existing = store.node(id);
  if (existing === undefined) requiredId(id, "id");
  if (existing !== undefined && existing.kind !== "physical") {
    throw failedPrecondition(`node ${id} is an ${existing.kind.toUpperCase()} node, not a physical one`);
  }
  const node = existing === undefined ? create(PhysicalNodeSchema, { id }) : decodePhysicalNode(existing);
  commit(
    context,
    () => {
      store.putNode({ id, kind: "physical", record: toBinary(PhysicalNodeSchema, node), daemonVersion: request.daemonVersion });
    },
    () => ({
      events: [
        create(EventStreamEventSchema, {
          event: { case: "physicalNodeConnected", value: { node, instances: store.instancesOn(id).map(runningJob) } },
        }),
      ],
      summary: `physical node ${id} connected (daemon ${request.daemonVersion === "" ? "version unknown" : request.daemonVersion})`,
    }),
  );
  return create(EmptySchema);
}

// What the reads from the Manager's current picture answer (docs/architecture.md, "Reads from
// the picture"): the nodes, a job's activity and the providers' health. The picture's own
// messages (NodeMetadata, RunningNodeMetadata, PhysicalNode, RunningJob, JobWithHistory,
// ProviderHealth) are the components /v1/events already uses; these objects only gather them.
import { Type } from "@sinclair/typebox";
import type { Static } from "@sinclair/typebox";
import { IdOf, StringMap, doc, named } from "./common.js";
import { ProviderHealthJson } from "./events.js";
import { JobWithHistoryJson } from "./history.js";
import { RunningJobJson } from "./job.js";
import { NodeMetadataJson, PhysicalNodeJson, RunningNodeMetadataJson } from "./nodes.js";

const closed = { additionalProperties: false } as const;

/** One of `values`: a string enum (a union of literals would be an anyOf to the document). */
function literalsOf<const T extends readonly string[]>(values: T, options: { description: string; examples: string[] }) {
  return Type.Unsafe<T[number]>(Type.String({ enum: [...values], ...options }));
}

/**
 * A node's state as the picture tells it: the picture lists cloud nodes that are running
 * (NodeRunning) and physical nodes that are connected (PhysicalNodeConnected), nothing else.
 */
export const NODE_STATES = ["running", "connected"] as const;
export type NodeState = (typeof NODE_STATES)[number];

/** Where a node runs: a cloud provider (its providerMetadata member), or a physical node. */
export const NODE_CLOUDS = ["aws", "oci", "test", "physical"] as const;
export type NodeCloud = (typeof NODE_CLOUDS)[number];

const NodeStateJson = named(
  literalsOf(NODE_STATES, {
      description:
        "running: a cloud node the Manager has started (the picture's nodeRunning); connected: a physical node the Manager " +
        "knows (physicalNodeConnected). Nodes starting or stopping are not in the picture; /v1/events reports them.",
      examples: ["running"],
  }),
  "NodeState",
);

const NodeCloudJson = named(
  literalsOf(NODE_CLOUDS, {
      description: "aws, oci or test: a cloud node's provider (its providerMetadata); physical: a physical node.",
      examples: ["aws"],
  }),
  "NodeCloud",
);

const PHYSICAL_EXAMPLE = {
  nodeId: "rack-7",
  cloud: "physical",
  state: "connected",
  tags: {},
  physicalNode: { id: "rack-7", tags: {}, ipAddress: "" },
  instances: [],
};

export const NodeJson = named(
  Type.Object(
    {
      nodeId: Type.String({ description: "The node's id (\"\" when the Manager sent none).", examples: ["aws-node-1"] }),
      cloud: Type.Optional(doc(NodeCloudJson, "Where the node runs (omitted for a cloud node whose provider the Manager did not say).")),
      state: NodeStateJson,
      tags: doc(StringMap, "Tags of the node (name → value): its nodeMetadata's, or its physicalNode's.", { env: "prod" }),
      nodeMetadata: Type.Optional(doc(NodeMetadataJson, "A cloud node: the node (omitted when unset, and for a physical node).")),
      runningNodeMetadata: Type.Optional(doc(RunningNodeMetadataJson, "A cloud node: its addresses (omitted when unset, and for a physical node).")),
      physicalNode: Type.Optional(doc(PhysicalNodeJson, "A physical node: the node (omitted when unset, and for a cloud node).")),
      instances: Type.Array(RunningJobJson, { description: "The job instances running on the node.", examples: [[]] }),
    },
    // The example is a physical node's: a cloud node's createdAt and addresses are the Manager's.
    { ...closed, description: "A node in the Manager's current picture, with its running metadata and instances.", examples: [PHYSICAL_EXAMPLE] },
  ),
  "Node",
);
export type NodeJson = Static<typeof NodeJson>;

export const NodeListJson = named(
  Type.Object(
    { nodes: Type.Array(NodeJson, { description: "The nodes: cloud nodes, then physical nodes, each in the Manager's order." }) },
    { ...closed, description: "The nodes of the Manager's current picture.", examples: [{ nodes: [] }] },
  ),
  "NodeList",
);
export type NodeListJson = Static<typeof NodeListJson>;

/** The most values each repeatable parameter of GET /v1/nodes takes. */
export const NODE_FILTER_MAX_VALUES = 32;
/** The longest tag parameter, name:value, in characters. */
export const TAG_PARAMETER_MAX_LENGTH = 1024;

export const NodeListQuery = Type.Object(
  {
    cloud: Type.Optional(
      Type.Array(NodeCloudJson, { maxItems: NODE_FILTER_MAX_VALUES, description: "Only nodes of one of these clouds. Repeatable (any of them).", examples: [["physical"]] }),
    ),
    tag: Type.Optional(
      Type.Array(Type.String({ minLength: 2, maxLength: TAG_PARAMETER_MAX_LENGTH, pattern: "^[^:]+:" }), {
        maxItems: NODE_FILTER_MAX_VALUES,
        description: "Only nodes with this tag: name:value (the name is everything before the first colon). Repeatable (all of them).",
        examples: [["env:prod"]],
      }),
    ),
    state: Type.Optional(
      Type.Array(NodeStateJson, { maxItems: NODE_FILTER_MAX_VALUES, description: "Only nodes in one of these states. Repeatable (any of them).", examples: [["connected"]] }),
    ),
  },
  { additionalProperties: false, $id: "NodeListQuery", description: "Node filters, combined with AND." },
);
export type NodeListQueryJson = Static<typeof NodeListQuery>;

export const NodeByIdParams = Type.Object({ nodeId: IdOf("The node's id (a cloud node's or a physical node's).", "rack-7") }, closed);

/** What the picture says of a job: a member of it (active or pending), or neither. */
export const JOB_ACTIVITIES = ["active", "pending", "none"] as const;

const JobActivityStateJson = named(
  literalsOf(JOB_ACTIVITIES, {
      description:
        "active: the picture's jobActive; pending: its jobPending (a job in state pre, read with a pending window reaching its " +
        "startDateTime); none: the job exists but the picture holds neither (a job in state post).",
      examples: ["active"],
  }),
  "JobActivityState",
);

export const JobActivityJson = named(
  Type.Object(
    {
      jobId: IdOf("The job's id.", "encoder-1"),
      activity: JobActivityStateJson,
      jobWithHistory: Type.Optional(doc(JobWithHistoryJson, "The job and its history as the picture carries them (omitted when activity is none).")),
    },
    { ...closed, description: "A job's activity and history, from the Manager's current picture.", examples: [{ jobId: "encoder-1", activity: "none" }] },
  ),
  "JobActivity",
);
export type JobActivityJson = Static<typeof JobActivityJson>;

export const CloudHealthJson = named(
  Type.Object(
    { health: Type.Array(ProviderHealthJson, { description: "The cloud providers' health, as the Manager's InitialDataComplete gives it.", examples: [[]] }) },
    { ...closed, description: "The cloud providers' health (not the gateway's: that is /healthz and /readyz).", examples: [{ health: [] }] },
  ),
  "CloudHealth",
);
export type CloudHealthJson = Static<typeof CloudHealthJson>;

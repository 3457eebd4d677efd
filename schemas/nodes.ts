// Nodes: the request bodies of CreateAwsNode, CreateOciNode and UpdatePhysicalNode, and the
// node descriptions that events carry (NodeMetadata, RunningNodeMetadata, PhysicalNode), as
// the mirror writes them (docs/architecture.md, "JSON rules"): inside these messages every scalar,
// map and repeated field is emitted, while sub-messages, flattened ids and oneof members only when
// set.
import { Type } from "@sinclair/typebox";
import type { Static } from "@sinclair/typebox";
import { IdOf, StringMap, Timestamp, doc, named } from "./common.js";
import { Architecture, NorskVersion } from "./enums.js";
import { InputOf } from "./variants.js";

const closed = { additionalProperties: false } as const;
const str = (description: string, example: string) => Type.String({ description, examples: [example] });
// Said by the message whose members they are, not again by each member.
const oneOf = (members: string) => `At most one of ${members} is set (a oneof).`;

const AwsMetadata = named(
  Type.Object(
    {
      instanceType: str("EC2 instance type.", "c5.2xlarge"),
      region: str("AWS region.", "eu-west-1"),
      architecture: doc(Architecture, "CPU architecture of the node.", "x86_64"),
    },
    { ...closed, description: "What and where an AWS node is.", examples: [{ instanceType: "c5.2xlarge", region: "eu-west-1", architecture: "x86_64" }] },
  ),
  "AwsMetadata",
);

const Empty = (name: string, description: string) => named(Type.Object({}, { ...closed, description, examples: [{}] }), name);

const ProviderMetadata = named(
  Type.Object(
    {
      aws: Type.Optional(doc(AwsMetadata, "An AWS node.")),
      oci: Type.Optional(doc(Empty("OciMetadata", "An OCI node (no further metadata)."), "An OCI node.")),
      test: Type.Optional(doc(AwsMetadata, "A test node, described as an AWS one.")),
    },
    { ...closed, description: `The node's provider. ${oneOf("aws, oci, test")}`, examples: [{ oci: {} }] },
  ),
  "ProviderMetadata",
);

export const NodeMetadataJson = named(
  Type.Object(
    {
      nodeId: Type.Optional(str("The node's id (omitted when unset).", "aws-node-1")),
      tags: doc(StringMap, "Tags of the node (name → value).", { env: "prod" }),
      createdAt: Type.Optional(doc(Timestamp, "When the node was created (omitted when unset).", "2026-12-24T17:00:00Z")),
      providerMetadata: Type.Optional(doc(ProviderMetadata, "The node's provider (omitted when unset).")),
    },
    { ...closed, description: "A node as the Manager knows it.", examples: [{ nodeId: "aws-node-1", tags: {} }] },
  ),
  "NodeMetadata",
);

const RunningAwsMetadata = named(
  Type.Object(
    { instanceId: str("EC2 instance id.", "i-0123456789abcdef0") },
    { ...closed, description: "A running AWS instance.", examples: [{ instanceId: "i-0123456789abcdef0" }] },
  ),
  "RunningAwsMetadata",
);

const RunningNodeProviderMetadata = named(
  Type.Object(
    {
      aws: Type.Optional(doc(RunningAwsMetadata, "An AWS instance.")),
      oci: Type.Optional(doc(Empty("RunningOciMetadata", "An OCI instance (no further metadata)."), "An OCI instance.")),
      test: Type.Optional(doc(RunningAwsMetadata, "A test instance, described as an AWS one.")),
    },
    { ...closed, description: `The running instance at the provider. ${oneOf("aws, oci, test")}`, examples: [{ oci: {} }] },
  ),
  "RunningNodeProviderMetadata",
);

export const RunningNodeMetadataJson = named(
  Type.Object(
    {
      publicDnsName: str("Public DNS name (\"\" when none).", "ec2-203-0-113-10.eu-west-1.compute.amazonaws.com"),
      privateDnsName: str("Private DNS name (\"\" when none).", "ip-10-0-0-10.eu-west-1.compute.internal"),
      privateIpAddress: str("Private IP address (\"\" when none).", "10.0.0.10"),
      providerMetadata: Type.Optional(doc(RunningNodeProviderMetadata, "The instance at the provider (omitted when unset).")),
      publicIpAddress: str("Public IP address (\"\" when none).", "203.0.113.10"),
    },
    {
      ...closed,
      description: "A started node's addresses.",
      examples: [{ publicDnsName: "", privateDnsName: "", privateIpAddress: "10.0.0.10", publicIpAddress: "" }],
    },
  ),
  "RunningNodeMetadata",
);

export const PhysicalNodeJson = named(
  Type.Object(
    {
      id: str("The physical node's id.", "rack-7"),
      tags: doc(StringMap, "Tags of the node (name → value).", { site: "oslo" }),
      ipAddress: str("IP address of the node (\"\" when unknown).", "192.0.2.7"),
    },
    { ...closed, description: "A physical (non-cloud) node.", examples: [{ id: "rack-7", tags: {}, ipAddress: "" }] },
  ),
  "PhysicalNode",
);

const workerVersions = {
  workerImageVersion: doc(NorskVersion, "Release channel of the worker's machine image.", "recommended"),
  workerDaemonVersion: doc(NorskVersion, "Release channel of the worker's host daemon.", "recommended"),
};

const AwsLaunchTemplate = named(
  Type.Object(
    {
      id: Type.Optional(str("Launch template id.", "lt-0123456789abcdef0")),
      name: Type.Optional(str("Launch template name.", "norsk-worker")),
      version: str("Launch template version (\"\" for the default one).", "3"),
    },
    { ...closed, description: `An EC2 launch template, by id or by name. ${oneOf("id, name")}`, examples: [{ name: "norsk-worker", version: "3" }] },
  ),
  "AwsLaunchTemplate",
);

export const AwsNodeJson = named(
  Type.Object(
    {
      nodeId: Type.Optional(IdOf("The new node's id.", "aws-node-1")),
      tags: doc(StringMap, "Tags of the node (name → value).", { env: "prod" }),
      region: str("AWS region to start the node in.", "eu-west-1"),
      instanceType: str("EC2 instance type.", "c5.2xlarge"),
      template: Type.Optional(doc(AwsLaunchTemplate, "Launch template to start the node from (omitted when unset).")),
      ...workerVersions,
    },
    {
      ...closed,
      description: "An AWS node to create (CreateAwsNodeRequest), as the Manager accepted it.",
      examples: [
        {
          nodeId: "aws-node-1",
          tags: { env: "prod" },
          region: "eu-west-1",
          instanceType: "c5.2xlarge",
          workerImageVersion: "recommended",
          workerDaemonVersion: "recommended",
        },
      ],
    },
  ),
  "AwsNode",
);
export type AwsNodeJson = Static<typeof AwsNodeJson>;
export const AwsNodeInputJson = InputOf(AwsNodeJson, {
  name: "AwsNodeInput",
  description:
    "An AWS node to create (CreateAwsNodeRequest). Only nodeId is required; other fields default to their zero value, " +
    "null means absent, unknown properties are rejected.",
  required: ["nodeId"],
});

export const OciNodeJson = named(
  Type.Object(
    {
      nodeId: Type.Optional(IdOf("The new node's id.", "oci-node-1")),
      tags: doc(StringMap, "Tags of the node (name → value).", { env: "prod" }),
      availabilityDomain: str("OCI availability domain to start the node in.", "AD-1"),
      architecture: str("CPU architecture of the node, such as x86_64 or aarch_64.", "x86_64"),
      shape: str("OCI instance shape.", "VM.Standard.E4.Flex"),
      subnet: str("Subnet the node is placed in.", "subnet-1"),
      ...workerVersions,
    },
    {
      ...closed,
      description: "An OCI node to create (CreateOciNodeRequest), as the Manager accepted it.",
      examples: [
        {
          nodeId: "oci-node-1",
          tags: {},
          availabilityDomain: "AD-1",
          architecture: "x86_64",
          shape: "VM.Standard.E4.Flex",
          subnet: "subnet-1",
          workerImageVersion: "recommended",
          workerDaemonVersion: "recommended",
        },
      ],
    },
  ),
  "OciNode",
);
export type OciNodeJson = Static<typeof OciNodeJson>;
export const OciNodeInputJson = InputOf(OciNodeJson, {
  name: "OciNodeInput",
  description:
    "An OCI node to create (CreateOciNodeRequest). Only nodeId is required; other fields default to their zero value, " +
    "null means absent, unknown properties are rejected.",
  required: ["nodeId"],
});

export const PhysicalNodeUpdateJson = named(
  Type.Object(
    {
      id: str("The physical node's id (the path's id).", "rack-7"),
      daemonVersion: str("Version of the host daemon running on the node (\"\" when unknown).", "1.0.384"),
    },
    {
      ...closed,
      description: "A physical node as registered or updated (UpdatePhysicalNodeRequest).",
      examples: [{ id: "rack-7", daemonVersion: "1.0.384" }],
    },
  ),
  "PhysicalNodeUpdate",
);
export type PhysicalNodeUpdateJson = Static<typeof PhysicalNodeUpdateJson>;
export const PhysicalNodeUpdateInputJson = InputOf(PhysicalNodeUpdateJson, {
  name: "PhysicalNodeUpdateInput",
  description:
    "Registers a physical node or updates it (UpdatePhysicalNodeRequest). The id comes from the path; an id in the body " +
    "must equal it. null means absent, unknown properties are rejected.",
});

export const NodeIdParams = Type.Object(
  { nodeId: IdOf("The node's id.", "aws-node-1") },
  { additionalProperties: false },
);

export const PhysicalNodeParams = Type.Object(
  { id: IdOf("The physical node's id.", "rack-7") },
  { additionalProperties: false },
);

// norsk.api.common.Service and what it contains, as the mirror emits them. Inside these nested
// messages every scalar, repeated and map field is always emitted (required below, zero values
// included); sub-messages, flattened wrappers and oneof members are emitted only when set.
import { Type } from "@sinclair/typebox";
import type { Static } from "@sinclair/typebox";
import { Uint32, Uint64String, doc, named } from "./common.js";
import { ProtocolFamily, ServiceRestart } from "./enums.js";

const closed = { additionalProperties: false } as const;

const HostPortEphemeral = named(Type.Object({}, { ...closed, description: "The host picks a free port.", examples: [{}] }), "HostPortEphemeral");

const HostPortRange = named(
  Type.Object(
    {
      minPort: doc(Uint32, "First host port of the range.", 6000),
      maxPort: doc(Uint32, "Last host port of the range (inclusive).", 6010),
    },
    { ...closed, description: "A host port from a range.", examples: [{ minPort: 6000, maxPort: 6010 }] },
  ),
  "HostPortRange",
);

const HostPortSpecific = named(
  Type.Object(
    { port: doc(Uint32, "The host port.", 80) },
    { ...closed, description: "One specific host port.", examples: [{ port: 80 }] },
  ),
  "HostPortSpecific",
);

export const PortMappingJson = named(
  Type.Object(
    {
      containerPort: doc(Uint32, "Port inside the container.", 8080),
      protocol: doc(ProtocolFamily, "Transport protocol of the port.", "tcp"),
      ephemeral: Type.Optional(doc(HostPortEphemeral, "Host port: any free one.", {})),
      range: Type.Optional(doc(HostPortRange, "Host port: one from a range.")),
      specific: Type.Optional(doc(HostPortSpecific, "Host port: this one.")),
      hostAddress: Type.String({ description: "Host address to bind (\"\" for the default).", examples: ["0.0.0.0"] }),
      group: Type.String({ description: "Port group label (\"\" for none).", examples: ["g"] }),
    },
    {
      ...closed,
      description: "A container port published on the host. The host port is at most one of ephemeral, range, specific (a oneof).",
      examples: [{ containerPort: 8080, protocol: "tcp", specific: { port: 80 }, hostAddress: "0.0.0.0", group: "" }],
    },
  ),
  "PortMapping",
);

export const EnvironmentVariableJson = named(
  Type.Object(
    {
      name: Type.String({ description: "Variable name.", examples: ["LOG_LEVEL"] }),
      value: Type.String({ description: "Variable value.", examples: ["debug"] }),
    },
    { ...closed, description: "An environment variable of the container.", examples: [{ name: "LOG_LEVEL", value: "debug" }] },
  ),
  "EnvironmentVariable",
);

export const VolumeMountJson = named(
  Type.Object(
    {
      volumeName: Type.String({ description: "Name of the volume (see the job's volumes).", examples: ["media"] }),
      containerPath: Type.String({ description: "Mount point inside the container.", examples: ["/data"] }),
      readOnly: Type.Boolean({ description: "Whether the mount is read-only.", examples: [false] }),
    },
    { ...closed, description: "A volume mounted into the container.", examples: [{ volumeName: "media", containerPath: "/data", readOnly: false }] },
  ),
  "VolumeMount",
);

export const ServiceParametersJson = named(
  Type.Object(
    {
      portMappings: Type.Array(PortMappingJson, { description: "Ports published on the host.", examples: [[]] }),
      environmentVariables: Type.Array(EnvironmentVariableJson, { description: "Environment of the container.", examples: [[]] }),
      sharedMemorySize: Type.Optional(doc(Uint64String, "Size of /dev/shm in bytes (omitted when unset).", "67108864")),
      cpuSet: Type.Array(Uint32, { description: "CPUs the container may run on.", examples: [[0, 2]] }),
      volumeMounts: Type.Array(VolumeMountJson, { description: "Volumes mounted into the container.", examples: [[]] }),
    },
    {
      ...closed,
      description: "Container parameters of a service.",
      examples: [{ portMappings: [], environmentVariables: [], cpuSet: [1], volumeMounts: [] }],
    },
  ),
  "ServiceParameters",
);

const DockerContainer = named(
  Type.Object(
    { containerUrl: Type.Optional(Type.String({ description: "Image reference (omitted when unset).", examples: ["docker.io/norsk/norsk:1.2"] })) },
    { ...closed, description: "A Docker container.", examples: [{ containerUrl: "docker.io/norsk/norsk:1.2" }] },
  ),
  "DockerContainer",
);

export const ServiceJson = named(
  Type.Object(
    {
      name: Type.String({ description: "Name of the service within the job.", examples: ["norsk"] }),
      docker: Type.Optional(doc(DockerContainer, "The service's container (a oneof with one member; omitted when unset).")),
      restart: doc(ServiceRestart, "When the worker restarts the service.", "on_failure"),
      dependsOn: Type.Array(Type.String(), { description: "Services that must start first.", examples: [["db"]] }),
      configuration: Type.String({ description: "Service configuration, passed through.", examples: ["cfg"] }),
      restartCount: doc(Uint32, "Restarts allowed within restartPeriod.", 3),
      restartPeriod: doc(Uint32, "Window of restartCount, in seconds.", 60),
      command: Type.String({ description: "Command overriding the image's (\"\" for the image's own).", examples: ["run"] }),
      parameters: Type.Optional(doc(ServiceParametersJson, "Container parameters (omitted when unset).")),
    },
    {
      ...closed,
      description: "An additional service run as part of the job.",
      examples: [
        {
          name: "norsk",
          docker: { containerUrl: "docker.io/norsk/norsk:1.2" },
          restart: "on_failure",
          dependsOn: [],
          configuration: "",
          restartCount: 3,
          restartPeriod: 60,
          command: "",
        },
      ],
    },
  ),
  "Service",
);

export type ServiceJson = Static<typeof ServiceJson>;
export type ServiceParametersJson = Static<typeof ServiceParametersJson>;
export type PortMappingJson = Static<typeof PortMappingJson>;

// A job with its history (JobWithHistory), as job events carry it. Each history entry is one
// of seven kinds (a oneof: exactly one property set); where an instance ran is described by
// the node metadata of schemas/nodes.ts.
import { Type } from "@sinclair/typebox";
import type { TProperties } from "@sinclair/typebox";
import { MapOf, Timestamp, Uint32, doc, named } from "./common.js";
import { EnumOf, ProtocolFamily } from "./enums.js";
import { JobJson } from "./job.js";
import { NodeMetadataJson, RunningNodeMetadataJson } from "./nodes.js";

const closed = { additionalProperties: false } as const;
const at = { timestamp: Type.Optional(doc(Timestamp, "When it happened (omitted when unset).", "2026-12-24T18:00:00Z")) };

const placement = {
  ...at,
  role: Type.String({ description: "The role of the instance.", examples: ["primary"] }),
  nodeMetadata: Type.Optional(doc(NodeMetadataJson, "The node the instance is on (omitted when unset).")),
  runningNodeMetadata: Type.Optional(doc(RunningNodeMetadataJson, "The node's addresses (omitted when unset).")),
};

const entry = <P extends TProperties>(name: string, properties: P, description: string, example: object) =>
  named(Type.Object(properties, { ...closed, description, examples: [example] }), name);

const ResolvedPortMapping = named(
  Type.Object(
    {
      url: Type.String({ description: "Where the port is reached.", examples: ["srt://203.0.113.10:5001"] }),
      target: doc(Uint32, "Port inside the container.", 5001),
      published: doc(Uint32, "Port published on the host.", 5001),
      protocol: doc(ProtocolFamily, "Transport protocol of the port.", "udp"),
    },
    { ...closed, description: "A published port of a running service.", examples: [{ url: "", target: 5001, published: 5001, protocol: "udp" }] },
  ),
  "ResolvedPortMapping",
);

const ResolvedPortMappings = named(
  Type.Object(
    { mappings: Type.Array(ResolvedPortMapping, { description: "The service's published ports.", examples: [[]] }) },
    { ...closed, description: "The published ports of one service.", examples: [{ mappings: [] }] },
  ),
  "ResolvedPortMappings",
);

export const JobStoppingReason = EnumOf(
  "JobStoppingReason",
  "norsk.api.manager.JobHistoryJobStopping.Reason",
  ["job_stopped_node_stopped", "job_stopped_node_terminated", "job_stopped_user_requested", "job_stopped_unknown_job", "job_stopped_job_failed"] as const,
  "Why an instance of a job stopped.",
);

const KINDS = "jobCreated, jobUpdated, jobProvisioned, jobRunning, jobStopping, jobStopped, jobCompleted";
// A kind's description is its own; that the kinds are a oneof is said once, by the entry.
const kind = (description: string) => description;
const ts = { timestamp: "2026-12-24T18:00:00Z" };
const ran = { ...ts, role: "primary" };

const JobHistoryEntryJson = named(
  Type.Object(
    {
      jobCreated: Type.Optional(doc(entry("JobHistoryJobCreated", at, "The job was created.", ts), kind("The job was created."))),
      jobUpdated: Type.Optional(
        doc(
          entry("JobHistoryJobUpdated", { ...at, previousJob: Type.Optional(doc(JobJson, "The job as it was before (omitted when unset).")) }, "The job was replaced.", ts),
          kind("The job was replaced; previousJob is how it was before."),
        ),
      ),
      jobProvisioned: Type.Optional(doc(entry("JobHistoryJobProvisioned", placement, "A node was provisioned for an instance.", ran), kind("A node was provisioned for an instance."))),
      jobRunning: Type.Optional(
        doc(
          entry(
            "JobHistoryJobRunning",
            {
              ...placement,
              servicePortMappings: MapOf(ResolvedPortMappings, "Published ports by service name.", { norsk: { mappings: [] } }),
            },
            "An instance started running.",
            { ...ran, servicePortMappings: {} },
          ),
          kind("An instance started running."),
        ),
      ),
      jobStopping: Type.Optional(
        doc(
          entry("JobHistoryJobStopping", { ...placement, reason: doc(JobStoppingReason, "Why the instance stops.", "job_stopped_user_requested") }, "An instance is stopping.", {
            ...ran,
            reason: "job_stopped_user_requested",
          }),
          kind("An instance is stopping."),
        ),
      ),
      jobStopped: Type.Optional(doc(entry("JobHistoryJobStopped", placement, "An instance stopped.", ran), kind("An instance stopped."))),
      jobCompleted: Type.Optional(doc(entry("JobHistoryJobCompleted", at, "The job was completed.", ts), kind("The job was completed."))),
    },
    { ...closed, description: `One entry of a job's history. At most one of ${KINDS} is set (a oneof; none for a kind this gateway does not know).`, examples: [{ jobCreated: ts }] },
  ),
  "JobHistoryEntry",
);

export const JobWithHistoryJson = named(
  Type.Object(
    {
      job: Type.Optional(doc(JobJson, "The job (omitted when unset).")),
      historyEntry: Type.Array(JobHistoryEntryJson, { description: "What happened to the job, oldest first.", examples: [[{ jobCreated: ts }]] }),
    },
    { ...closed, description: "A job with its history.", examples: [{ historyEntry: [] }] },
  ),
  "JobWithHistory",
);

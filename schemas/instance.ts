// Request bodies of the job-instance routes (StartJob, StopJob).
import { Type } from "@sinclair/typebox";
import type { Static } from "@sinclair/typebox";
import { IdOf, named } from "./common.js";

export const StartInstanceJson = named(
  Type.Object(
    {
      role: IdOf("The role of this instance of the job.", "primary"),
      nodeId: IdOf("The node to start it on.", "node-1"),
    },
    {
      additionalProperties: false,
      description: "Start an instance of the job in a role on a node (StartJob).",
      examples: [{ role: "primary", nodeId: "node-1" }],
    },
  ),
  "StartInstance",
);
export type StartInstanceJson = Static<typeof StartInstanceJson>;

export const StopInstanceQuery = Type.Object(
  { nodeId: IdOf("The node the instance runs on.", "node-1") },
  { additionalProperties: false },
);

export const InstanceParams = Type.Object(
  {
    jobId: IdOf("The job's id.", "encoder-1"),
    role: IdOf("The instance's role.", "primary"),
  },
  { additionalProperties: false },
);

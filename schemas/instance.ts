// Request bodies of the job-instance routes (StartJob, StopJob).
import { Type } from "@sinclair/typebox";
import type { Static } from "@sinclair/typebox";

export const StartInstance = Type.Object(
  {
    role: Type.String({ minLength: 1, maxLength: 256, description: "The role of this instance of the job.", examples: ["primary"] }),
    nodeId: Type.String({ minLength: 1, maxLength: 256, description: "The node to start it on.", examples: ["node-1"] }),
  },
  {
    additionalProperties: false,
    $id: "StartInstance",
    description: "Start an instance of the job in a role on a node (StartJob).",
    examples: [{ role: "primary", nodeId: "node-1" }],
  },
);
export type StartInstanceJson = Static<typeof StartInstance>;

export const StopInstanceQuery = Type.Object(
  { nodeId: Type.String({ minLength: 1, maxLength: 256, description: "The node the instance runs on.", examples: ["node-1"] }) },
  { additionalProperties: false },
);

export const InstanceParams = Type.Object(
  {
    jobId: Type.String({ minLength: 1, maxLength: 256, description: "The job's id (URL-encoded: a / is %2F).", examples: ["encoder-1"] }),
    role: Type.String({ minLength: 1, maxLength: 256, description: "The instance's role.", examples: ["primary"] }),
  },
  { additionalProperties: false },
);

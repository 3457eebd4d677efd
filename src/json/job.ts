// The job resource through the mirror, typed by its TypeBox schema. The Job-specific presence
// rules are data in presence.ts (the generic plan applies them wherever a Job appears, also
// inside CurrentJob and history entries); this module only gives them a typed face.
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { JobJson } from "../../schemas/job.js";
import { messageFromJson, messageToJson } from "./mirror.js";

export type { JobJson };

/** A Job as the JSON the gateway answers (schemas/job.ts `JobJson`). */
export function jobToJson(job: Job): JobJson {
  // The mirror's output is the schema's type by construction; the property tests check it.
  return messageToJson(JobSchema, job) as unknown as JobJson;
}

/**
 * A Job from a request body. Every field is optional here (the proto3 zero value when
 * absent); the JobInput schema is what requires jobId and startDateTime. Throws a MirrorError.
 */
export function jobFromJson(json: unknown, basePointer = ""): Job {
  return messageFromJson(JobSchema, json, basePointer);
}

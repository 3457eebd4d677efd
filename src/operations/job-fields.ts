// fields= on job reads and searches (docs/guide/jobs.md, "A few fields"): a comma list of
// top-level Job JSON fields, answered with those fields only, jobId always among them. The
// names are JobJson's properties (schemas/job.ts), the one list of a Job's fields.
import fastJson from "fast-json-stringify";
import type { JobJson } from "../json/index.js";
import { serializerOptions } from "../http/validation.js";
import { JobJson as JobJsonSchema, PartialJobJson } from "../../schemas/job.js";

/** The top-level fields of a Job, in JobJson's order. */
export const JOB_FIELDS: readonly string[] = Object.keys(JobJsonSchema.properties);

/** The most names a fields= value may list: each field once, so the count of JobJson's fields. */
const MAX_FIELDS = JOB_FIELDS.length;

/**
 * The fields a fields= value names, jobId first and each once, in the order given; or what is
 * wrong with it, naming the first unknown field.
 */
export function parseFields(value: string): readonly string[] | string {
  const names = value.split(",");
  if (names.length > MAX_FIELDS * 2) return `must list at most ${MAX_FIELDS} fields`;
  const chosen = new Set<string>(["jobId"]);
  for (const name of names) {
    if (name === "") return "must be a comma-separated list of Job fields, without empty names";
    if (!JOB_FIELDS.includes(name)) return `names no field of a Job: ${JSON.stringify(name.slice(0, 64))} (the fields are ${JOB_FIELDS.join(", ")})`;
    chosen.add(name);
  }
  return [...chosen];
}

/** The job with only `fields` (those of them it has: a field the job omits stays omitted). */
export function projectJob(job: JobJson, fields: readonly string[]): Partial<JobJson> {
  const all = job as unknown as Record<string, unknown>;
  const partial: Record<string, unknown> = {};
  for (const name of fields) if (all[name] !== undefined) partial[name] = all[name];
  return partial;
}

/**
 * A serializer of partial jobs: the PartialJob schema the document shows (fastify's Job
 * serializer refuses a job without its required fields). Compiled once per caller.
 */
export function partialJobStringify(): (job: Partial<JobJson>) => string {
  return fastJson(PartialJobJson, serializerOptions);
}

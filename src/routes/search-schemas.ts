// The NDJSON form of a job search (GET /v1/jobs with Accept: application/x-ndjson): a schema for
// one line, since OpenAPI 3.1 has no way to say "a sequence of". The stream bypasses fastify's
// serializer; this schema documents it.
import { Type } from "@sinclair/typebox";
import { Problem } from "../../schemas/common.js";
import { Job } from "../../schemas/job.js";

export const NdjsonLine = Type.Union(
  [Job, Type.Object({ error: Problem }, { additionalProperties: false, description: "The search failed after the first job was sent." })],
  {
    description:
      "One line of application/x-ndjson: a job per line, in job id order. If the search fails after the first line, " +
      'the stream ends with one {"error": Problem} line, as the status can no longer change.',
  },
);

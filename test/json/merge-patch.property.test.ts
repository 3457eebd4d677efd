// mergePatchMessage converts only the fields a patch names; these properties hold it to the
// definition it must keep: the job whose JSON is the patch merged into the whole job's JSON
// (RFC 7396), with the unknown fields kept, and the input left as it was.
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { MirrorError } from "../../src/json/errors.js";
import { jobFromJson, jobToJson } from "../../src/json/job.js";
import { applyMergePatch, mergePatchMessage } from "../../src/json/merge-patch.js";
import { job } from "./arbitraries.js";

const runs = { numRuns: Number(process.env.FC_RUNS ?? 300) };
const NAMES = JobSchema.fields.map((field) => field.jsonName);

/** A patch: some of `source`'s fields (so objects merge key by key), some removed with null. */
const patch = fc
  .tuple(job, fc.subarray(NAMES), fc.subarray(NAMES))
  .map(([source, taken, removed]) => {
    const json = jobToJson(source) as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const name of taken) if (name in json) out[name] = json[name];
    for (const name of removed) out[name] = null;
    return out;
  });

/** The definition: merge into the whole job's JSON, then read the result as a job. */
function wholeJsonMerge(read: Job, body: Record<string, unknown>): Job | MirrorError {
  try {
    return jobFromJson(applyMergePatch(jobToJson(read), body));
  } catch (error) {
    if (error instanceof MirrorError) return error;
    throw error;
  }
}

/** The job as read from a newer Manager: field 99, unknown here, follows the known ones. */
function withUnknownField(message: Job): Job {
  return fromBinary(JobSchema, new Uint8Array([...toBinary(JobSchema, message), 0x9a, 0x06, 0x03, 0x6e, 0x65, 0x77]));
}

describe("mergePatchMessage (fast-check)", () => {
  it("gives the job whose JSON is the patch merged into the whole job's JSON, and keeps the unknown fields", () => {
    fc.assert(
      fc.property(job.map(withUnknownField), patch, (read, body) => {
        const expected = wholeJsonMerge(read, body);
        if (expected instanceof MirrorError) {
          expect(() => mergePatchMessage(JobSchema, read, body)).toThrow(MirrorError);
          return;
        }
        const next = mergePatchMessage(JobSchema, read, body);
        expect(jobToJson(next)).toStrictEqual(jobToJson(expected));
        expect(next.$unknown).toEqual(read.$unknown);
      }),
      runs,
    );
  });

  it("leaves the job it was given as it was", () => {
    fc.assert(
      fc.property(job.map(withUnknownField), patch, (read, body) => {
        const before = toBinary(JobSchema, read);
        try {
          mergePatchMessage(JobSchema, read, body);
        } catch (error) {
          if (!(error instanceof MirrorError)) throw error;
        }
        expect(toBinary(JobSchema, read)).toEqual(before);
      }),
      runs,
    );
  });
});

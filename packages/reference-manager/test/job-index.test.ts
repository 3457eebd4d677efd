// jobIndexOf: the state and start_date_time the store indexes, read from a job's bytes.
import { describe, expect, it } from "vitest";
import { create, toBinary } from "@bufbuild/protobuf";
import { JobSchema, Job_JobState } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { jobIndexOf } from "../src/job-index.js";
import { fullJob } from "./harness.js";

const encode = (init: Parameters<typeof create<typeof JobSchema>>[1]): Uint8Array => toBinary(JobSchema, create(JobSchema, init));

describe("jobIndexOf", () => {
  it("reads state and start_date_time of a job with every field set", () => {
    const job = fullJob("j", { state: Job_JobState.ACTIVE, startDateTime: { seconds: -5n, nanos: 7 } });
    expect(jobIndexOf(toBinary(JobSchema, job))).toEqual({ state: Job_JobState.ACTIVE, start: { seconds: -5n, nanos: 7 } });
  });

  it("indexes a job with neither field as PRE with no start", () => {
    expect(jobIndexOf(encode({ jobId: { jobId: "j" }, description: "x".repeat(100_000) }))).toEqual({ state: 0, start: undefined });
  });

  it("keeps a start of the epoch (seconds and nanos 0) apart from no start", () => {
    expect(jobIndexOf(encode({ startDateTime: { seconds: 0n, nanos: 0 } })).start).toEqual({ seconds: 0n, nanos: 0 });
  });

  it("follows protobuf's rules for repeated fields: the last state wins, start_date_times merge", () => {
    const bytes = new Uint8Array([
      ...encode({ state: Job_JobState.POST, startDateTime: { seconds: 10n } }),
      ...encode({ state: Job_JobState.ACTIVE, startDateTime: { nanos: 5 } }),
    ]);
    expect(jobIndexOf(bytes)).toEqual({ state: Job_JobState.ACTIVE, start: { seconds: 10n, nanos: 5 } });
  });

  it("indexes bytes that are not a job as PRE with no start", () => {
    expect(jobIndexOf(Uint8Array.from([0xff, 0xff, 0xff]))).toEqual({ state: 0, start: undefined });
    expect(jobIndexOf(Uint8Array.from([1]))).toEqual({ state: 0, start: undefined });
  });
});

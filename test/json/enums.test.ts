import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import type { Cloud } from "../../src/gen/norsk/api/manager_pb.js";
import { JobHistoryJobStoppingSchema, JobHistoryJobStopping_Reason, JobSchema, Job_JobState } from "../../src/gen/norsk/api/manager_pb.js";
import { jobFromJson, jobToJson } from "../../src/json/job.js";
import { messageToJson } from "../../src/json/mirror.js";
import { issueOf, jobBody } from "./helpers.js";

describe("enums: lower-case names, numbers only for values the gateway does not know", () => {
  it.each([
    ["norskMediaVersion", "previous_recommended", 2],
    ["norskMediaVersion", "lts", 3],
    ["state", "post", 2],
    ["cloud", "oci", 1],
  ])("reads %s %j as %i and writes the name back", (field, name, number) => {
    const job = jobFromJson(jobBody({ [field]: name }));
    expect((job as unknown as Record<string, unknown>)[field]).toBe(number);
    expect((jobToJson(job) as Record<string, unknown>)[field]).toBe(name);
  });

  it("writes names of nested enums too, prefixes and all (x86_64 style names kept whole)", () => {
    const stopping = create(JobHistoryJobStoppingSchema, { reason: JobHistoryJobStopping_Reason.JOB_STOPPED_JOB_FAILED });
    expect(messageToJson(JobHistoryJobStoppingSchema, stopping).reason).toBe("job_stopped_job_failed");
  });

  it.each(["ACTIVE", "Active", "active ", "", "1"])("rejects %j: only the exact lower-case names", (text) => {
    const issue = issueOf(() => jobFromJson(jobBody({ state: text })));
    expect(issue.pointer).toBe("/state");
    expect(issue.message).toContain('must be one of "pre", "active", "post"');
  });

  it("rejects a known value sent as a number, naming the name to use", () => {
    expect(issueOf(() => jobFromJson(jobBody({ state: 1 })))).toEqual({
      pointer: "/state",
      message: 'must be the name "active", not the number 1',
    });
  });

  it("writes an unknown number as a JSON integer, and reads it back as that number (never 0)", () => {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- numbers the enums do not know are the point
    const job = create(JobSchema, { jobId: { jobId: "j" }, state: 7 as Job_JobState, cloud: -3 as Cloud });
    const json = jobToJson(job);
    expect(json.state).toBe(7);
    expect(json.cloud).toBe(-3);
    const back = jobFromJson(JSON.parse(JSON.stringify(json)));
    expect(back.state).toBe(7);
    expect(back.cloud).toBe(-3);
    expect(fromBinary(JobSchema, toBinary(JobSchema, back)).state).toBe(7);
  });

  it.each([1.5, 2147483648, -2147483649, true])("rejects %j: not an int32", (value) => {
    expect(issueOf(() => jobFromJson(jobBody({ state: value }))).pointer).toBe("/state");
  });

  it("knows the generated enum: PRE is 0", () => {
    expect(Job_JobState.PRE).toBe(0);
  });
});

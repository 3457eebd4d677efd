import { create, createFileRegistry, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { DescEnum } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import type { Cloud } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { JobHistoryJobStoppingSchema, JobHistoryJobStopping_Reason, JobSchema, Job_JobState } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { enumCodec } from "../../src/json/enums.js";
import { INVALID, Issues } from "../../src/json/errors.js";
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

/** An enum made from its descriptor, as protoc would describe `enum <name> { ... }` in package test. */
function enumOf(name: string, values: readonly (readonly [string, number])[]): DescEnum {
  const file = create(FileDescriptorProtoSchema, {
    name: `test/${name}.proto`,
    package: "test",
    syntax: "proto3",
    enumType: [{ name, value: values.map(([valueName, number]) => ({ name: valueName, number })), options: { allowAlias: true } }],
  });
  const desc = createFileRegistry(file, () => undefined).getEnum(`test.${name}`);
  if (desc === undefined) throw new Error(`no enum test.${name}`);
  return desc;
}

describe("enumCodec on enums of any shape", () => {
  it("refuses an enum whose names differ only in case: its lower-case names would be ambiguous", () => {
    expect(() => enumCodec(enumOf("CaseClash", [["ON", 0], ["On", 1]]))).toThrow(
      "enum test.CaseClash: On clashes with another value in lower case",
    );
  });

  it("accepts an alias that differs only in case, as the same number", () => {
    const codec = enumCodec(enumOf("CaseAlias", [["OFF", 0], ["ON", 1], ["on", 1]]));
    expect(codec.in("on", "", new Issues())).toBe(1);
    expect(codec.out(1)).toBe("on");
  });

  it("writes an aliased number with its first name", () => {
    const codec = enumCodec(enumOf("Aliased", [["NONE", 0], ["STARTED", 1], ["RUNNING", 1]]));
    expect(codec.out(1)).toBe("started");
    expect(codec.in("running", "", new Issues())).toBe(1);
  });

  it("lists every name in its refusal, in declaration order", () => {
    const issues = new Issues();
    expect(enumCodec(enumOf("Listed", [["RED", 0], ["GREEN", 1], ["BLUE", 2]])).in("grey", "/colour", issues)).toBe(INVALID);
    expect(issues.list).toEqual([
      {
        pointer: "/colour",
        message: 'must be one of "red", "green", "blue", or an integer that is not one of their numbers (a value this gateway does not know), not the string "grey"',
      },
    ]);
  });

  it("keeps unknown numbers across the whole int32 range, and refuses one beyond it", () => {
    const codec = enumCodec(enumOf("Wide", [["ZERO", 0]]));
    for (const number of [-2147483648, 2147483647]) {
      const issues = new Issues();
      expect(codec.in(number, "/n", issues)).toBe(number);
      expect(issues.list).toEqual([]);
    }
    for (const number of [-2147483649, 2147483648]) {
      const issues = new Issues();
      expect(codec.in(number, "/n", issues)).toBe(INVALID);
      expect(issues.list[0]?.message).toMatch(/^must be one of "zero", or an integer .* not the number -?214748364[89]$/);
    }
  });
});

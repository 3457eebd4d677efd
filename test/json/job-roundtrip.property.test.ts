import { equals, isMessage, toBinary, fromBinary } from "@bufbuild/protobuf";
import { Value } from "@sinclair/typebox/value";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JobSchema, Job_JobState } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job as JobMessage } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { jobFromJson, jobToJson } from "../../src/json/job.js";
import { messageFromJson, messageToJson } from "../../src/json/mirror.js";
import { JobJson, JobInputJson, JobPatchJson } from "../../schemas/job.js";
import { ServiceJson } from "../../schemas/service.js";
import { job } from "./arbitraries.js";

const runs = { numRuns: Number(process.env.FC_RUNS ?? 400) };

/** json with `null` for some of the properties of `names` that it does not have. */
function nullsForAbsent(json: Record<string, unknown>, names: string[], pick: (key: string) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { ...json };
  for (const name of names) if (!(name in json) && pick(name)) out[name] = null;
  return out;
}

describe("Job: protobuf ⇄ JSON round trips (fast-check)", () => {
  it("protobuf → JSON → protobuf is the identity", () => {
    fc.assert(
      fc.property(job, (message) => {
        const back = jobFromJson(jobToJson(message));
        expect(isMessage(back, JobSchema)).toBe(true);
        expect(equals(JobSchema, back, message)).toBe(true);
      }),
      runs,
    );
  });

  it("JSON → protobuf → JSON is the identity (keys included)", () => {
    fc.assert(
      fc.property(job, (message) => {
        const json = jobToJson(message);
        expect(jobToJson(jobFromJson(json))).toStrictEqual(json);
      }),
      runs,
    );
  });

  it("survives JSON text: JSON.parse(JSON.stringify(json)) is the same JSON and the same message", () => {
    fc.assert(
      fc.property(job, (message) => {
        const json = jobToJson(message);
        const parsed: unknown = JSON.parse(JSON.stringify(json));
        expect(parsed).toStrictEqual(json);
        expect(equals(JobSchema, jobFromJson(parsed), message)).toBe(true);
      }),
      runs,
    );
  });

  it("emits JSON that the TypeBox Job schema accepts, and that JobInput and JobPatch accept as input", () => {
    fc.assert(
      fc.property(job, (message) => {
        const json = jobToJson(message);
        expect([...Value.Errors(JobJson, json)].map((e) => `${e.path}: ${e.message}`)).toStrictEqual([]);
        expect(Value.Check(JobInputJson, json)).toBe(true);
        expect(Value.Check(JobPatchJson, json)).toBe(true);
      }),
      runs,
    );
  });

  it("reads null as absent: nulls added to any optional property change nothing", () => {
    fc.assert(
      fc.property(job, fc.func(fc.boolean()), (message, pick) => {
        const json = jobToJson(message);
        const withNulls = nullsForAbsent(json, Object.keys(JobJson.properties), pick);
        withNulls.services = json.services.map((s) => nullsForAbsent(s, Object.keys(ServiceJson.properties), pick));
        expect(equals(JobSchema, jobFromJson(withNulls), message)).toBe(true);
        expect(Value.Check(JobInputJson, withNulls)).toBe(true);
      }),
      runs,
    );
  });

  // protobuf-es' binary decoder loses two things the mirror keeps, so they are left out here:
  // a map key "__proto__" (it assigns keys with obj[key] = v) and a string's leading U+FEFF
  // (it decodes with a default TextDecoder, which strips a BOM).
  const binarySafe = (m: JobMessage) =>
    !Object.hasOwn(m.tags, "__proto__") &&
    !Object.hasOwn(m.productTemplateParameters, "__proto__") &&
    !/"\ufeff/.test(JSON.stringify(messageToJson(JobSchema, m)));

  it("mirrors a job the same before and after a binary round trip (except where protobuf-es' decoder loses data)", () => {
    fc.assert(
      fc.property(
        job.filter(binarySafe),
        (message) => {
          const decoded = fromBinary(JobSchema, toBinary(JobSchema, message));
          expect(messageToJson(JobSchema, decoded)).toStrictEqual(messageToJson(JobSchema, message));
          expect(equals(JobSchema, messageFromJson(JobSchema, messageToJson(JobSchema, message)), decoded)).toBe(true);
        },
      ),
      runs,
    );
  });
});

describe("the Job arbitrary covers the hard cases", () => {
  const sample = fc.sample(job, { numRuns: 2000, seed: 42 });
  const share = (predicate: (m: JobMessage) => boolean) => sample.filter(predicate).length;

  it.each<[string, (m: JobMessage) => boolean]>([
    ["a tag key __proto__", (m) => Object.hasOwn(m.tags, "__proto__")],
    ["an unknown state number", (m) => !Object.values(Job_JobState).includes(m.state)],
    ["launchConfigJson set to \"\"", (m) => m.launchConfigJson === ""],
    ["launchConfigJson unset", (m) => m.launchConfigJson === undefined],
    ["currentHash at int64 min", (m) => m.currentHash === -(2n ** 63n)],
    ["a 9-digit nanosecond start", (m) => (m.startDateTime?.nanos ?? 0) % 1000 !== 0],
    ["a port mapping with a range", (m) => m.norskServiceParameters?.portMappings.some((p) => p.hostPort.case === "range") ?? false],
    ["empty volumes", (m) => m.volumes.length === 0],
    ["non-empty volumes", (m) => m.volumes.length > 0],
    ["a set OptionalInt64 of 0", (m) => m.services.some((s) => s.parameters?.sharedMemorySize?.value === 0n)],
  ])("draws jobs with %s", (_name, predicate) => {
    expect(share(predicate)).toBeGreaterThan(0);
  });
});

// toSdk and fromSdk turn whole values of the document into the SDK's shapes and back, at every
// depth the generated table names, on the JSON mirror's own vectors (int64 and uint64 extremes,
// nanosecond timestamps, "" against absent), and name where a value is not what the document says.
import { readFileSync } from "node:fs";
import { describe, expect, expectTypeOf, it } from "vitest";
import { EXACT_VALUES, fromDate, fromSdk, toDate, toSdk } from "../src/index.js";
import type { Job, JobInput, Sdk } from "../src/index.js";

interface Vector {
  readonly name: string;
  readonly type?: string;
  readonly json?: Job;
}

const JOBS = (JSON.parse(readFileSync(new URL("../../../test/fixtures/vectors.json", import.meta.url), "utf8")) as { vectors: Vector[] }).vectors.filter(
  (vector): vector is Vector & { json: Job } => vector.type === "norsk.api.manager.Job" && vector.json !== undefined,
);

/** The job with each timestamp as toSdk then fromSdk give it back: to the millisecond. */
const toMilliseconds = (job: Job): Job => ({ ...job, startDateTime: fromDate(toDate(job.startDateTime)) });

describe("toSdk and fromSdk", () => {
  it("give the SDK's types at every depth: bigint for int64 and uint64, Date for a timestamp", () => {
    const full = JOBS.find((vector) => vector.name.startsWith("fields 1-15"));
    expect(full).toBeDefined();
    const job = toSdk("Job", full?.json as Job);
    expect(job.currentHash).toBe(-(2n ** 63n));
    expect(job.services[0]?.parameters?.sharedMemorySize).toBe(2n ** 64n - 1n);
    expect(job.startDateTime).toEqual(new Date(Date.UTC(2100, 0, 1, 0, 0, 0, 123)));
    expect(job.tags).toEqual({ env: "prod", team: "media" });
    expectTypeOf(job.currentHash).toEqualTypeOf<bigint>();
    expectTypeOf(job.startDateTime).toEqualTypeOf<Date>();
    expectTypeOf(job.services[0]?.parameters?.sharedMemorySize).toEqualTypeOf<bigint | undefined>();
    expectTypeOf(job.description).toEqualTypeOf<string>();
  });

  it("round-trip every job vector exactly, but for a timestamp's digits finer than a millisecond", () => {
    expect(JOBS.length).toBeGreaterThan(8);
    for (const { name, json } of JOBS) expect(fromSdk("Job", toSdk("Job", json)), name).toEqual(toMilliseconds(json));
  });

  it("keep absent absent, \"\" as \"\", and null as null", () => {
    const vector = JOBS.find((each) => each.name.includes("launchConfigJson present but empty"));
    const job = toSdk("Job", vector?.json as Job);
    expect(job.launchConfigJson).toBe("");
    expect(Object.hasOwn(toSdk("Job", JOBS[0]?.json as Job), "norskServiceParameters")).toBe(false);
    const input: JobInput = { jobId: "j", startDateTime: "2026-12-24T18:00:00.5+01:00", currentHash: null, norskServiceParameters: null, services: [{ name: "s", parameters: { sharedMemorySize: null } }] };
    expect(fromSdk("JobInput", toSdk("JobInput", input))).toEqual({ ...input, startDateTime: "2026-12-24T17:00:00.500Z" });
  });

  it("convert a list's jobs and a history's previous job", () => {
    const [first, second] = JOBS;
    const list: Sdk<"JobList"> = toSdk("JobList", { jobs: [first?.json as Job, second?.json as Job] });
    expect(typeof list.jobs[1]?.currentHash).toBe("bigint");
    const withHistory = toSdk("JobWithHistory", {
      job: first?.json,
      historyEntry: [{ jobUpdated: { timestamp: "2026-12-24T18:00:00Z", previousJob: second?.json as Job } }],
    });
    expect(withHistory.historyEntry[0]?.jobUpdated?.timestamp).toEqual(new Date("2026-12-24T18:00:00Z"));
    expect(typeof withHistory.historyEntry[0]?.jobUpdated?.previousJob?.currentHash).toBe("bigint");
  });

  it("name the JSON Pointer of a value that is not what the document says", () => {
    const job = JOBS[1]?.json as Job;
    const bad = { ...job, services: [{ ...job.services[0], parameters: { ...job.services[0]?.parameters, sharedMemorySize: "-1" } }] } as Job;
    expect(() => toSdk("Job", bad)).toThrow(/^\/services\/0\/parameters\/sharedMemorySize: not a uint64/);
    expect(() => fromSdk("Job", { ...toSdk("Job", job), currentHash: 2n ** 63n })).toThrow(/^\/currentHash: outside int64/);
    expect(() => fromSdk("Job", { ...toSdk("Job", job), startDateTime: new Date(Number.NaN) })).toThrow(/^\/startDateTime: not a valid Date/);
    expect(() => toSdk("Job", { ...job, currentHash: 5 as unknown as string })).toThrow(RangeError);
  });

  it("cover each schema that holds a job", () => {
    for (const name of ["Job", "JobInput", "JobPatch", "PartialJob", "JobList", "PartialJobList", "JobWithHistory"]) expect(Object.keys(EXACT_VALUES)).toContain(name);
  });
});

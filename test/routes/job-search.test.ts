// The deadlines of GET /v1/jobs and of a job's instances (docs/architecture.md, "Deadlines"):
// the request timeout bounds the wait for the first job and for each next one, not the list;
// a Grpc-Timeout sets a total deadline, longer than the request timeout if it likes, up to the
// maximum. Over real HTTP on loopback, in front of a Manager that sends jobs on a schedule the
// test sets.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { CurrentJobSchema, JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { stubGateway, untilAborted } from "../helpers/stub-manager.js";
import type { StubGateway } from "../helpers/stub-manager.js";
import { getWhole, ndjsonLines } from "../helpers/http-get.js";

const REQUEST_TIMEOUT_MS = 400;
const MAX_REQUEST_TIMEOUT_MS = 2_000;

/** Pauses (ms) before each job the Manager sends; Infinity waits for the call's end. */
let schedule: number[] = [];
const manager = { cancelled: false };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const idOf = (i: number) => `j-${String(i).padStart(3, "0")}`;

let gw: StubGateway;
let url: string;

beforeAll(async () => {
  gw = await stubGateway(
    {
      jobSearch: async function* (_request, context) {
        for (const [i, pause] of schedule.entries()) {
          if (pause === Infinity) {
            await untilAborted(context.signal);
            manager.cancelled = true;
            return;
          }
          await sleep(pause);
          yield create(CurrentJobSchema, { job: create(JobSchema, { jobId: { jobId: idOf(i) } }) });
        }
      },
    },
    { requestTimeoutMs: REQUEST_TIMEOUT_MS, maxRequestTimeoutMs: MAX_REQUEST_TIMEOUT_MS },
  );
  url = await gw.app.listen({ port: 0, host: "127.0.0.1" });
});

afterAll(async () => {
  await gw.close();
});

beforeEach(() => {
  manager.cancelled = false;
  gw.manager.calls.length = 0;
});

const NDJSON = { accept: "application/x-ndjson" };

/** The Manager's deadline of the last call, in ms after it arrived (undefined: none). */
function deadlineSeen(): number | undefined {
  const call = gw.manager.calls.at(-1);
  return call?.deadline === undefined ? undefined : call.deadline - call.at;
}

describe("GET /v1/jobs", () => {
  it.each([
    ["NDJSON", NDJSON],
    ["JSON", {}],
  ])("is not cut as %s while jobs keep coming, however long it takes in all", async (_, headers) => {
    // 15 jobs, 100 ms apart: 1.5 s in all, almost four request timeouts.
    schedule = Array.from({ length: 15 }, () => 100);
    const res = await getWhole(`${url}/v1/jobs`, headers);
    expect(res.status).toBe(200);
    expect(res.complete).toBe(true);
    const ids = Array.from({ length: 15 }, (_, i) => idOf(i));
    const jobs = headers === NDJSON ? (ndjsonLines(res.text) as { jobId: string }[]) : (JSON.parse(res.text) as { jobs: { jobId: string }[] }).jobs;
    expect(jobs.map((job) => job.jobId)).toEqual(ids);
    // Without Grpc-Timeout the list has no deadline at the Manager.
    expect(deadlineSeen()).toBeUndefined();
  });

  it("ends NDJSON with a 504 error line at a gap longer than the request timeout, after every job sent", async () => {
    schedule = [0, 0, 0, Infinity];
    const started = Date.now();
    const res = await getWhole(`${url}/v1/jobs`, NDJSON);
    expect(res.status).toBe(200);
    const lines = ndjsonLines(res.text);
    expect(lines.slice(0, 3)).toMatchObject([{ jobId: idOf(0) }, { jobId: idOf(1) }, { jobId: idOf(2) }]);
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatchObject({ error: { status: 504, code: "DEADLINE_EXCEEDED" } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 10);
    await expect.poll(() => manager.cancelled).toBe(true);
  });

  it("cuts a JSON body off at a gap longer than the request timeout", async () => {
    schedule = [0, 0, 0, Infinity];
    const res = await getWhole(`${url}/v1/jobs`);
    expect(res.status).toBe(200);
    expect(res.complete).toBe(false);
    expect(res.text.startsWith('{"jobs":[{"jobId":"j-000"')).toBe(true);
    expect(() => JSON.parse(res.text) as unknown).toThrow();
    await expect.poll(() => manager.cancelled).toBe(true);
  });

  it("answers 504 when the first job is later than the request timeout", async () => {
    schedule = [Infinity];
    const res = await getWhole(`${url}/v1/jobs`, NDJSON);
    expect(res.status).toBe(504);
    expect(JSON.parse(res.text)).toMatchObject({ status: 504, code: "DEADLINE_EXCEEDED" });
  });

  it("ends the list at a Grpc-Timeout longer than the request timeout, which the Manager is given", async () => {
    // A job every 100 ms, for ever.
    schedule = Array.from({ length: 100 }, () => 100);
    const res = await getWhole(`${url}/v1/jobs`, { ...NDJSON, "grpc-timeout": "1200m" });
    const lines = ndjsonLines(res.text);
    expect(lines.at(-1)).toMatchObject({ error: { status: 504, code: "DEADLINE_EXCEEDED" } });
    // About 12 jobs: far more than the 4 a request timeout's worth would hold.
    expect(lines.length - 1).toBeGreaterThanOrEqual(7);
    expect(lines.length - 1).toBeLessThan(14);
    expect(deadlineSeen()).toBeGreaterThan(1_100);
    expect(deadlineSeen()).toBeLessThanOrEqual(1_200);
  });

  it("counts a Grpc-Timeout beyond --max-request-timeout as the maximum", async () => {
    schedule = [0];
    const res = await getWhole(`${url}/v1/jobs`, { "grpc-timeout": "1H" });
    expect(res.status).toBe(200);
    expect(deadlineSeen()).toBeGreaterThan(MAX_REQUEST_TIMEOUT_MS - 100);
    expect(deadlineSeen()).toBeLessThanOrEqual(MAX_REQUEST_TIMEOUT_MS);
  });
});

describe("GET /v1/jobs/{jobId}/instances", () => {
  it("has no deadline at the Manager without Grpc-Timeout, and the one a Grpc-Timeout sets up to the maximum", async () => {
    schedule = [0];
    const unbounded = await getWhole(`${url}/v1/jobs/${idOf(0)}/instances`);
    expect(unbounded.status).toBe(200);
    expect(deadlineSeen()).toBeUndefined();
    const longer = await getWhole(`${url}/v1/jobs/${idOf(0)}/instances`, { "grpc-timeout": "1500m" });
    expect(longer.status).toBe(200);
    expect(deadlineSeen()).toBeGreaterThan(1_400);
    expect(deadlineSeen()).toBeLessThanOrEqual(1_500);
  });

  it("answers 504 when the Manager sends nothing within the request timeout", async () => {
    schedule = [Infinity];
    const started = Date.now();
    const res = await getWhole(`${url}/v1/jobs/${idOf(0)}/instances`);
    expect(res.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(MAX_REQUEST_TIMEOUT_MS);
  });
});

describe("a call answered in one piece", () => {
  it("keeps the request timeout as its deadline, even for a Grpc-Timeout under the maximum", async () => {
    gw.manager.behaviour.deleteJob = async (_request, context) => {
      await untilAborted(context.signal);
      return {};
    };
    const res = await fetch(`${url}/v1/jobs/x`, { method: "DELETE", headers: { "grpc-timeout": "1500m" } });
    expect(res.status).toBe(504);
    expect(deadlineSeen()).toBeLessThanOrEqual(REQUEST_TIMEOUT_MS);
  });
});

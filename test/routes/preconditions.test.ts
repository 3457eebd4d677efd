// Preconditions on every write of a job mean what they say (docs/architecture.md, "Versions and
// preconditions"): an If-Match tag other than the job's ETag is a 412 with nothing written, "0"
// included, although UpdateJob takes current_hash 0 as "no test"; a job whose hash is 0 (a
// Manager that gives it no version) is never written blindly under If-Match; If-None-Match: *
// on PUT creates only; any other If-None-Match on a write is a 400. Against the reference
// Manager (what it stores read back over the direct gRPC client), and against a stub Manager
// that reports hash 0 (every call it received listed).
import { create } from "@bufbuild/protobuf";
import type { LightMyRequestResponse } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CurrentJobSchema, Job_JobState, JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import { JOB_ABSENT, NO_VERSION, STALE_TAG } from "../../src/operations/job-access.js";
import { JOB_EXISTS } from "../../src/operations/job-create.js";
import { JSON_HEADERS, START, createJob, startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { stubGateway } from "../helpers/stub-manager.js";
import type { StubGateway } from "../helpers/stub-manager.js";

const PATCH_HEADERS = { "content-type": "application/merge-patch+json" } as const;

type Write = "PUT" | "PATCH" | "DELETE" | "complete";
const WRITES: readonly Write[] = ["PUT", "PATCH", "DELETE", "complete"];

/** The write `kind` of `jobId` through `app`, with `headers` added; each changes the job if made. */
function write(gateway: { app: TestGateway["app"] }, kind: Write, jobId: string, headers: Record<string, string>): Promise<LightMyRequestResponse> {
  const url = `/v1/jobs/${encodeURIComponent(jobId)}`;
  switch (kind) {
    case "PUT":
      return gateway.app.inject({ method: "PUT", url, headers: { ...JSON_HEADERS, ...headers }, payload: { jobId, startDateTime: START, description: "written" } });
    case "PATCH":
      return gateway.app.inject({ method: "PATCH", url, headers: { ...PATCH_HEADERS, ...headers }, payload: { description: "written" } });
    case "DELETE":
      return gateway.app.inject({ method: "DELETE", url, headers });
    case "complete":
      return gateway.app.inject({ method: "POST", url: `${url}/complete`, headers });
  }
}

function expectProblem(res: LightMyRequestResponse, status: number, detail: string): void {
  expect(res.statusCode).toBe(status);
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({ status, detail });
}

describe("against the reference Manager", () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw.close();
  });
  beforeEach(async () => {
    for (const job of await gw.jobs()) await gw.connection.manager.deleteJob({ jobId: job.jobId?.jobId ?? "" });
  });

  const createOriginal = (jobId: string): Promise<string> => createJob(gw.app, jobId, { description: "original" });

  /** Every job the Manager stores, as JSON-safe facts: id, hash, description, state. */
  async function stored(): Promise<{ id: string; hash: string; description: string; state: Job_JobState }[]> {
    return (await gw.jobs()).map((job) => ({ id: job.jobId?.jobId ?? "", hash: String(job.currentHash), description: job.description, state: job.state }));
  }

  it.each(WRITES)('answers If-Match: "0" on %s of a job whose ETag is not "0" with 412, and writes nothing', async (kind) => {
    const etag = await createOriginal("im");
    expect(etag).not.toBe('"0"');
    const before = await stored();
    expectProblem(await write(gw, kind, "im", { "if-match": '"0"' }), 412, STALE_TAG);
    expect(await stored()).toEqual(before);
  });

  it.each(WRITES)('answers If-Match: "0" on %s of a job that does not exist with 412, and creates nothing', async (kind) => {
    expectProblem(await write(gw, kind, "absent", { "if-match": '"0"' }), 412, JOB_ABSENT);
    expect(await stored()).toEqual([]);
  });

  it.each(WRITES)("answers a stale If-Match on %s with 412, and writes nothing", async (kind) => {
    await createOriginal("im");
    const before = await stored();
    expectProblem(await write(gw, kind, "im", { "if-match": '"12345"' }), 412, kind === "PUT" ? "the job has changed since the entity tag was read" : STALE_TAG);
    expect(await stored()).toEqual(before);
  });

  it("completes with the job's current ETag (204, state post), with * only an existing job, and never with a weak tag", async () => {
    const etag = await createOriginal("c");
    expectProblem(await write(gw, "complete", "c", { "if-match": `W/${etag}` }), 412, "a weak entity tag never matches If-Match");
    expect((await stored())[0]?.state).toBe(Job_JobState.PRE);
    expect((await write(gw, "complete", "c", { "if-match": etag })).statusCode).toBe(204);
    expect((await stored())[0]?.state).toBe(Job_JobState.POST);
    expectProblem(await write(gw, "complete", "absent", { "if-match": "*" }), 412, JOB_ABSENT);
    expectProblem(await write(gw, "complete", "absent", {}), 404, 'job "absent" does not exist');
  });

  it("keeps a body currentHash of \"0\" as no precondition: the PUT replaces the job", async () => {
    await createOriginal("b");
    const res = await gw.app.inject({
      method: "PUT",
      url: "/v1/jobs/b",
      headers: JSON_HEADERS,
      payload: { jobId: "b", startDateTime: START, description: "replaced", currentHash: "0" },
    });
    expect(res.statusCode).toBe(200);
    expect((await stored())[0]?.description).toBe("replaced");
  });

  describe("PUT with If-None-Match: *", () => {
    it("creates a job that does not exist: 201 with Location and the ETag of the stored job", async () => {
      const res = await gw.app.inject({
        method: "PUT",
        url: "/v1/jobs/tenant%2Fnew",
        headers: { ...JSON_HEADERS, "if-none-match": "*" },
        payload: { jobId: "tenant/new", startDateTime: START, description: "created", currentHash: "0" },
      });
      expect(res.statusCode).toBe(201);
      expect(res.headers.location).toBe("/v1/jobs/tenant%2Fnew");
      const [job] = await stored();
      expect(job).toMatchObject({ id: "tenant/new", description: "created" });
      expect(res.headers.etag).toBe(`"${job?.hash ?? ""}"`);
      expect(res.json()).toMatchObject({ jobId: "tenant/new", description: "created", currentHash: job?.hash });
    });

    it("answers 412 for a job that exists, identical or not, and writes nothing", async () => {
      await createOriginal("x");
      const before = await stored();
      for (const description of ["original", "different"]) {
        const res = await gw.app.inject({
          method: "PUT",
          url: "/v1/jobs/x",
          headers: { ...JSON_HEADERS, "if-none-match": " * " },
          payload: { jobId: "x", startDateTime: START, description },
        });
        expectProblem(res, 412, JOB_EXISTS);
      }
      expect(await stored()).toEqual(before);
    });

    it("refuses If-Match or a non-zero currentHash with it (400), and writes nothing", async () => {
      const etag = await createOriginal("x");
      const before = await stored();
      for (const [headers, currentHash] of [[{ "if-match": etag }, undefined], [{ "if-match": "*" }, undefined], [{}, "77"]] as const) {
        const res = await gw.app.inject({
          method: "PUT",
          url: "/v1/jobs/x",
          headers: { ...JSON_HEADERS, "if-none-match": "*", ...headers },
          payload: { jobId: "x", startDateTime: START, description: "new", currentHash },
        });
        expect(res.statusCode).toBe(400);
        expect(res.json<{ errors: { header?: string }[] }>().errors).toContainEqual({ header: "if-none-match", message: "asks that the job not exist" });
      }
      expect(await stored()).toEqual(before);
    });
  });

  it.each([
    ["PUT", '"123"'],
    ["PUT", "W/\"1\""],
    ["PUT", '*, "1"'],
    ["PATCH", "*"],
    ["DELETE", "*"],
    ["complete", "*"],
    ["DELETE", '"123"'],
  ] as const)("refuses %s with If-None-Match %j (400 naming the header), and writes nothing", async (kind, value) => {
    await createOriginal("n");
    const before = await stored();
    const res = await write(gw, kind, "n", { "if-none-match": value });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ errors: { header?: string }[] }>().errors.map((e) => e.header)).toEqual(["if-none-match"]);
    expect(await stored()).toEqual(before);
  });
});

describe("against a Manager that reports hash 0 for a job", () => {
  let stub: StubGateway;
  /** The one job the stub holds; its hash is always 0. */
  let job: Job;

  beforeAll(async () => {
    job = create(JobSchema, { jobId: { jobId: "zero" }, description: "as stored", currentHash: 0n });
    stub = await stubGateway({
      jobSearch: async function* () {
        await Promise.resolve();
        yield create(CurrentJobSchema, { job });
      },
      // A test-and-set on a non-zero hash fails, as the stored hash is 0; hash 0 is no test.
      updateJob: (sent) => {
        if (sent.currentHash !== 0n) throw new GrpcError(Code.ABORTED, "current_hash does not match");
        return { hash: 0n };
      },
      deleteJob: () => ({}),
      completeJob: () => ({}),
    });
  });
  afterAll(async () => {
    await stub.close();
  });
  beforeEach(() => {
    stub.manager.calls.length = 0;
  });

  const writes = () => stub.manager.calls.filter((call) => call.method !== "JobSearch").map((call) => call.method);

  it.each(WRITES)('answers If-Match: "0" on %s with 412 saying the job has no version, and sends no write', async (kind) => {
    expectProblem(await write(stub, kind, "zero", { "if-match": '"0"' }), 412, NO_VERSION);
    expect(writes()).toEqual([]);
  });

  it("answers another entity tag with 412 (the Manager's test-and-set fails it)", async () => {
    expect((await write(stub, "PUT", "zero", { "if-match": '"5"' })).statusCode).toBe(412);
    expect((await write(stub, "PATCH", "zero", { "if-match": '"5"' })).statusCode).toBe(412);
    expect(writes()).toEqual(["UpdateJob"]);
  });

  it("replaces the job without If-Match, or with a body currentHash of \"0\" (no precondition), as UpdateJob with hash 0", async () => {
    expect((await write(stub, "PUT", "zero", {})).statusCode).toBe(200);
    const res = await stub.app.inject({
      method: "PUT",
      url: "/v1/jobs/zero",
      headers: JSON_HEADERS,
      payload: { jobId: "zero", startDateTime: START, currentHash: "0" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"0"');
    expect(writes()).toEqual(["UpdateJob", "UpdateJob"]);
  });
});

// DELETE /v1/jobs/{jobId} with If-Match loses no acknowledged write, even against writers in
// other gateway replicas: the job is fenced (a test-and-set on the ETag that adds the reserved
// tag) before DeleteJob, so exactly one of two writers conditional on the same ETag succeeds.
import { STATUS_CODES } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LightMyRequestResponse } from "fastify";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import { DELETING_TAG } from "../../src/operations/job-delete.js";
import { JSON_HEADERS, START, createJob } from "../helpers/gateway.js";
import { startReplicas } from "../helpers/replicas.js";
import type { Replica, Replicas } from "../helpers/replicas.js";


let replicas: Replicas;
let a: Replica;
let b: Replica;

beforeAll(async () => {
  replicas = await startReplicas();
  a = await replicas.add();
  b = await replicas.add();
});
afterAll(async () => {
  await replicas.close();
});

const create = (replica: Replica, jobId: string, extra: Record<string, unknown> = {}): Promise<string> => createJob(replica.app, jobId, extra);

const path = (jobId: string) => `/v1/jobs/${encodeURIComponent(jobId)}`;

function del(replica: Replica, jobId: string, ifMatch?: string): Promise<LightMyRequestResponse> {
  return replica.app.inject({ method: "DELETE", url: path(jobId), headers: ifMatch === undefined ? {} : { "if-match": ifMatch } });
}

function put(replica: Replica, jobId: string, ifMatch: string, description: string): Promise<LightMyRequestResponse> {
  return replica.app.inject({
    method: "PUT",
    url: path(jobId),
    headers: { ...JSON_HEADERS, "if-match": ifMatch },
    payload: { jobId, startDateTime: START, description },
  });
}

const get = (replica: Replica, jobId: string) => replica.app.inject({ method: "GET", url: path(jobId) });

const ticks = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** `res` is the problem `status` with `detail` and `code`, for the request of `jobId`. */
function problem(res: LightMyRequestResponse, jobId: string, status: number, detail: string, code: string) {
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(res.json()).toEqual({
    type: "about:blank",
    title: STATUS_CODES[status],
    status,
    detail,
    instance: path(jobId),
    code,
    requestId: res.headers["x-request-id"],
  });
}

describe("DELETE with If-Match racing another writer with the same If-Match", () => {
  it("never acknowledges both: in 200 trials exactly one of DELETE (replica A) and PUT (replica B) succeeds, and the job is what it says", async () => {
    const outcomes = { deleted: 0, replaced: 0 };
    for (let trial = 0; trial < 200; trial++) {
      const jobId = `race-${trial}`;
      const etag = await create(a, jobId);
      const deleting = del(a, jobId, etag);
      await ticks(trial % 6);
      const [deleted, replaced] = await Promise.all([deleting, put(b, jobId, etag, `put ${trial}`)]);
      const stored = await get(a, jobId);
      if (deleted.statusCode === 204) {
        outcomes.deleted++;
        expect({ put: replaced.statusCode, stored: stored.statusCode }, `trial ${trial}`).toEqual({ put: 412, stored: 404 });
      } else {
        outcomes.replaced++;
        expect({ delete: deleted.statusCode, put: replaced.statusCode, stored: stored.statusCode }, `trial ${trial}`).toEqual({ delete: 412, put: 200, stored: 200 });
        expect(stored.json()).toEqual(replaced.json());
        expect(stored.headers.etag).toBe(replaced.headers.etag);
      }
    }
    // Both orders happened, so the race was really run.
    expect(outcomes.deleted).toBeGreaterThan(0);
    expect(outcomes.replaced).toBeGreaterThan(0);
  }, 120_000);

  it("lets exactly one of 20 concurrent DELETEs with the same If-Match through two replicas succeed: 1 × 204, 19 × 412", async () => {
    const etag = await create(a, "many");
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => del(i % 2 === 0 ? a : b, "many", etag)));
    const statuses = answers.map((res) => res.statusCode).sort();
    expect(statuses).toEqual([204, ...Array<number>(19).fill(412)]);
    for (const res of answers.filter((r) => r.statusCode === 412)) expect(res.json()).toMatchObject({ status: 412, code: "ABORTED" });
    expect((await get(b, "many")).statusCode).toBe(404);
  });

  it("lets exactly one of 20 concurrent DELETEs with the same If-Match through one replica succeed: 1 × 204, 19 × 412", async () => {
    const etag = await create(a, "many-one");
    const answers = await Promise.all(Array.from({ length: 20 }, () => del(a, "many-one", etag)));
    expect(answers.map((res) => res.statusCode).sort()).toEqual([204, ...Array<number>(19).fill(412)]);
  });
});

describe("DELETE with If-Match whose fence fails", () => {
  it("answers a stale ETag with 412 and leaves the job exactly as it was", async () => {
    const first = await create(a, "stale", { tags: { env: "prod" } });
    const patched = await a.app.inject({ method: "PATCH", url: path("stale"), headers: { "content-type": "application/merge-patch+json" }, payload: { description: "newer" } });
    expect(patched.statusCode).toBe(200);
    const res = await del(a, "stale", first);
    problem(res, "stale", 412, "the job's ETag differs from If-Match", "ABORTED");
    const stored = await get(a, "stale");
    expect(stored.json()).toEqual(patched.json());
    expect(stored.headers.etag).toBe(patched.headers.etag);
  });

  it("answers 412 and leaves the other writer's job untouched when that writer comes between the fence's read and its write", async () => {
    const etag = await create(a, "between", { description: "original" });
    let otherHash: bigint | undefined;
    const hooked = await replicas.add({
      hook: (real) => ({
        updateJob: async (job, options) => {
          if (otherHash === undefined) {
            ({ hash: otherHash } = await real.updateJob({ jobId: { jobId: "between" }, startDateTime: job.startDateTime, description: "the other writer's" }));
          }
          return real.updateJob(job, options);
        },
      }),
    });
    const res = await del(hooked, "between", etag);
    problem(res, "between", 412, "the job has changed since the entity tag was read", "ABORTED");
    // Stored as the other writer left it: its hash, so not one byte of the fence.
    const stored = await get(a, "between");
    expect(stored.headers.etag).toBe(`"${String(otherHash)}"`);
    expect(stored.json()).toMatchObject({ description: "the other writer's", tags: {} });
  });

  it("answers 412 for a job that does not exist, with an entity tag or *", async () => {
    problem(await del(a, "absent", '"123"'), "absent", 412, "the job does not exist", "ABORTED");
    problem(await del(a, "absent", "*"), "absent", 412, "the job does not exist", "ABORTED");
  });

  it("answers 404 without If-Match for a job that does not exist", async () => {
    problem(await del(a, "absent"), "absent", 404, 'job "absent" does not exist', "NOT_FOUND");
  });

  it("deletes an existing job with If-Match: * (204)", async () => {
    await create(a, "any");
    expect((await del(b, "any", "*")).statusCode).toBe(204);
    expect((await get(a, "any")).statusCode).toBe(404);
  });
});

describe("DELETE with If-Match whose DeleteJob fails after the fence", () => {
  it("answers 503, leaves the job with the reserved tag and a new ETag, and a DELETE with that ETag deletes it", async () => {
    const etag = await create(a, "stuck", { tags: { env: "prod" } });
    let failures = 1;
    const flaky = await replicas.add({
      hook: (real) => ({
        deleteJob: (request, options) => {
          if (failures-- > 0) return Promise.reject(new GrpcError(Code.UNAVAILABLE, "the Manager went away"));
          return real.deleteJob(request, options);
        },
      }),
    });
    const res = await del(flaky, "stuck", etag);
    problem(res, "stuck", 503, "the Manager is unavailable; try again later", "UNAVAILABLE");
    const stored = await get(a, "stuck");
    const tags = stored.json<{ tags: Record<string, string> }>().tags;
    expect(Object.keys(tags).sort()).toEqual(["env", DELETING_TAG]);
    expect(tags[DELETING_TAG]).toMatch(new RegExp(`^${String(res.headers["x-request-id"])} [0-9a-f-]{36}$`));
    expect(stored.headers.etag).not.toBe(etag);
    // The old ETag no longer matches anything: a writer holding it is refused.
    expect((await put(b, "stuck", etag, "late")).statusCode).toBe(412);
    expect((await del(b, "stuck", etag)).statusCode).toBe(412);
    expect((await del(b, "stuck", String(stored.headers.etag))).statusCode).toBe(204);
    expect((await get(a, "stuck")).statusCode).toBe(404);
  });

  it("changes the ETag again when the same request is retried on a job that still carries its tag", async () => {
    const etag = await create(a, "retried");
    let failures = 2;
    const flaky = await replicas.add({
      hook: (real) => ({
        deleteJob: (request, options) => (failures-- > 0 ? Promise.reject(new GrpcError(Code.UNAVAILABLE, "gone")) : real.deleteJob(request, options)),
      }),
    });
    const headers = { "x-request-id": "same-request" };
    expect((await flaky.app.inject({ method: "DELETE", url: path("retried"), headers: { ...headers, "if-match": etag } })).statusCode).toBe(503);
    const fenced = String((await get(a, "retried")).headers.etag);
    expect((await flaky.app.inject({ method: "DELETE", url: path("retried"), headers: { ...headers, "if-match": fenced } })).statusCode).toBe(503);
    const refenced = String((await get(a, "retried")).headers.etag);
    expect(refenced).not.toBe(fenced);
  });
});

describe("the reserved tag", () => {
  it("is refused in a PATCH of a job that a DELETE has fenced: 409, and the job is unchanged", async () => {
    await create(a, "fenced");
    const fencedJob = await a.direct.updateJob({ jobId: { jobId: "fenced" }, startDateTime: { seconds: 1767225600n }, tags: { [DELETING_TAG]: "r1 x" } });
    const before = await get(a, "fenced");
    expect(before.headers.etag).toBe(`"${fencedJob.hash}"`);
    const res = await b.app.inject({ method: "PATCH", url: path("fenced"), headers: { "content-type": "application/merge-patch+json" }, payload: { description: "lost?" } });
    problem(res, "fenced", 409, `the job is being deleted (it carries the tag ${DELETING_TAG}); if that DELETE failed, DELETE or PUT it again with its current ETag`, "ABORTED");
    const after = await get(a, "fenced");
    expect(after.json()).toEqual(before.json());
  });

  it.each([
    ["POST", "/v1/jobs", JSON_HEADERS, { jobId: "mine", startDateTime: START, tags: { [DELETING_TAG]: "x" } }],
    ["PUT", "/v1/jobs/mine", JSON_HEADERS, { jobId: "mine", startDateTime: START, tags: { env: "prod", [DELETING_TAG]: "x" } }],
    ["PATCH", "/v1/jobs/mine", { "content-type": "application/merge-patch+json" }, { tags: { [DELETING_TAG]: "x" } }],
    ["PATCH", "/v1/jobs/mine", { "content-type": "application/merge-patch+json" }, { tags: { [DELETING_TAG]: null } }],
  ] as const)("is refused in a client's %s with 400 naming it, and nothing is written", async (method, url, headers, payload) => {
    const etag = await create(a, "mine", { description: "kept" });
    try {
      const res = await a.app.inject({ method, url, headers, payload });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({
        detail: `the tag ${DELETING_TAG} is reserved to the gateway`,
        code: "INVALID_ARGUMENT",
        errors: [{ pointer: "/tags/gateway.norsk~1deleting", message: "is reserved to the gateway" }],
      });
      const stored = await get(a, "mine");
      expect(stored.headers.etag).toBe(etag);
      expect(stored.json()).toMatchObject({ description: "kept" });
    } finally {
      await del(a, "mine");
    }
  });
});

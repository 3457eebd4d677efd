// PATCH against writers it cannot queue behind (another replica's, here a hook that changes the
// job on the real Manager between PATCH's read and its write): exactly `patchAttempts` attempts
// (3 by default), then 409; with If-Match, the first lost race is a 412. And the queue of one
// job's writes in one gateway: bounded, and bounded in time by the request's deadline.
import { STATUS_CODES } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LightMyRequestResponse } from "fastify";
import type { ManagerClient } from "../../src/operations/job-access.js";
import { START, createJob } from "../helpers/gateway.js";
import { startReplicas } from "../helpers/replicas.js";
import type { Replica, Replicas } from "../helpers/replicas.js";

const PATCH_HEADERS = { "content-type": "application/merge-patch+json" } as const;

let replicas: Replicas;
let plain: Replica;

beforeAll(async () => {
  replicas = await startReplicas();
  plain = await replicas.add();
});
afterAll(async () => {
  await replicas.close();
});

const create = (jobId: string): Promise<string> => createJob(plain.app, jobId);

function patch(replica: Replica, jobId: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return replica.app.inject({ method: "PATCH", url: `/v1/jobs/${jobId}`, headers: { ...PATCH_HEADERS, ...headers }, payload: body });
}

const stored = async (jobId: string) => (await plain.app.inject({ method: "GET", url: `/v1/jobs/${jobId}` })).json<Record<string, unknown>>();

function expectProblem(res: LightMyRequestResponse, jobId: string, status: number, detail: string, code: string): void {
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(res.json()).toEqual({
    type: "about:blank",
    title: STATUS_CODES[status],
    status,
    detail,
    instance: `/v1/jobs/${jobId}`,
    code,
    requestId: res.headers["x-request-id"],
  });
}

/**
 * A replica whose every UpdateJob of `jobId` is preceded by another writer's unconditional change
 * of it, for the first `wins` of them (all, by default): the gateway's test-and-set then loses.
 */
async function contested(jobId: string, options: { wins?: number; patchAttempts?: number } = {}) {
  const attempts: bigint[] = [];
  const replica = await replicas.add({
    ...(options.patchAttempts === undefined ? {} : { patchAttempts: options.patchAttempts }),
    hook: (real: ManagerClient) => ({
      updateJob: async (job, callOptions) => {
        if (job.jobId?.jobId === jobId) {
          attempts.push(job.currentHash ?? 0n);
          if (attempts.length <= (options.wins ?? Infinity)) {
            await real.updateJob({ jobId: { jobId }, startDateTime: job.startDateTime, description: `other writer ${attempts.length}` });
          }
        }
        return real.updateJob(job, callOptions);
      },
    }),
  });
  return { replica, attempts };
}

describe("PATCH against another writer that always wins", () => {
  it("makes exactly 3 attempts, then answers 409, and writes nothing", async () => {
    await create("lost");
    const { replica, attempts } = await contested("lost");
    const res = await patch(replica, "lost", { tags: { mine: "1" } });
    expectProblem(res, "lost", 409, "the job kept changing; gave up after 3 attempts", "ABORTED");
    expect(attempts).toHaveLength(3);
    // Each attempt was conditional on a fresh read: three different hashes.
    expect(new Set(attempts).size).toBe(3);
    expect(await stored("lost")).toMatchObject({ description: "other writer 3", tags: {} });
  });

  it("makes exactly patchAttempts attempts when that option is set (5), then answers 409 naming them", async () => {
    await create("lost-5");
    const { replica, attempts } = await contested("lost-5", { patchAttempts: 5 });
    const res = await patch(replica, "lost-5", { tags: { mine: "1" } });
    expectProblem(res, "lost-5", 409, "the job kept changing; gave up after 5 attempts", "ABORTED");
    expect(attempts).toHaveLength(5);
  });

  it("answers 412 after exactly one attempt when the PATCH has If-Match", async () => {
    const etag = await create("lost-if-match");
    const { replica, attempts } = await contested("lost-if-match");
    const res = await patch(replica, "lost-if-match", { tags: { mine: "1" } }, { "if-match": etag });
    expectProblem(res, "lost-if-match", 412, "the job changed after the entity tag was read", "ABORTED");
    expect(attempts).toHaveLength(1);
  });

  it("applies the patch on the third attempt, onto the other writer's newer job, when it wins only the first two", async () => {
    await create("won");
    const { replica, attempts } = await contested("won", { wins: 2 });
    const res = await patch(replica, "won", { tags: { mine: "1" } });
    expect(res.statusCode).toBe(200);
    expect(attempts).toHaveLength(3);
    expect(res.json()).toMatchObject({ description: "other writer 2", tags: { mine: "1" } });
    expect(await stored("won")).toEqual(res.json());
  });
});

describe("the queue of one job's writes", () => {
  /** A replica whose UpdateJobs of `jobId` wait until `release()` is called. */
  async function held(jobId: string, options: { maxWaitingWrites?: number; requestTimeoutMs?: number }) {
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived = 0;
    const replica = await replicas.add({
      ...options,
      hook: (real: ManagerClient) => ({
        updateJob: async (job, callOptions) => {
          if (job.jobId?.jobId === jobId) {
            arrived++;
            await gate;
          }
          return real.updateJob(job, callOptions);
        },
      }),
    });
    return { replica, release, arrived: () => arrived };
  }

  it("refuses a write with 429 when maxWaitingWrites (2) already wait behind a running one, and runs the others", async () => {
    await create("queued");
    const { replica, release, arrived } = await held("queued", { maxWaitingWrites: 2 });
    const first = patch(replica, "queued", { tags: { a: "1" } });
    while (arrived() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const waiting = [patch(replica, "queued", { tags: { b: "1" } }), patch(replica, "queued", { tags: { c: "1" } })];
    // Time for both to reach the queue: they make no call to the Manager on the way.
    await new Promise((resolve) => setTimeout(resolve, 100));
    try {
      const refused = await patch(replica, "queued", { tags: { d: "1" } });
      expectProblem(refused, "queued", 429, "too many changes of this job are waiting (at most 2); try again later", "RESOURCE_EXHAUSTED");
    } finally {
      release();
    }
    const answers = await Promise.all([first, ...waiting]);
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect((await stored("queued")).tags).toEqual({ a: "1", b: "1", c: "1" });
  });

  it("ends a wait longer than the request deadline with 504, and that write never happens", async () => {
    await create("slow");
    const { replica, release, arrived } = await held("slow", { requestTimeoutMs: 300 });
    const first = patch(replica, "slow", { tags: { a: "1" } });
    while (arrived() === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    try {
      const late = await patch(replica, "slow", { tags: { late: "1" } });
      expectProblem(late, "slow", 504, "the Manager did not answer before the deadline", "DEADLINE_EXCEEDED");
    } finally {
      release();
    }
    await first;
    expect(arrived()).toBe(1);
    expect((await stored("slow")).tags).not.toHaveProperty("late");
  });

  const put = (replica: Replica, jobId: string, description: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
    replica.app.inject({ method: "PUT", url: `/v1/jobs/${jobId}`, headers, payload: { jobId, startDateTime: START, description } });

  /** Waits until the hooked Manager has seen `count` UpdateJobs of the job (5 s at most), then a little more for any that should not come. */
  async function settle(arrived: () => number, count: number): Promise<void> {
    for (let waited = 0; arrived() < count && waited < 5_000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  it("runs unconditional PUTs of one job side by side; a PATCH that comes among them waits for them and reads what they wrote", async () => {
    await create("side-by-side");
    const { replica, release, arrived } = await held("side-by-side", {});
    const puts = [put(replica, "side-by-side", "put 1"), put(replica, "side-by-side", "put 2")];
    await settle(arrived, 2);
    const patched = patch(replica, "side-by-side", { tags: { mine: "1" } });
    await settle(arrived, 2);
    const conditional = put(replica, "side-by-side", "conditional", { "if-match": '"1"' });
    const later = put(replica, "side-by-side", "put 3");
    try {
      // Both PUTs are at the Manager together; the PATCH, and everything after it, waits.
      await settle(arrived, 2);
      expect(arrived()).toBe(2);
    } finally {
      release();
    }
    expect((await Promise.all(puts)).map((r) => r.statusCode)).toEqual([200, 200]);
    const answer = await patched;
    expect(answer.statusCode).toBe(200);
    // Read after both PUTs (never the job as created), and written at the first attempt: no retry.
    expect(["put 1", "put 2"]).toContain(answer.json<{ description: string }>().description);
    expect(answer.json()).toMatchObject({ tags: { mine: "1" } });
    expect((await conditional).statusCode).toBe(412);
    expect((await later).statusCode).toBe(200);
    // Two PUTs, one PATCH write, the conditional PUT and the last PUT.
    expect(arrived()).toBe(5);
    expect(await stored("side-by-side")).toMatchObject({ description: "put 3", tags: {} });
  });

  it("holds an unconditional PUT that comes during a conditional DELETE until the DELETE is done: it is never acknowledged and then deleted", async () => {
    const etag = await create("deleting");
    const { replica, release, arrived } = await held("deleting", {});
    const deleted = replica.app.inject({ method: "DELETE", url: "/v1/jobs/deleting", headers: { "if-match": etag } });
    await settle(arrived, 1);
    const replaced = put(replica, "deleting", "replaced");
    try {
      // The DELETE's fence is at the Manager; the PUT waits in the gateway.
      await settle(arrived, 1);
      expect(arrived()).toBe(1);
    } finally {
      release();
    }
    expect((await deleted).statusCode).toBe(204);
    expect((await replaced).statusCode).toBe(404);
  });
});

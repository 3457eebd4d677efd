// Shared reads through the whole gateway in front of a real reference Manager: under
// concurrent writers, every read sees at least the last write acknowledged before the read was
// sent (linearizable), while reads in flight together do share Manager calls; reads with
// different credentials never share one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JSON_HEADERS, START, startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { GatewayMetrics } from "../../src/telemetry/metrics.js";
import { stubGateway } from "../helpers/stub-manager.js";
import { JobSchema, CurrentJobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { FastifyInstance } from "fastify";
import type { ManagerStub } from "../helpers/stub-manager.js";
import { create } from "@bufbuild/protobuf";

const JOBS = 3;
const READERS_PER_JOB = 12;
const WRITES_PER_JOB = 40;

let gw: TestGateway;
const metrics = new GatewayMetrics();

beforeAll(async () => {
  gw = await startTestGateway({ coalesceReads: "on", metrics });
});
afterAll(async () => {
  await gw.close();
});

async function counter(name: string): Promise<number> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  return (metric?.values ?? []).reduce((sum, v) => sum + v.value, 0);
}

const jobBody = (id: string, version: number) => ({ jobId: id, startDateTime: START, description: `v${String(version)}` });

/**
 * Writers PUT each job's versions one after the other while readers GET them; each reader
 * notes the last version acknowledged before it sends its GET, and its answer must be at least
 * that. Readers pause up to `jitterMs` between reads, so that they arrive at every point of a
 * call in flight, not all just after the previous one ended. Returns the stale answers seen
 * and the number of reads.
 */
async function linearizability(app: FastifyInstance, ids: readonly string[], jitterMs: number): Promise<{ stale: string[]; reads: number }> {
  const acknowledged = new Map<string, number>();
  for (const id of ids) {
    const created = await app.inject({ method: "POST", url: "/v1/jobs", headers: JSON_HEADERS, payload: jobBody(id, 0) });
    expect([200, 201]).toContain(created.statusCode);
    acknowledged.set(id, 0);
  }
  let writing = true;
  const writer = async (id: string): Promise<void> => {
    for (let version = 1; version <= WRITES_PER_JOB; version++) {
      const res = await app.inject({ method: "PUT", url: `/v1/jobs/${id}`, headers: JSON_HEADERS, payload: jobBody(id, version) });
      expect(res.statusCode).toBe(200);
      acknowledged.set(id, version);
    }
  };
  const stale: string[] = [];
  let reads = 0;
  const reader = async (id: string): Promise<void> => {
    while (writing) {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * jitterMs));
      const floor = acknowledged.get(id) ?? 0;
      const res = await app.inject({ method: "GET", url: `/v1/jobs/${id}` });
      expect(res.statusCode).toBe(200);
      const seen = Number(/^v(\d+)$/.exec(res.json<{ description: string }>().description)?.[1]);
      reads++;
      if (!(seen >= floor)) stale.push(`${id}: read v${String(seen)} after v${String(floor)} was acknowledged`);
    }
  };
  const readers = ids.flatMap((id) => Array.from({ length: READERS_PER_JOB }, () => reader(id)));
  await Promise.all(ids.map(writer));
  writing = false;
  await Promise.all(readers);
  return { stale, reads };
}

/**
 * A Manager of one job that answers a JobSearch with the job as it was when the call came,
 * READ_DELAY_MS later: the window in which a write can be acknowledged while an older read is
 * still on its way, the window a shared read must not reach back into.
 */
function slowReadingManager(): ManagerStub {
  const READ_DELAY_MS = 25;
  const jobs = new Map<string, Job>();
  return {
    createJob: (job) => {
      jobs.set(job.jobId?.jobId ?? "", job);
      return { hash: 1n };
    },
    updateJob: (job) => {
      jobs.set(job.jobId?.jobId ?? "", job);
      return { hash: BigInt(jobs.size + 1) };
    },
    jobSearch: async function* (request) {
      const filter = request.jobFilter[0]?.jobFilter;
      const id = filter?.case === "idFilter" && filter.value.comparison.case === "eq" ? filter.value.comparison.value : "";
      const job = jobs.get(id);
      await new Promise((resolve) => setTimeout(resolve, READ_DELAY_MS));
      if (job !== undefined) yield create(CurrentJobSchema, { job });
    },
  };
}

describe("coalesced reads (--coalesce-reads on)", () => {
  it("never answers a read with a state older than a write acknowledged before the read, and shares calls", async () => {
    const { stale, reads } = await linearizability(gw.app, Array.from({ length: JOBS }, (_, i) => `lin-${String(i)}`), 2);
    expect(stale).toEqual([]);
    expect(reads).toBeGreaterThan(JOBS * WRITES_PER_JOB);
    // The reads did share calls (a call answered a quarter of them or more beyond its own).
    expect(await counter("gateway_coalesced_reads_total")).toBeGreaterThan(reads / 4);
  });

  it("stays linearizable in front of a Manager slow to answer reads", async () => {
    const slowMetrics = new GatewayMetrics();
    const stub = await stubGateway(slowReadingManager(), { coalesceReads: "on", metrics: slowMetrics });
    try {
      const { stale, reads } = await linearizability(stub.app, ["slow-0", "slow-1"], 30);
      expect(stale).toEqual([]);
      const shared = (await slowMetrics.registry.getMetricsAsJSON()).find((m) => m.name === "gateway_coalesced_reads_total");
      expect(shared?.values.reduce((sum, v) => sum + v.value, 0)).toBeGreaterThan(reads / 4);
    } finally {
      await stub.close();
    }
  });

  it("answers GET of a job and of its instances from shared reads with the same bodies as without", async () => {
    await gw.app.inject({ method: "POST", url: "/v1/jobs", headers: JSON_HEADERS, payload: { jobId: "same-1", startDateTime: START, tags: { a: "1" } } });
    const [one, two, three] = await Promise.all([
      gw.app.inject({ method: "GET", url: "/v1/jobs/same-1" }),
      gw.app.inject({ method: "GET", url: "/v1/jobs/same-1" }),
      gw.app.inject({ method: "GET", url: "/v1/jobs/same-1/instances" }),
    ]);
    expect(one.statusCode).toBe(200);
    expect(one.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(two.body).toBe(one.body);
    expect(two.headers.etag).toBe(one.headers.etag);
    expect(one.json()).toMatchObject({ jobId: "same-1", tags: { a: "1" } });
    expect(three.json()).toEqual({ instances: [] });
    const missing = await Promise.all([gw.app.inject({ method: "GET", url: "/v1/jobs/none" }), gw.app.inject({ method: "GET", url: "/v1/jobs/none" })]);
    expect(missing.map((res) => res.statusCode)).toEqual([404, 404]);
    expect(missing[1].json()).toMatchObject({ status: 404, detail: 'job "none" does not exist' });
  });
});

describe("coalesced searches (--coalesce-reads on)", () => {
  it("gives identical searches in flight the same jobs from a shared call, each in its own format and limit", async () => {
    for (let i = 0; i < 300; i++) {
      await gw.connection.manager.createJob({ jobId: { jobId: `search-${String(i).padStart(3, "0")}` }, tags: { shared: "yes" } });
    }
    const before = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === "gateway_coalesced_reads_total")?.values.find((v) => v.labels.read === "search")?.value ?? 0;
    const json = { method: "GET" as const, url: "/v1/jobs?tag=shared:yes" };
    const ndjson = { ...json, headers: { accept: "application/x-ndjson" } };
    const answers = await Promise.all([json, json, ndjson, { ...json, url: "/v1/jobs?tag=shared:yes&limit=7" }, json].map((r) => gw.app.inject(r)));
    const expected = Array.from({ length: 300 }, (_, i) => `search-${String(i).padStart(3, "0")}`);
    const idsOf = (body: { jobs: { jobId: string }[] }) => body.jobs.map((j) => j.jobId);
    expect(answers.map((res) => res.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(idsOf(answers[0]?.json() ?? { jobs: [] })).toEqual(expected);
    expect(answers[1]?.body).toBe(answers[0]?.body);
    expect(answers[4]?.body).toBe(answers[0]?.body);
    expect(answers[2]?.body.trimEnd().split("\n").map((line) => (JSON.parse(line) as { jobId: string }).jobId)).toEqual(expected);
    expect(idsOf(answers[3]?.json() ?? { jobs: [] })).toEqual(expected.slice(0, 7));
    const after = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === "gateway_coalesced_reads_total")?.values.find((v) => v.labels.read === "search")?.value ?? 0;
    expect(after - before).toBeGreaterThanOrEqual(1);
  });
});

describe("coalesced reads and credentials", () => {
  it("shares a call only between reads that send the Manager the same Authorization", async () => {
    const seen: string[] = [];
    const job = create(JobSchema, { jobId: { jobId: "auth-1" }, description: "x" });
    const stub = await stubGateway(
      {
        jobSearch: async function* (_request, context) {
          seen.push(context.metadata.get("authorization") ?? "");
          await new Promise((resolve) => setTimeout(resolve, 100));
          yield create(CurrentJobSchema, { job });
        },
      },
      { coalesceReads: "on" },
    );
    try {
      const get = (authorization: string) => stub.app.inject({ method: "GET", url: "/v1/jobs/auth-1", headers: { authorization } });
      const answers = await Promise.all([get("Bearer a"), get("Bearer a"), get("Bearer b"), get("Bearer a"), get("Bearer b")]);
      expect(answers.map((res) => res.statusCode)).toEqual([200, 200, 200, 200, 200]);
      // One call each at once, then one more each for the reads that came while it ran.
      expect([...seen].sort()).toEqual(["Bearer a", "Bearer a", "Bearer b", "Bearer b"]);
    } finally {
      await stub.close();
    }
  });
});

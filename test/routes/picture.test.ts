// The reads from the Manager's picture against the reference Manager: nodes of each kind it
// makes (AWS, OCI, physical) with their instances, a job's activity in each state, and reads
// that see every write acknowledged before them, alone or many at once (shared pictures).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { JSON_HEADERS, createJob, startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { GatewayMetrics } from "../../src/telemetry/metrics.js";

let gw: TestGateway;
const metrics = new GatewayMetrics();

beforeAll(async () => {
  gw = await startTestGateway({ metrics });
});
afterAll(async () => {
  await gw.close();
});

const send = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: unknown) =>
  gw.app.inject({ method, url, ...(payload === undefined ? {} : { headers: JSON_HEADERS, payload: JSON.stringify(payload) }) });

async function nodeIds(query = ""): Promise<string[]> {
  const res = await send("GET", `/v1/nodes${query}`);
  expect(res.statusCode).toBe(200);
  return res.json<{ nodes: { nodeId: string }[] }>().nodes.map((node) => node.nodeId);
}

beforeEach(async () => {
  for (const nodeId of await nodeIds()) await gw.connection.manager.terminateNode({ nodeId });
  for (const job of await gw.jobs()) expect((await send("DELETE", `/v1/jobs/${job.jobId?.jobId ?? ""}`)).statusCode).toBe(204);
});

describe("GET /v1/nodes against the reference Manager", () => {
  it("lists each kind of node it makes, with its running metadata and instances", async () => {
    expect((await send("POST", "/v1/nodes/aws", { nodeId: "aws-1", tags: { env: "prod" }, region: "eu-west-1", instanceType: "c5.large" })).statusCode).toBe(202);
    expect((await send("POST", "/v1/nodes/oci", { nodeId: "oci-1", tags: { env: "dev" }, availabilityDomain: "AD-1" })).statusCode).toBe(202);
    expect((await send("PUT", "/v1/physical-nodes/rack-7", { daemonVersion: "1.0.384" })).statusCode).toBe(200);
    await createJob(gw.app, "encoder-1");
    expect((await send("POST", "/v1/jobs/encoder-1/instances", { role: "primary", nodeId: "aws-1" })).statusCode).toBe(201);

    const res = await send("GET", "/v1/nodes");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      nodes: [
        {
          nodeId: "aws-1",
          cloud: "aws",
          state: "running",
          tags: { env: "prod" },
          nodeMetadata: { nodeId: "aws-1", providerMetadata: { aws: { region: "eu-west-1", instanceType: "c5.large" } } },
          runningNodeMetadata: { providerMetadata: { aws: { instanceId: "i-aws-1" } } },
          instances: [{ jobKey: { jobId: "encoder-1", role: "primary" }, nodeId: "aws-1" }],
        },
        { nodeId: "oci-1", cloud: "oci", state: "running", tags: { env: "dev" }, nodeMetadata: { providerMetadata: { oci: {} } }, instances: [] },
        { nodeId: "rack-7", cloud: "physical", state: "connected", tags: {}, physicalNode: { id: "rack-7" }, instances: [] },
      ],
    });
    expect(await nodeIds("?cloud=oci&cloud=physical")).toEqual(["oci-1", "rack-7"]);
    expect(await nodeIds("?tag=env:prod")).toEqual(["aws-1"]);
    expect(await nodeIds("?state=connected")).toEqual(["rack-7"]);

    const one = await send("GET", "/v1/nodes/aws-1");
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(res.json<{ nodes: unknown[] }>().nodes[0]);
  });

  it("sees a node as soon as its creation is acknowledged, and no longer once its termination is", async () => {
    for (let i = 0; i < 3; i++) {
      expect((await send("POST", "/v1/nodes/aws", { nodeId: `n-${String(i)}` })).statusCode).toBe(202);
      expect((await send("GET", `/v1/nodes/n-${String(i)}`)).statusCode).toBe(200);
      expect((await send("DELETE", `/v1/nodes/n-${String(i)}`)).statusCode).toBe(202);
      expect((await send("GET", `/v1/nodes/n-${String(i)}`)).statusCode).toBe(404);
    }
  });

  it("shares one picture between identical reads in flight, each still seeing the writes acknowledged before it", async () => {
    const before = (await metrics.registry.getSingleMetricAsString("gateway_coalesced_reads_total")).match(/read="picture"} (\d+)/)?.[1] ?? "0";
    expect((await send("POST", "/v1/nodes/oci", { nodeId: "shared-1" })).statusCode).toBe(202);
    const answers = await Promise.all(Array.from({ length: 20 }, () => send("GET", "/v1/nodes")));
    for (const answer of answers) expect(answer.json<{ nodes: { nodeId: string }[] }>().nodes.map((node) => node.nodeId)).toEqual(["shared-1"]);
    const after = (await metrics.registry.getSingleMetricAsString("gateway_coalesced_reads_total")).match(/read="picture"} (\d+)/)?.[1] ?? "0";
    expect(Number(after)).toBeGreaterThan(Number(before));
  });
});

describe("GET /v1/health against the reference Manager", () => {
  it("answers the providers' health it reports: none, as no cloud is behind it", async () => {
    const res = await send("GET", "/v1/health");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ health: [] });
  });
});

describe("GET /v1/jobs/{jobId}/activity against the reference Manager", () => {
  it("answers a job with an instance as active, with its history", async () => {
    await createJob(gw.app, "encoder-1");
    expect((await send("POST", "/v1/jobs/encoder-1/instances", { role: "primary", nodeId: "node-1" })).statusCode).toBe(201);
    const res = await send("GET", "/v1/jobs/encoder-1/activity");
    expect(res.statusCode).toBe(200);
    const body = res.json<{ activity: string; jobWithHistory: { job: { state: string }; historyEntry: Record<string, unknown>[] } }>();
    expect(body).toMatchObject({ jobId: "encoder-1", activity: "active", jobWithHistory: { job: { jobId: "encoder-1", state: "active" } } });
    expect(body.jobWithHistory.historyEntry.map((entry) => Object.keys(entry)[0])).toEqual(["jobCreated", "jobRunning"]);
  });

  it("answers a job in state pre as pending, whether its start is due or a year away", async () => {
    await createJob(gw.app, "due-1");
    await createJob(gw.app, "later-1", { startDateTime: new Date(Date.now() + 365 * 86_400_000).toISOString() });
    for (const jobId of ["due-1", "later-1"]) {
      const res = await send("GET", `/v1/jobs/${jobId}/activity`);
      expect(res.json(), jobId).toMatchObject({ jobId, activity: "pending", jobWithHistory: { job: { jobId, state: "pre" }, historyEntry: [{ jobCreated: {} }] } });
    }
  });

  it("answers a completed job as activity none, and a job that does not exist as a 404", async () => {
    await createJob(gw.app, "done-1");
    expect((await send("POST", "/v1/jobs/done-1/complete")).statusCode).toBeLessThan(300);
    expect((await send("GET", "/v1/jobs/done-1/activity")).json()).toEqual({ jobId: "done-1", activity: "none" });
    const missing = await send("GET", "/v1/jobs/nobody/activity");
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: "NOT_FOUND", detail: 'job "nobody" does not exist' });
  });
});

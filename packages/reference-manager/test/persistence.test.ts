// Persistence: what the reference Manager held before a close (or a kill -9) it holds after
// reopening the same data dir: jobs byte for byte, hashes, history, instances and nodes.
import { afterEach, describe, expect, it } from "vitest";
import { toBinary } from "@bufbuild/protobuf";
import { CurrentJobSchema, EventStreamEventSchema, Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { EventStreamEvent } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { createChannel, createClient } from "norsk-manager-contract/grpc/index.js";
import { collect, dumpDatabase, fullJob, removeDir, simpleJob, startHarness, tempDataDir } from "./harness.js";
import type { Harness, ManagerClient } from "./harness.js";
import { runManager } from "./process.js";

const cleanup: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function dataDir(): string {
  const dir = tempDataDir();
  cleanup.push(() => {
    removeDir(dir);
  });
  return dir;
}

async function open(dir: string): Promise<Harness> {
  const h = await startHarness({ dataDir: dir });
  cleanup.push(() => h.stop());
  return h;
}

/** Every job (with instances) as bytes, in id order. */
async function jobsAsBytes(client: ManagerClient): Promise<string[]> {
  return (await collect(client.jobSearch({}))).map((c) => Buffer.from(toBinary(CurrentJobSchema, c)).toString("hex"));
}

/** The EventStream picture with a window wide enough to include every PRE job: nodes, jobs, histories. */
async function picture(client: ManagerClient): Promise<string[]> {
  const events: EventStreamEvent[] = [];
  for await (const event of client.eventStream({ pendingWindowS: 2_000_000_000 })) {
    if (event.event.case === "initialDataComplete") break;
    events.push(event);
  }
  return events.map((e) => Buffer.from(toBinary(EventStreamEventSchema, e)).toString("hex"));
}

async function populate(client: ManagerClient): Promise<bigint[]> {
  const hashes: bigint[] = [];
  hashes.push((await client.createJob(fullJob("p-full"))).hash);
  const { hash } = await client.createJob(simpleJob("p-updated"));
  hashes.push((await client.updateJob(simpleJob("p-updated", { description: "v2", currentHash: hash }))).hash);
  await client.createJob(simpleJob("p-running"));
  await client.createAwsNode({ nodeId: { nodeId: "aws-1" }, tags: { a: "b" }, region: "eu-west-1" });
  await client.createOciNode({ nodeId: { nodeId: "oci-1" } });
  await client.updatePhysicalNode({ id: "phys-1", daemonVersion: "1.0" });
  await client.startJob({ jobId: { jobId: "p-running" }, role: "primary", nodeId: { nodeId: "aws-1" } });
  await client.createJob(simpleJob("p-done"));
  await client.completeJob({ jobId: "p-done" });
  await client.createJob(simpleJob("p-deleted"));
  await client.deleteJob({ jobId: "p-deleted" });
  return hashes;
}

describe("persistence", () => {
  it("keeps jobs, hashes, history, instances and nodes across close and reopen", async () => {
    const dir = dataDir();
    const first = await open(dir);
    const hashes = await populate(first.client);
    const jobs = await jobsAsBytes(first.client);
    const events = await picture(first.client);
    await first.stop();
    const tables = dumpDatabase(dir);

    const second = await open(dir);
    expect(await jobsAsBytes(second.client)).toEqual(jobs);
    expect(await picture(second.client)).toEqual(events);
    expect(dumpDatabase(dir)).toEqual(tables);
    // The stored hashes still guard updates.
    const [full] = await collect(second.client.jobSearch({ jobFilter: [{ jobFilter: { case: "idFilter", value: { comparison: { case: "eq", value: "p-full" } } } }] }));
    expect(full?.job?.currentHash).toBe(hashes[0]);
    await second.client.updateJob({ ...fullJob("p-full"), currentHash: hashes[0] ?? 0n });
    // Nodes are remembered: creating one again is refused.
    await expect(second.client.createAwsNode({ nodeId: { nodeId: "aws-1" } })).rejects.toMatchObject({ details: "node aws-1 already exists" });
    expect(events.length).toBeGreaterThanOrEqual(6);
  });

  it("keeps nothing with :memory:", async () => {
    const first = await startHarness({ dataDir: ":memory:" });
    await first.client.createJob(simpleJob("gone"));
    await first.stop();
    const second = await startHarness({ dataDir: ":memory:" });
    cleanup.push(() => second.stop());
    expect(await collect(second.client.jobSearch({}))).toEqual([]);
  });

  it("keeps every replied write when the process is killed with SIGKILL", async () => {
    const dir = dataDir();
    const run = runManager(["--port", "0", "--data-dir", dir]);
    cleanup.push(() => {
      if (run.child.exitCode === null) run.child.kill("SIGKILL");
    });
    const channel = createChannel(await run.listening());
    const client = createClient(Manager, channel);
    await populate(client);
    const jobs = await jobsAsBytes(client);
    const events = await picture(client);
    // One more reply, then the kill, with no chance to checkpoint or close anything.
    const { hash } = await client.createJob(simpleJob("last-reply"));
    run.child.kill("SIGKILL");
    expect((await run.exited).signal).toBe("SIGKILL");
    channel.close();

    const after = await open(dir);
    const [last] = await collect(after.client.jobSearch({ jobFilter: [{ jobFilter: { case: "idFilter", value: { comparison: { case: "eq", value: "last-reply" } } } }] }));
    expect(last?.job?.currentHash).toBe(hash);
    await after.client.deleteJob({ jobId: "last-reply" });
    expect(await jobsAsBytes(after.client)).toEqual(jobs);
    expect(await picture(after.client)).toEqual(events);
  });
});

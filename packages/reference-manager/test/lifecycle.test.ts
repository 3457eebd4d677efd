// StartJob, StopJob, CompleteJob and the node RPCs against a real reference Manager on port 0.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  JobHistoryJobStopping_Reason,
  Job_JobState,
  NodeStopping_Reason,
} from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { CurrentJob, EventStreamEvent, JobHistoryEntry } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Architecture } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { jobHash } from "../src/hash.js";
import { EventReader, collect, kinds, simpleJob, startHarness } from "./harness.js";
import type { Harness } from "./harness.js";

let h: Harness;
let events: EventReader<EventStreamEvent>;
const stopEvents = new AbortController();

beforeAll(async () => {
  h = await startHarness({ dataDir: ":memory:" });
  events = new EventReader(h.client.eventStream({}, { signal: stopEvents.signal, timeoutMs: 600_000 }));
  await events.next(); // initial_data_complete
});

afterAll(async () => {
  stopEvents.abort();
  await events.finished;
  await h.dispose();
});

async function current(id: string): Promise<CurrentJob> {
  const [found] = await collect(
    h.client.jobSearch({ jobFilter: [{ jobFilter: { case: "idFilter", value: { comparison: { case: "eq", value: id } } } }] }),
  );
  if (found === undefined) throw new Error(`job ${id} not found`);
  return found;
}

function instancesOf(c: CurrentJob): string[] {
  return c.instances.map((i) => `${i.jobKey?.role ?? ""}@${i.nodeId?.nodeId ?? ""}`);
}

/** The history entries carried by the next event, a job_updated: those its change appended. */
async function historyFromNextUpdate(): Promise<JobHistoryEntry[]> {
  const event = await events.next();
  if (event.event.case !== "jobUpdated") throw new Error(`expected jobUpdated, got ${event.event.case ?? "none"}`);
  return event.event.value.jobWithHistory?.historyEntry ?? [];
}

const start = (jobId: string, role: string, nodeId: string) => h.client.startJob({ jobId: { jobId }, role, nodeId: { nodeId } });
const stop = (jobId: string, role: string, nodeId = "") => h.client.stopJob({ jobId: { jobId }, role, nodeId: { nodeId } });

describe("StartJob and StopJob", () => {
  it("adds an instance, makes the job ACTIVE with a new hash, and records job_running", async () => {
    const { hash } = await h.client.createJob(simpleJob("run-1"));
    await events.next();
    await start("run-1", "primary", "node-a");
    const after = await current("run-1");
    expect(after.job?.state).toBe(Job_JobState.ACTIVE);
    expect(after.job?.currentHash).toBe(jobHash(simpleJob("run-1", { state: Job_JobState.ACTIVE })));
    expect(after.job?.currentHash).not.toBe(hash);
    expect(instancesOf(after)).toEqual(["primary@node-a"]);
    const history = await historyFromNextUpdate();
    expect(history.map((e) => e.historyEntry.case)).toEqual(["jobRunning"]);
    const running = history[0]?.historyEntry;
    if (running?.case !== "jobRunning") throw new Error("no jobRunning");
    expect(running.value.role).toBe("primary");
    expect(running.value.nodeMetadata?.nodeId?.nodeId).toBe("node-a");
  });

  it("runs several roles at once, each once", async () => {
    await start("run-1", "backup", "node-b");
    expect(instancesOf(await current("run-1"))).toEqual(["backup@node-b", "primary@node-a"]);
    await events.next();
  });

  it("stops one role; the job stays ACTIVE while another runs", async () => {
    await stop("run-1", "backup", "node-b");
    const after = await current("run-1");
    expect(instancesOf(after)).toEqual(["primary@node-a"]);
    expect(after.job?.state).toBe(Job_JobState.ACTIVE);
    const history = await historyFromNextUpdate();
    const stopping = history.at(-2)?.historyEntry;
    expect(stopping?.case).toBe("jobStopping");
    if (stopping?.case === "jobStopping") {
      expect(stopping.value.reason).toBe(JobHistoryJobStopping_Reason.JOB_STOPPED_USER_REQUESTED);
      expect(stopping.value.role).toBe("backup");
    }
    expect(history.at(-1)?.historyEntry.case).toBe("jobStopped");
  });

  it("stops a role wherever it runs when node_id is empty, and the idle job returns to PRE", async () => {
    await stop("run-1", "primary");
    const after = await current("run-1");
    expect(after.instances).toEqual([]);
    expect(after.job?.state).toBe(Job_JobState.PRE);
    expect(after.job?.currentHash).toBe(jobHash(simpleJob("run-1")));
    await events.next();
  });
});

describe("CompleteJob", () => {
  it("stops every instance, records job_completed and makes the job POST", async () => {
    await h.client.createJob(simpleJob("done-1"));
    await start("done-1", "primary", "node-a");
    await start("done-1", "backup", "node-b");
    await events.take(3);
    await h.client.completeJob({ jobId: "done-1" });
    const after = await current("done-1");
    expect(after.job?.state).toBe(Job_JobState.POST);
    expect(after.instances).toEqual([]);
    const history = await historyFromNextUpdate();
    expect(history.map((e) => e.historyEntry.case)).toEqual(["jobStopping", "jobStopped", "jobStopping", "jobStopped", "jobCompleted"]);
  });

  it("succeeds again on a completed job without changing it or publishing anything", async () => {
    const before = await current("done-1");
    await h.client.completeJob({ jobId: "done-1" });
    expect(await current("done-1")).toEqual(before);
    // The next event is the marker's, so completing again published nothing.
    await h.client.updatePhysicalNode({ id: "marker-1" });
    expect((await events.next()).event.case).toBe("physicalNodeConnected");
  });
});

describe("nodes", () => {
  it("creates an AWS node: node_starting then node_started with AWS metadata", async () => {
    await h.client.createAwsNode({ nodeId: { nodeId: "aws-1" }, tags: { pool: "a" }, region: "eu-west-1", instanceType: "c5.large" });
    const [starting, started] = await events.take(2);
    expect(kinds([starting, started].filter((e) => e !== undefined))).toEqual(["nodeStarting", "nodeStarted"]);
    if (started?.event.case !== "nodeStarted") throw new Error("no nodeStarted");
    const metadata = started.event.value.nodeMetadata;
    expect(metadata?.nodeId?.nodeId).toBe("aws-1");
    expect(metadata?.tags).toEqual({ pool: "a" });
    expect(metadata?.createdAt).toBeDefined();
    expect(metadata?.providerMetadata?.metadata).toMatchObject({
      case: "aws",
      value: { region: "eu-west-1", instanceType: "c5.large", architecture: Architecture.X86_64 },
    });
    expect(started.event.value.runningNodeMetadata?.providerMetadata?.instance.case).toBe("aws");
  });

  it("creates an OCI node with OCI metadata", async () => {
    await h.client.createOciNode({ nodeId: { nodeId: "oci-1" }, availabilityDomain: "AD-1", shape: "E4" });
    const [, started] = await events.take(2);
    if (started?.event.case !== "nodeStarted") throw new Error("no nodeStarted");
    expect(started.event.value.nodeMetadata?.providerMetadata?.metadata.case).toBe("oci");
  });

  it("upserts a physical node and publishes physical_node_connected with its instances", async () => {
    await h.client.createJob(simpleJob("phys-job"));
    await start("phys-job", "primary", "phys-1");
    await events.take(2);
    await h.client.updatePhysicalNode({ id: "phys-1", daemonVersion: "1.2.3" });
    await h.client.updatePhysicalNode({ id: "phys-1", daemonVersion: "1.2.4" });
    for (const event of await events.take(2)) {
      if (event.event.case !== "physicalNodeConnected") throw new Error("expected physicalNodeConnected");
      expect(event.event.value.node?.id).toBe("phys-1");
      expect(event.event.value.instances.map((i) => i.jobKey?.jobId?.jobId)).toEqual(["phys-job"]);
    }
  });

  it("terminates a node: node_stopping, its jobs stopped (NODE_TERMINATED), then node_stopped", async () => {
    await h.client.createJob(simpleJob("on-aws"));
    await start("on-aws", "primary", "aws-1");
    await events.take(2);
    await h.client.terminateNode({ nodeId: "aws-1" });
    const [stopping, updated, stopped] = await events.take(3);
    expect(kinds([stopping, updated, stopped].filter((e) => e !== undefined))).toEqual(["nodeStopping", "jobUpdated", "nodeStopped"]);
    if (stopping?.event.case === "nodeStopping") expect(stopping.event.value.reason).toBe(NodeStopping_Reason.USER_REQUESTED);
    if (updated?.event.case !== "jobUpdated") throw new Error("no jobUpdated");
    const entry = updated.event.value.jobWithHistory?.historyEntry.at(-2)?.historyEntry;
    if (entry?.case !== "jobStopping") throw new Error("no jobStopping");
    expect(entry.value.reason).toBe(JobHistoryJobStopping_Reason.JOB_STOPPED_NODE_TERMINATED);
    // The running entry named the node with its cloud metadata.
    expect(entry.value.nodeMetadata?.providerMetadata?.metadata.case).toBe("aws");
    const after = await current("on-aws");
    expect(after.instances).toEqual([]);
    expect(after.job?.state).toBe(Job_JobState.PRE);
    // The node is forgotten: its id can be created again.
    await h.client.createAwsNode({ nodeId: { nodeId: "aws-1" } });
    await events.take(2);
  });

  it("terminates a physical node too", async () => {
    await h.client.terminateNode({ nodeId: "phys-1" });
    expect(kinds(await events.take(3))).toEqual(["nodeStopping", "jobUpdated", "nodeStopped"]);
    expect((await current("phys-job")).instances).toEqual([]);
  });
});

// CreateJob, UpdateJob, DeleteJob and JobSearch against a real reference Manager on port 0.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clone, equals } from "@bufbuild/protobuf";
import { JobSchema, Job_JobState } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { EventStreamEvent, Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code } from "norsk-manager-contract/grpc/index.js";
import { jobHash } from "../src/hash.js";
import { SEARCH_PAGE } from "../src/jobs.js";
import { seedJobs, seededJobId } from "../../../test/helpers/seed-jobs.js";
import { EventReader, collect, fullJob, grpcErrorOf, simpleJob, startHarness, tempDataDir } from "./harness.js";
import type { Harness } from "./harness.js";

let h: Harness;
let events: EventReader<EventStreamEvent>;
const stopEvents = new AbortController();

beforeAll(async () => {
  h = await startHarness();
  events = new EventReader(h.client.eventStream({}, { signal: stopEvents.signal, timeoutMs: 600_000 }));
  expect((await events.next()).event.case).toBe("initialDataComplete");
});

afterAll(async () => {
  stopEvents.abort();
  await events.finished;
  await h.dispose();
});

async function findJob(id: string): Promise<Job | undefined> {
  const found = await collect(h.client.jobSearch({ jobFilter: [{ jobFilter: { case: "idFilter", value: { comparison: { case: "eq", value: id } } } }] }));
  expect(found.length).toBeLessThanOrEqual(1);
  return found[0]?.job;
}

async function nextJobUpdate(): Promise<{ job: Job; history: string[]; raw: EventStreamEvent }> {
  const event = await events.next();
  if (event.event.case !== "jobUpdated") throw new Error(`expected jobUpdated, got ${event.event.case ?? "none"}`);
  const jwh = event.event.value.jobWithHistory;
  if (jwh?.job === undefined) throw new Error("jobUpdated without a job");
  return { job: jwh.job, history: jwh.historyEntry.map((e) => e.historyEntry.case ?? "none"), raw: event };
}

describe("CreateJob", () => {
  it("stores the job with every field and answers the hash it is stored with", async () => {
    const job = fullJob("create-1");
    const { hash } = await h.client.createJob(job);
    expect(hash).toBe(jobHash(job));
    const stored = await findJob("create-1");
    expect(stored?.currentHash).toBe(hash);
    expect(equals(JobSchema, { ...job, currentHash: hash }, stored ?? job)).toBe(true);
    const update = await nextJobUpdate();
    expect(update.job.jobId?.jobId).toBe("create-1");
    expect(update.history).toEqual(["jobCreated"]);
  });

  it("ignores the current_hash of the request", async () => {
    const { hash } = await h.client.createJob(simpleJob("create-2", { currentHash: 12345n }));
    expect(hash).toBe(jobHash(simpleJob("create-2")));
    expect((await findJob("create-2"))?.currentHash).toBe(hash);
    await nextJobUpdate();
  });

  it("answers equal hashes for equal jobs whatever their map order", async () => {
    const a = await h.client.createJob(simpleJob("create-3", { tags: { a: "1", b: "2" } }));
    await h.client.deleteJob({ jobId: "create-3" });
    const b = await h.client.createJob(simpleJob("create-3", { tags: { b: "2", a: "1" } }));
    expect(b.hash).toBe(a.hash);
    await events.take(3);
  });

  it("keeps a present-but-empty launch_config_json apart from an unset one", async () => {
    await h.client.createJob(simpleJob("create-4", { launchConfigJson: "" }));
    await h.client.createJob(simpleJob("create-5"));
    expect((await findJob("create-4"))?.launchConfigJson).toBe("");
    expect((await findJob("create-5"))?.launchConfigJson).toBeUndefined();
    await events.take(2);
  });
});

describe("UpdateJob", () => {
  it("replaces the job when current_hash matches, answering the new hash", async () => {
    const { hash: first } = await h.client.createJob(fullJob("update-1"));
    await nextJobUpdate();
    const changed = fullJob("update-1", { description: "changed", currentHash: first });
    const { hash: second } = await h.client.updateJob(changed);
    expect(second).toBe(jobHash(changed));
    expect(second).not.toBe(first);
    const stored = await findJob("update-1");
    expect(stored?.description).toBe("changed");
    expect(stored?.currentHash).toBe(second);

    // The event carries the entry the update appended: the job as it was before, byte for byte.
    const update = await nextJobUpdate();
    expect(update.history).toEqual(["jobUpdated"]);
    const entry = update.raw.event.case === "jobUpdated" ? update.raw.event.value.jobWithHistory?.historyEntry[0]?.historyEntry : undefined;
    expect(entry?.case).toBe("jobUpdated");
    if (entry?.case !== "jobUpdated") return;
    expect(entry.value.timestamp).toBeDefined();
    expect(equals(JobSchema, entry.value.previousJob ?? changed, { ...fullJob("update-1"), currentHash: first })).toBe(true);
  });

  it("replaces unconditionally when current_hash is zero", async () => {
    await h.client.createJob(simpleJob("update-2"));
    await h.client.updateJob(simpleJob("update-2", { description: "v2" }));
    const { hash } = await h.client.updateJob(simpleJob("update-2", { description: "v3", currentHash: 0n }));
    expect((await findJob("update-2"))?.description).toBe("v3");
    expect(hash).toBe(jobHash(simpleJob("update-2", { description: "v3" })));
    expect((await events.take(3)).map((e) => e.event.case)).toEqual(["jobUpdated", "jobUpdated", "jobUpdated"]);
  });

  it("answers the same hash for an update that changes nothing, and still records it", async () => {
    const { hash } = await h.client.createJob(simpleJob("update-3"));
    const again = await h.client.updateJob(simpleJob("update-3", { currentHash: hash }));
    expect(again.hash).toBe(hash);
    await nextJobUpdate();
    expect((await nextJobUpdate()).history).toEqual(["jobUpdated"]);
  });

  it("accepts the job as JobSearch returned it (a read-modify-write round trip)", async () => {
    await h.client.createJob(fullJob("update-4"));
    const read = await findJob("update-4");
    if (read === undefined) throw new Error("not found");
    const modified = clone(JobSchema, read);
    modified.tags.added = "yes";
    const { hash } = await h.client.updateJob(modified);
    expect((await findJob("update-4"))?.tags).toEqual({ ...fullJob("update-4").tags, added: "yes" });
    expect(hash).toBe(jobHash(modified));
    await events.take(2);
  });
});

describe("DeleteJob", () => {
  it("removes the job and publishes job_deleted", async () => {
    await h.client.createJob(simpleJob("delete-1"));
    await nextJobUpdate();
    await h.client.deleteJob({ jobId: "delete-1" });
    expect(await findJob("delete-1")).toBeUndefined();
    const event = await events.next();
    expect(event.event.case).toBe("jobDeleted");
    if (event.event.case === "jobDeleted") expect(event.event.value.jobId?.jobId).toBe("delete-1");
    // The id is free again, with a fresh history.
    await h.client.createJob(simpleJob("delete-1"));
    expect((await nextJobUpdate()).history).toEqual(["jobCreated"]);
  });

  it("removes a running job with its instances", async () => {
    await h.client.createJob(simpleJob("delete-2"));
    await h.client.startJob({ jobId: { jobId: "delete-2" }, role: "primary", nodeId: { nodeId: "n" } });
    await h.client.deleteJob({ jobId: "delete-2" });
    expect(await findJob("delete-2")).toBeUndefined();
    expect(kindsOf(await events.take(3))).toEqual(["jobUpdated", "jobUpdated", "jobDeleted"]);
    await h.client.createJob(simpleJob("delete-2"));
    const [current] = await collect(h.client.jobSearch({ jobFilter: [{ jobFilter: { case: "idFilter", value: { comparison: { case: "eq", value: "delete-2" } } } }] }));
    expect(current?.instances).toEqual([]);
    await events.take(1);
  });
});

function kindsOf(list: EventStreamEvent[]): (string | undefined)[] {
  return list.map((e) => e.event.case);
}

describe("JobSearch", () => {
  beforeAll(async () => {
    for (const [id, env, seconds] of [["s-c", "prod", 300n], ["s-a", "dev", 100n], ["s-b", "prod", 200n]] as const) {
      await h.client.createJob(simpleJob(id, { tags: { env, search: "yes" }, startDateTime: { seconds, nanos: 5 } }));
    }
    await h.client.startJob({ jobId: { jobId: "s-b" }, role: "primary", nodeId: { nodeId: "n1" } });
    await events.take(4);
  });

  const searchIds = async (jobFilter: Parameters<typeof h.client.jobSearch>[0]["jobFilter"]): Promise<string[]> =>
    (await collect(h.client.jobSearch({ jobFilter }))).map((c) => c.job?.jobId?.jobId ?? "");

  it("streams every job in job id order when there is no filter", async () => {
    const ids = await searchIds([]);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toEqual(expect.arrayContaining(["s-a", "s-b", "s-c", "create-1"]));
  });

  it("ANDs its filters and keeps id order", async () => {
    expect(
      await searchIds([
        { jobFilter: { case: "tagFilter", value: { tagName: "search", comparison: { case: "exists", value: true } } } },
        { jobFilter: { case: "tagFilter", value: { tagName: "env", comparison: { case: "eq", value: "prod" } } } },
      ]),
    ).toEqual(["s-b", "s-c"]);
    expect(
      await searchIds([
        { jobFilter: { case: "idFilter", value: { comparison: { case: "re", value: "^s-" } } } },
        { jobFilter: { case: "dateFilter", value: { comparison: { case: "lt", value: { seconds: 300n, nanos: 5 } } } } },
      ]),
    ).toEqual(["s-a", "s-b"]);
  });

  it("finds one job by id with its instances", async () => {
    const [current, ...rest] = await collect(
      h.client.jobSearch({ jobFilter: [{ jobFilter: { case: "idFilter", value: { comparison: { case: "eq", value: "s-b" } } } }] }),
    );
    expect(rest).toEqual([]);
    expect(current?.job?.state).toBe(Job_JobState.ACTIVE);
    expect(current?.instances.map((i) => [i.jobKey?.jobId?.jobId, i.jobKey?.role, i.nodeId?.nodeId])).toEqual([["s-b", "primary", "n1"]]);
  });

  it("ends at once, empty, for an id that does not exist", async () => {
    expect(await searchIds([{ jobFilter: { case: "idFilter", value: { comparison: { case: "eq", value: "nope" } } } }])).toEqual([]);
  });

  it("rejects a bad regex with INVALID_ARGUMENT before sending anything", async () => {
    const error = await grpcErrorOf(
      collect(h.client.jobSearch({ jobFilter: [{ jobFilter: { case: "idFilter", value: { comparison: { case: "re", value: "(" } } } }] })),
    );
    expect(error.code).toBe(Code.INVALID_ARGUMENT);
    expect(error.details).toMatch(/^id_filter\.re: invalid regular expression/);
  });

  it("answers a regex that is catastrophic for a backtracking engine, without stalling the server", async () => {
    // A JavaScript RegExp takes about 2^40 steps on this id; RE2 takes about 40.
    await h.client.createJob(simpleJob(`s-${"a".repeat(40)}!`));
    await h.client.createJob(simpleJob(`s-${"a".repeat(40)}`));
    await events.take(2);
    const regex = (value: string) => [{ jobFilter: { case: "idFilter" as const, value: { comparison: { case: "re" as const, value } } } }];
    expect(await searchIds(regex("^s-aa(a+)+$"))).toEqual([`s-${"a".repeat(40)}`]);
    expect(await searchIds(regex("^s-(a|a)+!$"))).toEqual([`s-${"a".repeat(40)}!`]);
  });
});

describe("JobSearch over many jobs", () => {
  // Seven and a half pages (SEARCH_PAGE) of jobs, seeded straight into the store: more than the
  // transport holds between a client that has taken one job and the Manager (the client's
  // HTTP/2 window, the server stream's buffer, grpc-js's own queue), so that the last pages are
  // read only as the client takes the jobs before them.
  const COUNT = Math.round(SEARCH_PAGE * 7.5);
  let many: Harness;

  beforeAll(async () => {
    const dataDir = tempDataDir();
    seedJobs(dataDir, COUNT);
    many = await startHarness({ dataDir });
  });

  afterAll(async () => {
    await many.dispose();
  });

  it("reads the store a page at a time as its client takes the jobs: what changes ahead of the page read is seen", async () => {
    const jobs = many.client.jobSearch({}, { timeoutMs: 30_000 })[Symbol.asyncIterator]();
    const first = await jobs.next();
    expect(first.done === true ? undefined : first.value.job?.jobId?.jobId).toBe(seededJobId(0));
    // The client has taken one job; the Manager has read one page (a snapshot would hold all).
    await many.client.createJob(simpleJob("job-9999999"));
    await many.client.deleteJob({ jobId: seededJobId(COUNT - 2) });
    await many.client.createJob(simpleJob(`${seededJobId(0)}-late`));
    const ids = [seededJobId(0)];
    for (let next = await jobs.next(); next.done !== true; next = await jobs.next()) ids.push(next.value.job?.jobId?.jobId ?? "");
    // The job created after the end is there, the one deleted before its page was read is not,
    // and the one created behind the page already read is not either: each job at most once,
    // in id order.
    const expected = Array.from({ length: COUNT }, (_, i) => seededJobId(i)).filter((id) => id !== seededJobId(COUNT - 2));
    expect(ids).toEqual([...expected, "job-9999999"]);
  });

  it("finds every match across pages, a regular expression's too, in id order", async () => {
    const everyHundredth = { jobFilter: [{ jobFilter: { case: "idFilter" as const, value: { comparison: { case: "re" as const, value: "00$" } } } }] };
    const ids = (await collect(many.client.jobSearch(everyHundredth))).map((c) => c.job?.jobId?.jobId);
    expect(ids).toEqual(Array.from({ length: COUNT }, (_, i) => i).filter((i) => i % 100 === 0).map(seededJobId));
    expect(ids.length).toBeGreaterThan(SEARCH_PAGE / 100);
    const shard = { jobFilter: [{ jobFilter: { case: "tagFilter" as const, value: { tagName: "shard", comparison: { case: "eq" as const, value: "5" } } } }] };
    const sharded = (await collect(many.client.jobSearch(shard))).map((c) => c.job?.jobId?.jobId);
    expect(sharded).toEqual(Array.from({ length: COUNT }, (_, i) => i).filter((i) => i % 16 === 5).map(seededJobId));
  });
});

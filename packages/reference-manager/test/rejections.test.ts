// Every error code of every RPC, and the proof that a rejected call changes nothing: the
// database is byte-for-byte the same afterwards, and no event was published (the next event
// a live EventStream sees is a marker change made after the rejected call).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventStreamEvent } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code } from "norsk-manager-contract/grpc/index.js";
import { ID_PATTERN_MESSAGE } from "norsk-manager-contract/lexical/ids.js";
import { EventReader, collect, dumpDatabase, grpcErrorOf, simpleJob, startHarness } from "./harness.js";
import type { Harness, ManagerClient } from "./harness.js";

let h: Harness;
let events: EventReader<EventStreamEvent>;
const stopEvents = new AbortController();

beforeAll(async () => {
  h = await startHarness();
  const c = h.client;
  await c.createJob(simpleJob("j-pre"));
  await c.createJob(simpleJob("j-post"));
  await c.completeJob({ jobId: "j-post" });
  await c.createJob(simpleJob("j-run"));
  await c.startJob({ jobId: { jobId: "j-run" }, role: "primary", nodeId: { nodeId: "n1" } });
  await c.createAwsNode({ nodeId: { nodeId: "aws-1" } });
  await c.updatePhysicalNode({ id: "p-1" });
  events = new EventReader(c.eventStream({}, { signal: stopEvents.signal, timeoutMs: 600_000 }));
  for (;;) if ((await events.next()).event.case === "initialDataComplete") break;
});

afterAll(async () => {
  stopEvents.abort();
  await events.finished;
  await h.dispose();
});

type Row = [rpc: string, call: (c: ManagerClient) => Promise<unknown>, code: Code, message: string];

const idEq = (value: string) => ({ jobFilter: { case: "idFilter" as const, value: { comparison: { case: "eq" as const, value } } } });

const rows: Row[] = [
  ["CreateJob without job_id", (c) => c.createJob({}), Code.INVALID_ARGUMENT, "job_id is required"],
  ["CreateJob with an empty job_id", (c) => c.createJob({ jobId: { jobId: "" }, description: "x" }), Code.INVALID_ARGUMENT, "job_id is required"],
  ["CreateJob with a job_id longer than 256 characters", (c) => c.createJob(simpleJob("j".repeat(257))), Code.INVALID_ARGUMENT, "job_id must be at most 256 characters (it has 257)"],
  ["CreateJob with a job_id of 102 400 characters", (c) => c.createJob(simpleJob("j".repeat(102_400))), Code.INVALID_ARGUMENT, "job_id must be at most 256 characters (it has 102400)"],
  ["CreateJob with a job_id a path cannot hold", (c) => c.createJob(simpleJob("..")), Code.INVALID_ARGUMENT, `job_id ${ID_PATTERN_MESSAGE}`],
  ["CreateJob with a control character in job_id", (c) => c.createJob(simpleJob("a\nb")), Code.INVALID_ARGUMENT, `job_id ${ID_PATTERN_MESSAGE}`],
  ["CreateJob of an existing job", (c) => c.createJob(simpleJob("j-pre", { description: "other" })), Code.ALREADY_EXISTS, "job j-pre already exists"],
  ["UpdateJob without job_id", (c) => c.updateJob({ description: "x" }), Code.INVALID_ARGUMENT, "job_id is required"],
  ["UpdateJob of a missing job", (c) => c.updateJob(simpleJob("nope")), Code.NOT_FOUND, "job nope not found"],
  ["UpdateJob with a stale current_hash", (c) => c.updateJob(simpleJob("j-pre", { description: "x", currentHash: 1n })), Code.ABORTED, "current_hash does not match"],
  ["DeleteJob without job_id", (c) => c.deleteJob({}), Code.INVALID_ARGUMENT, "job_id is required"],
  ["DeleteJob of a missing job", (c) => c.deleteJob({ jobId: "nope" }), Code.NOT_FOUND, "job nope not found"],
  ["JobSearch with an invalid regex", (c) => collect(c.jobSearch({ jobFilter: [{ jobFilter: { case: "idFilter", value: { comparison: { case: "re", value: "[" } } } }] })), Code.INVALID_ARGUMENT, "id_filter.re: invalid regular expression"],
  ["JobSearch with a regex RE2 cannot run", (c) => collect(c.jobSearch({ jobFilter: [{ jobFilter: { case: "tagFilter", value: { tagName: "t", comparison: { case: "re", value: "(a)\\1" } } } }] })), Code.INVALID_ARGUMENT, "tag_filter.re: invalid regular expression (RE2 syntax"],
  ["JobSearch with an empty filter", (c) => collect(c.jobSearch({ jobFilter: [idEq("j-pre"), {}] })), Code.INVALID_ARGUMENT, "job_filter: empty filter"],
  ["JobSearch with an empty comparison", (c) => collect(c.jobSearch({ jobFilter: [{ jobFilter: { case: "dateFilter", value: {} } }] })), Code.INVALID_ARGUMENT, "date_filter: no comparison set"],
  ["CompleteJob without job_id", (c) => c.completeJob({}), Code.INVALID_ARGUMENT, "job_id is required"],
  ["CompleteJob of a missing job", (c) => c.completeJob({ jobId: "nope" }), Code.NOT_FOUND, "job nope not found"],
  ["StartJob without job_id", (c) => c.startJob({ role: "r", nodeId: { nodeId: "n" } }), Code.INVALID_ARGUMENT, "job_id is required"],
  ["StartJob without role", (c) => c.startJob({ jobId: { jobId: "j-pre" }, nodeId: { nodeId: "n" } }), Code.INVALID_ARGUMENT, "role is required"],
  ["StartJob without node_id", (c) => c.startJob({ jobId: { jobId: "j-pre" }, role: "r" }), Code.INVALID_ARGUMENT, "node_id is required"],
  ["StartJob of a missing job", (c) => c.startJob({ jobId: { jobId: "nope" }, role: "r", nodeId: { nodeId: "n" } }), Code.NOT_FOUND, "job nope not found"],
  ["StartJob of a completed job", (c) => c.startJob({ jobId: { jobId: "j-post" }, role: "r", nodeId: { nodeId: "n" } }), Code.FAILED_PRECONDITION, "job j-post is complete"],
  ["StartJob of a role already running", (c) => c.startJob({ jobId: { jobId: "j-run" }, role: "primary", nodeId: { nodeId: "n2" } }), Code.FAILED_PRECONDITION, "role primary of job j-run is already running on node n1"],
  ["StopJob without job_id", (c) => c.stopJob({ role: "primary" }), Code.INVALID_ARGUMENT, "job_id is required"],
  ["StopJob without role", (c) => c.stopJob({ jobId: { jobId: "j-run" } }), Code.INVALID_ARGUMENT, "role is required"],
  ["StopJob of a missing job", (c) => c.stopJob({ jobId: { jobId: "nope" }, role: "primary" }), Code.NOT_FOUND, "job nope not found"],
  ["StopJob of a role not running", (c) => c.stopJob({ jobId: { jobId: "j-run" }, role: "backup" }), Code.NOT_FOUND, "job j-run has no instance with role backup"],
  ["StopJob on the wrong node", (c) => c.stopJob({ jobId: { jobId: "j-run" }, role: "primary", nodeId: { nodeId: "n9" } }), Code.NOT_FOUND, "job j-run has no instance with role primary on node n9"],
  ["CreateAwsNode without node_id", (c) => c.createAwsNode({ region: "eu" }), Code.INVALID_ARGUMENT, "node_id is required"],
  ["CreateAwsNode with a node_id longer than 256 characters", (c) => c.createAwsNode({ nodeId: { nodeId: "n".repeat(257) } }), Code.INVALID_ARGUMENT, "node_id must be at most 256 characters (it has 257)"],
  ["CreateOciNode with a node_id a path cannot hold", (c) => c.createOciNode({ nodeId: { nodeId: "." } }), Code.INVALID_ARGUMENT, `node_id ${ID_PATTERN_MESSAGE}`],
  ["UpdatePhysicalNode of a new node with a control character in its id", (c) => c.updatePhysicalNode({ id: "p\u0085" }), Code.INVALID_ARGUMENT, `id ${ID_PATTERN_MESSAGE}`],
  ["StartJob with a role a path cannot hold", (c) => c.startJob({ jobId: { jobId: "j-pre" }, role: "..", nodeId: { nodeId: "n" } }), Code.INVALID_ARGUMENT, `role ${ID_PATTERN_MESSAGE}`],
  ["StartJob with a node_id longer than 256 characters", (c) => c.startJob({ jobId: { jobId: "j-pre" }, role: "r", nodeId: { nodeId: "n".repeat(257) } }), Code.INVALID_ARGUMENT, "node_id must be at most 256 characters (it has 257)"],
  ["CreateAwsNode of an existing node", (c) => c.createAwsNode({ nodeId: { nodeId: "aws-1" } }), Code.ALREADY_EXISTS, "node aws-1 already exists"],
  ["CreateAwsNode with a physical node's id", (c) => c.createAwsNode({ nodeId: { nodeId: "p-1" } }), Code.ALREADY_EXISTS, "node p-1 already exists"],
  ["CreateOciNode without node_id", (c) => c.createOciNode({ nodeId: { nodeId: "" } }), Code.INVALID_ARGUMENT, "node_id is required"],
  ["CreateOciNode of an existing node", (c) => c.createOciNode({ nodeId: { nodeId: "aws-1" } }), Code.ALREADY_EXISTS, "node aws-1 already exists"],
  ["TerminateNode without node_id", (c) => c.terminateNode({}), Code.INVALID_ARGUMENT, "node_id is required"],
  ["TerminateNode of a missing node", (c) => c.terminateNode({ nodeId: "nope" }), Code.NOT_FOUND, "node nope not found"],
  ["UpdatePhysicalNode without id", (c) => c.updatePhysicalNode({ daemonVersion: "1" }), Code.INVALID_ARGUMENT, "id is required"],
  ["UpdatePhysicalNode of a cloud node", (c) => c.updatePhysicalNode({ id: "aws-1" }), Code.FAILED_PRECONDITION, "node aws-1 is an AWS node, not a physical one"],
  ["EventStream with a negative pending window", (c) => collect(c.eventStream({ pendingWindowS: -1 })), Code.INVALID_ARGUMENT, "pending_window_s must not be negative"],
];

describe("rejected calls", () => {
  let marker = 0;
  it.each(rows)("%s: answers its code, names the field, changes nothing", async (_name, call, code, message) => {
    const before = dumpDatabase(h.dataDir);
    const error = await grpcErrorOf(call(h.client));
    expect(Code[error.code]).toBe(Code[code]);
    expect(error.details).toContain(message);
    expect(dumpDatabase(h.dataDir)).toEqual(before);
    // Nothing was published: the next live event is the marker's.
    const id = `marker-${++marker}`;
    await h.client.updatePhysicalNode({ id });
    const next = await events.next();
    expect(next.event.case === "physicalNodeConnected" ? next.event.value.node?.id : next.event.case).toBe(id);
  });
});

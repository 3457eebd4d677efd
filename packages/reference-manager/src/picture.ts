// The Manager's state as API messages: jobs with their history and instances, nodes, and the
// "current picture" that EventStream sends before live events. Everything here reads the
// store synchronously and builds messages; nothing writes.
//
// The current picture (decided here, as the proto leaves it open), in this order:
// 1. node_running for each cloud (AWS/OCI) node, in node id order, with its instances;
// 2. physical_node_connected for each physical node, in id order, with its instances;
// 3. job_active for each job in state ACTIVE, in job id order;
// 4. job_pending for each job in state PRE whose start_date_time is at most
//    pending_window_s seconds from now (overdue ones included), when pending_window_s > 0;
// then the caller sends initial_data_complete (with no provider health: there are no real
// providers behind the reference Manager).
//
// The picture's size does not depend on how long its jobs have lived, nor its cost on how
// many jobs are stored: a job_active or job_pending carries the job with at most
// PICTURE_HISTORY_ENTRIES of its newest history entries, each without previous_job (the
// replaced job; a job's full history is for a route that reads it on demand), and its jobs are
// selected in SQL through the store's job index (job-index.ts) and sent as stored bytes,
// never decoded.
import { create, fromBinary } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { UnknownField } from "@bufbuild/protobuf";
import {
  CurrentJobSchema,
  EventStreamEventSchema,
  JobSchema,
  JobWithHistorySchema,
  Job_JobState,
  NodeStartedSchema,
  PhysicalNodeSchema,
  RunningJobSchema,
} from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type {
  CurrentJob,
  EventStreamEvent,
  Job,
  JobWithHistory,
  NodeStarted,
  PhysicalNode,
  RunningJob,
} from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { NodeMetadataSchema } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { decodeEntry } from "./history.js";
import type { Placement } from "./history.js";
import type { InstanceRow, NodeRow, Store, StoredJob } from "./store.js";

/** The most history entries a job_active or job_pending of the current picture carries: the newest. */
export const PICTURE_HISTORY_ENTRIES = 100;

export function decodeJob(bytes: Uint8Array): Job {
  return fromBinary(JobSchema, bytes);
}

const CURRENT_JOB_JOB = CurrentJobSchema.field.job.number;

/**
 * A CurrentJob whose job is the stored bytes, sent as they are: they travel as an unknown
 * field 1, which protobuf-es writes verbatim, so the wire bytes are exactly those of a
 * CurrentJob with `job` set, without decoding and re-encoding the job (the bulk of a
 * JobSearch's cost), and fields this build does not know go out byte for byte. For
 * serialising only: in this process the message shows no `job`.
 */
export function currentJobFromStored(job: Uint8Array, instances: readonly InstanceRow[]): CurrentJob {
  const current = create(CurrentJobSchema, { instances: instances.map(runningJob) });
  current.$unknown = [lengthDelimited(CURRENT_JOB_JOB, job)];
  return current;
}

export function runningJob(row: InstanceRow): RunningJob {
  return create(RunningJobSchema, {
    jobKey: { jobId: { jobId: row.jobId }, role: row.role },
    nodeId: { nodeId: row.nodeId },
  });
}

type JobEventCase = "jobUpdated" | "jobActive" | "jobPending";

export function jobEvent(kind: JobEventCase, jobWithHistory: JobWithHistory): EventStreamEvent {
  return create(EventStreamEventSchema, { event: { case: kind, value: { jobWithHistory } } });
}

/**
 * The job_updated event of the write just applied: the job as it now is, with the history
 * entries that write appended (not the whole history, which the current picture carries:
 * events stay the size of the change however long a job lives). Undefined if the job no
 * longer exists.
 */
export function jobUpdatedEvent(store: Store, jobId: string): EventStreamEvent | undefined {
  const row = store.job(jobId);
  if (row === undefined) return undefined;
  const history = store.history(jobId, store.appendedByLastWrite(jobId)).map(decodeEntry);
  return jobEvent("jobUpdated", create(JobWithHistorySchema, { job: decodeJob(row.job), historyEntry: history }));
}

export function decodeCloudNode(row: NodeRow): NodeStarted {
  return fromBinary(NodeStartedSchema, row.record);
}

export function decodePhysicalNode(row: NodeRow): PhysicalNode {
  return fromBinary(PhysicalNodeSchema, row.record);
}

/**
 * Where an instance of `role` on `nodeId` runs, for history entries: the node's metadata when
 * the Manager knows it as a cloud node, else metadata naming the node id alone (a physical
 * node, or one the Manager has not been told about).
 */
export function placementOn(store: Store, nodeId: string, role: string): Placement {
  const node = store.node(nodeId);
  if (node !== undefined && node.kind !== "physical") {
    const started = decodeCloudNode(node);
    if (started.nodeMetadata !== undefined) {
      return { role, nodeMetadata: started.nodeMetadata, runningNodeMetadata: started.runningNodeMetadata };
    }
  }
  return { role, nodeMetadata: create(NodeMetadataSchema, { nodeId: { nodeId } }), runningNodeMetadata: undefined };
}

/** The current picture (see the top of this file), without initial_data_complete. */
export function currentPicture(store: Store, pendingWindowS: number, now: Timestamp): EventStreamEvent[] {
  const nodes = store.nodes();
  return [...cloudNodeEvents(store, nodes), ...physicalNodeEvents(store, nodes), ...jobEvents(store, pendingWindowS, now)];
}

/** node_running for each cloud node of `nodes`, in their order. */
function cloudNodeEvents(store: Store, nodes: readonly NodeRow[]): EventStreamEvent[] {
  const events: EventStreamEvent[] = [];
  for (const node of nodes) {
    if (node.kind === "physical") continue;
    const started = decodeCloudNode(node);
    events.push(
      create(EventStreamEventSchema, {
        event: {
          case: "nodeRunning",
          value: {
            nodeMetadata: started.nodeMetadata,
            runningNodeMetadata: started.runningNodeMetadata,
            instances: store.instancesOn(node.id).map(runningJob),
          },
        },
      }),
    );
  }
  return events;
}

/** physical_node_connected for each physical node of `nodes`, in their order. */
function physicalNodeEvents(store: Store, nodes: readonly NodeRow[]): EventStreamEvent[] {
  const events: EventStreamEvent[] = [];
  for (const node of nodes) {
    if (node.kind !== "physical") continue;
    events.push(
      create(EventStreamEventSchema, {
        event: {
          case: "physicalNodeConnected",
          value: { node: decodePhysicalNode(node), instances: store.instancesOn(node.id).map(runningJob) },
        },
      }),
    );
  }
  return events;
}

/** job_active for each ACTIVE job, then job_pending for each PRE job due within the window. */
function jobEvents(store: Store, pendingWindowS: number, now: Timestamp): EventStreamEvent[] {
  const active = store.jobsInState(Job_JobState.ACTIVE).map((row) => jobEvent("jobActive", storedWithHistory(store, row)));
  if (pendingWindowS <= 0) return active;
  const horizon = { seconds: now.seconds + BigInt(pendingWindowS), nanos: now.nanos };
  const pending = store.jobsStartingBy(Job_JobState.PRE, horizon).map((row) => jobEvent("jobPending", storedWithHistory(store, row)));
  return [...active, ...pending];
}

const WITH_HISTORY_JOB = JobWithHistorySchema.field.job.number;
const WITH_HISTORY_ENTRY = JobWithHistorySchema.field.historyEntry.number;

/**
 * A JobWithHistory of the stored job and its newest PICTURE_HISTORY_ENTRIES entries, all as
 * stored bytes carried as unknown fields (as currentJobFromStored does): for serialising only.
 */
function storedWithHistory(store: Store, row: StoredJob): JobWithHistory {
  const fields: UnknownField[] = [lengthDelimited(WITH_HISTORY_JOB, row.job)];
  for (const entry of store.historyEntries(row.id, PICTURE_HISTORY_ENTRIES)) fields.push(lengthDelimited(WITH_HISTORY_ENTRY, entry));
  const message = create(JobWithHistorySchema);
  message.$unknown = fields;
  return message;
}

function lengthDelimited(no: number, bytes: Uint8Array): UnknownField {
  return { no, wireType: WireType.LengthDelimited, data: new BinaryWriter().bytes(bytes).finish() };
}

// A job's run: StartJob, StopJob and CompleteJob, and the instance bookkeeping that
// TerminateNode shares with them.
//
// State rules (the reference Manager's, decided here; the proto does not say):
// - StartJob adds a RunningJob instance (at most one per role) and makes the job ACTIVE.
// - When its last instance stops (StopJob, TerminateNode), an ACTIVE job returns to PRE: it is
//   not running and may be started again. CompleteJob stops every instance and makes it POST,
//   which is final: StartJob then fails with FAILED_PRECONDITION.
// - CompleteJob on a job that is already POST succeeds and changes nothing (a safe retry).
// A state change changes the job, so its stored hash changes too.
import { create } from "@bufbuild/protobuf";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import type { Empty, Timestamp } from "@bufbuild/protobuf/wkt";
import { JobHistoryJobStopping_Reason, Job_JobState } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job, Manager, StartJobRequest, StopJobRequest } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { JobId } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import type { ServiceImpl } from "norsk-manager-contract/grpc/index.js";
import { commit } from "./context.js";
import type { ManagerContext } from "./context.js";
import { failedPrecondition, notFound, required, requiredId } from "./errors.js";
import { hashOwnedJob, withCurrentHash } from "./hash.js";
import { completedEntry, runningEntry, stoppedEntry, stoppingEntry } from "./history.js";
import { decodeJob, jobUpdatedEvent, placementOn } from "./picture.js";
import type { InstanceRow, Store } from "./store.js";

type LifecycleHandlers = Pick<ServiceImpl<typeof Manager>, "startJob" | "stopJob" | "completeJob">;

export function lifecycleHandlers(context: ManagerContext): LifecycleHandlers {
  return {
    startJob: (request) => startJob(context, request),
    stopJob: (request) => stopJob(context, request),
    completeJob: (request) => completeJob(context, request),
  };
}

function startJob(context: ManagerContext, request: StartJobRequest): Empty {
  const { store } = context;
  const id = required(request.jobId?.jobId, "job_id");
  // The instance is addressed by role (and node id) in HTTP paths: both follow the id rule.
  const role = requiredId(request.role, "role");
  const nodeId = requiredId(request.nodeId?.nodeId, "node_id");
  const job = existingJob(store, id);
  if (job.state === Job_JobState.POST) throw failedPrecondition(`job ${id} is complete (state POST) and cannot be started`);
  const running = store.instancesOf(id).find((i) => i.role === role);
  if (running !== undefined) {
    throw failedPrecondition(`role ${role} of job ${id} is already running on node ${running.nodeId}`);
  }
  const now = context.now();
  const placement = placementOn(store, nodeId, role);
  commit(
    context,
    () => {
      store.insertInstance({ jobId: id, role, nodeId });
      store.appendHistory(id, runningEntry(now, placement));
      if (job.state !== Job_JobState.ACTIVE) {
        job.state = Job_JobState.ACTIVE;
        writeJob(store, id, job);
      }
    },
    () => ({ events: [jobUpdatedEvent(store, id)], summary: `job ${id} role ${role} started on node ${nodeId}` }),
  );
  return create(EmptySchema);
}

// node_id may be empty: it then means "wherever that role runs".
function stopJob(context: ManagerContext, request: StopJobRequest): Empty {
  const { store } = context;
  const id = required(request.jobId?.jobId, "job_id");
  const role = required(request.role, "role");
  const nodeId = request.nodeId?.nodeId ?? "";
  existingJob(store, id);
  const instance = store.instancesOf(id).find((i) => i.role === role && (nodeId === "" || i.nodeId === nodeId));
  if (instance === undefined) {
    throw notFound(`job ${id} has no instance with role ${role}${nodeId === "" ? "" : ` on node ${nodeId}`}`);
  }
  const now = context.now();
  commit(
    context,
    () => {
      stopInstance(store, instance, now, JobHistoryJobStopping_Reason.JOB_STOPPED_USER_REQUESTED);
      settleState(store, id);
    },
    () => ({ events: [jobUpdatedEvent(store, id)], summary: `job ${id} role ${role} stopped on node ${instance.nodeId}` }),
  );
  return create(EmptySchema);
}

function completeJob(context: ManagerContext, request: JobId): Empty {
  const { store } = context;
  const id = required(request.jobId, "job_id");
  const job = existingJob(store, id);
  if (job.state === Job_JobState.POST) return create(EmptySchema);
  const now = context.now();
  commit(
    context,
    () => {
      for (const instance of store.instancesOf(id)) {
        stopInstance(store, instance, now, JobHistoryJobStopping_Reason.JOB_STOPPED_USER_REQUESTED);
      }
      store.appendHistory(id, completedEntry(now));
      job.state = Job_JobState.POST;
      writeJob(store, id, job);
    },
    () => ({ events: [jobUpdatedEvent(store, id)], summary: `job ${id} completed` }),
  );
  return create(EmptySchema);
}

function existingJob(store: Store, id: string): Job {
  const row = store.job(id);
  if (row === undefined) throw notFound(`job ${id} not found`);
  return decodeJob(row.job);
}

/** Stores `job` (a stored job, decoded and changed by the caller) under `id` with its new hash. */
export function writeJob(store: Store, id: string, job: Job): bigint {
  const { hash, canonical } = hashOwnedJob(job);
  store.replaceJob(id, hash, withCurrentHash(canonical, hash));
  return hash;
}

/** Removes an instance, writing job_stopping then job_stopped. Call inside a transaction. */
export function stopInstance(
  store: Store,
  instance: InstanceRow,
  now: Timestamp,
  reason: JobHistoryJobStopping_Reason,
): void {
  const placement = placementOn(store, instance.nodeId, instance.role);
  store.deleteInstance(instance.jobId, instance.role);
  store.appendHistory(instance.jobId, stoppingEntry(now, placement, reason));
  store.appendHistory(instance.jobId, stoppedEntry(now, placement));
}

/** An ACTIVE job with no instance left returns to PRE. Call inside a transaction. */
export function settleState(store: Store, id: string): void {
  if (store.instancesOf(id).length > 0) return;
  const row = store.job(id);
  if (row === undefined) return;
  const job = decodeJob(row.job);
  if (job.state === Job_JobState.ACTIVE) {
    job.state = Job_JobState.PRE;
    writeJob(store, id, job);
  }
}
